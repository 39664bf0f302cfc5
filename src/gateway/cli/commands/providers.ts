import { providerWire } from '../../../contract/providers'
import { builtinProviders } from '../../providers/builtin'
import { providerKinds } from '../../providers/kinds'
import { envVarFor, resolveCredential } from '../../secrets/secretStore'
import { ProvidersRepo, type ProviderTimeouts } from '../../store/providersRepo'
import { ProviderRegistry } from '../../providers/registry'
import { probeProvider } from '../../providers/health'
import { createUpstreamAgent } from '../../upstream/client'
import { number, parse, table, withStore, type Command } from '../shared'

export const providersSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, {
    kind: { type: 'string' },
    'base-url': { type: 'string' },
    'api-key-stdin': { type: 'boolean' },
    'connect-timeout-ms': { type: 'string' },
    'first-byte-timeout-ms': { type: 'string' },
    'idle-timeout-ms': { type: 'string' },
    wire: { type: 'string' },
  })
  const id = positionals[0]
  if (!id || !/^[a-z0-9][a-z0-9_-]{0,39}$/.test(id)) {
    throw new Error('providers set needs ID: lower-case letters, digits, - and _ (it becomes the model prefix, ID/model)')
  }
  const builtin = builtinProviders.find((p) => p.id === id)
  const kind = values.kind ?? builtin?.kind
  if (!kind) throw new Error(`${id} is not a built-in provider: give --kind (${providerKinds().join(', ')}) and --base-url`)
  if (!providerKinds().includes(kind)) throw new Error(`unknown --kind "${kind}" (known: ${providerKinds().join(', ')})`)
  const baseUrl = values['base-url'] ?? null
  if (baseUrl !== null && !/^https?:\/\/\S+$/.test(baseUrl)) throw new Error(`--base-url must be an http(s) URL, got "${baseUrl}"`)
  if (!builtin && !baseUrl) throw new Error(`${id} is not a built-in provider: give --base-url`)
  const wire = values.wire === undefined ? undefined : providerWire.safeParse(values.wire).data
  if (values.wire !== undefined && !wire) throw new Error(`--wire must be one of ${providerWire.options.join(', ')}, got "${values.wire}"`)
  if (wire && kind !== 'openai') throw new Error(`--wire applies to providers of kind openai; ${id} is of kind ${kind}`)
  let secret: string | null = null
  if (values['api-key-stdin']) {
    secret = (await io.readStdin()).trim()
    if (!secret) throw new Error('--api-key-stdin read an empty key')
    try {
      await io.secrets.set(id, secret)
    } catch (err) {
      throw new Error(
        `could not store the key for ${id} in ${io.secrets.description}: ${(err as Error).message}. ` +
          `Set ${envVarFor(id)} in the gateway's environment instead.`,
        { cause: err },
      )
    }
  }
  const ms = (v: string | undefined, flag: string) =>
    v === undefined ? undefined : number(v, flag, (n) => Number.isInteger(n) && n > 0, 'a positive whole number of milliseconds')
  const timeouts: ProviderTimeouts = {
    connect_ms: ms(values['connect-timeout-ms'], '--connect-timeout-ms'),
    first_byte_ms: ms(values['first-byte-timeout-ms'], '--first-byte-timeout-ms'),
    idle_ms: ms(values['idle-timeout-ms'], '--idle-timeout-ms'),
  }
  for (const k of Object.keys(timeouts) as Array<keyof ProviderTimeouts>) if (timeouts[k] === undefined) delete timeouts[k]
  return withStore(values['data-dir'], io, (db) => {
    new ProvidersRepo(db).upsert(id, kind, baseUrl, timeouts, wire)
    io.out(`provider ${id} saved${secret ? ` (key …${secret.slice(-4)} stored in ${io.secrets.description})` : ''}`)
    return 0
  })
}

export const providersList: Command = async (args, io) => {
  const { values } = parse(args, {})
  return withStore(values['data-dir'], io, async (db) => {
    const rows = new Map(new ProvidersRepo(db).all().map((r) => [r.id, r]))
    const ids = [...new Set([...builtinProviders.map((p) => p.id), ...rows.keys()])]
    const providers = await Promise.all(
      ids.map(async (id) => {
        const builtin = builtinProviders.find((p) => p.id === id)
        const row = rows.get(id)
        const cred = await resolveCredential(id, io.secrets, io.env)
        const kind = row?.kind ?? builtin!.kind
        return {
          id,
          kind,
          wire: kind === 'openai' ? (row?.wire ?? builtin?.wire ?? 'chat') : null,
          base_url: row?.base_url ?? builtin?.baseUrl ?? null,
          local: builtin?.local ?? false,
          credential: cred ? { source: cred.source, last4: cred.value.slice(-4) } : null,
        }
      }),
    )
    if (values.json) io.out(JSON.stringify(providers, null, 2))
    else {
      io.out(
        table([
          ['ID', 'KIND', 'WIRE', 'BASE URL', 'KEY'],
          ...providers.map((p) => [
            p.id,
            p.kind,
            p.wire ?? '-',
            p.base_url ?? '-',
            p.credential ? `…${p.credential.last4} (${p.credential.source})` : p.local ? 'not needed' : `none (${envVarFor(p.id)})`,
          ]),
        ]),
      )
    }
    return 0
  })
}

export const providersRemove: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  const id = positionals[0]
  if (!id) throw new Error('providers remove needs ID')
  return withStore(values['data-dir'], io, async (db) => {
    const removed = new ProvidersRepo(db).remove(id)
    const hadKey = await io.secrets.delete(id).catch(() => false)
    if (!removed && !hadKey) throw new Error(`no stored provider or key named ${id}`)
    io.out(`removed ${id}${hadKey ? ' and its key' : ''}`)
    return 0
  })
}

/** "Test connection": the provider's cheapest real call, reporting latency or its exact error. */
export const providersTest: Command = async (args, io) => {
  const { values, positionals } = parse(args, { 'timeout-ms': { type: 'string' } })
  const id = positionals[0]
  if (!id) throw new Error('providers test needs ID')
  const timeout = values['timeout-ms'] === undefined ? 10_000 : number(values['timeout-ms'], '--timeout-ms', (n) => n > 0, 'a positive number')
  return withStore(values['data-dir'], io, async (db) => {
    const agent = createUpstreamAgent()
    try {
      const registry = new ProviderRegistry(new ProvidersRepo(db), io.secrets, io.env, agent)
      const provider = registry.get(id)
      if (!provider) throw new Error(`no provider named ${id} (see gw providers list)`)
      const status = await probeProvider(agent, registry, provider, timeout)
      if (values.json) io.out(JSON.stringify({ provider: id, ...status }))
      else if (status.ok) io.out(`${id}: ok in ${status.latency_ms} ms, ${status.models.length} models listed`)
      else io.out(`${id}: failed: ${status.reason}`)
      return status.ok ? 0 : 1
    } finally {
      await agent.close()
    }
  })
}
