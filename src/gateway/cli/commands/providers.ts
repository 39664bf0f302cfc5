import type { Output } from '../../../contract'
import { providerDialect, providerWire } from '../../../contract/providers'
import { envVarFor } from '../../secrets/secretStore'
import { number, parse, table, type Command } from '../shared'
import { operate, operating, runningOperator } from './api'

/** The contract's fields as this command's flags, so a refusal names what the person typed. */
const FLAGS = {
  id: 'ID',
  kind: '--kind',
  base_url: '--base-url',
  wire: '--wire',
  dialect: '--dialect',
  api_key: '--api-key-stdin',
  'timeouts.connect_ms': '--connect-timeout-ms',
  'timeouts.first_byte_ms': '--first-byte-timeout-ms',
  'timeouts.idle_ms': '--idle-timeout-ms',
  timeout_ms: '--timeout-ms',
}

export const providersSet: Command = async (args, io) => {
  const { values, positionals } = parse(args, {
    kind: { type: 'string' },
    'base-url': { type: 'string' },
    'api-key-stdin': { type: 'boolean' },
    'connect-timeout-ms': { type: 'string' },
    'first-byte-timeout-ms': { type: 'string' },
    'idle-timeout-ms': { type: 'string' },
    wire: { type: 'string' },
    dialect: { type: 'string' },
  })
  const id = positionals[0]
  if (!id) throw new Error('providers set needs ID: lower-case letters, digits, - and _ (it becomes the model prefix, ID/model)')
  const wire = values.wire === undefined ? undefined : providerWire.safeParse(values.wire).data
  if (values.wire !== undefined && !wire) throw new Error(`--wire must be one of ${providerWire.options.join(', ')}, got "${values.wire}"`)
  const dialect = values.dialect === undefined ? undefined : providerDialect.safeParse(values.dialect).data
  if (values.dialect !== undefined && !dialect) throw new Error(`--dialect must be one of ${providerDialect.options.join(', ')}, got "${values.dialect}"`)
  let secret: string | undefined
  if (values['api-key-stdin']) {
    secret = (await io.readStdin()).trim()
    if (!secret) throw new Error('--api-key-stdin read an empty key')
  }
  const ms = (v: string | undefined, flag: string) =>
    v === undefined ? undefined : number(v, flag, (n) => Number.isInteger(n) && n > 0, 'a positive whole number of milliseconds')
  const timeouts = {
    connect_ms: ms(values['connect-timeout-ms'], '--connect-timeout-ms'),
    first_byte_ms: ms(values['first-byte-timeout-ms'], '--first-byte-timeout-ms'),
    idle_ms: ms(values['idle-timeout-ms'], '--idle-timeout-ms'),
  }
  const saved = await operate(
    values,
    io,
    'providers.set',
    // The flags given are the provider's whole setting, as they always were from the CLI: no --base-url means the built-in's.
    { id, kind: values.kind, base_url: values['base-url'] ?? null, api_key: secret, timeouts, wire, dialect },
    FLAGS,
  )
  io.out(`provider ${id} saved${secret ? ` (key …${secret.slice(-4)} stored in ${saved.key_store})` : ''}`)
  return 0
}

export const providersList: Command = async (args, io) => {
  const { values } = parse(args, {})
  const providers = (await operate(values, io, 'providers.list', {})).map((p) => ({
    id: p.id,
    kind: p.kind,
    wire: p.wire,
    dialect: p.dialect,
    base_url: p.base_url,
    local: p.local,
    credential: p.credential,
  }))
  if (values.json) io.out(JSON.stringify(providers, null, 2))
  else {
    io.out(
      table([
        ['ID', 'KIND', 'WIRE', 'DIALECT', 'BASE URL', 'KEY'],
        ...providers.map((p) => [
          p.id,
          p.kind,
          p.wire ?? '-',
          p.dialect ?? '-',
          p.base_url ?? '-',
          p.credential ? `…${p.credential.last4} (${p.credential.source})` : p.local ? 'not needed' : `none (${envVarFor(p.id)})`,
        ]),
      ]),
    )
  }
  return 0
}

export const providersRemove: Command = async (args, io) => {
  const { values, positionals } = parse(args, {})
  const id = positionals[0]
  if (!id) throw new Error('providers remove needs ID')
  await operate(values, io, 'providers.remove', { id })
  io.out(`removed ${id}`)
  return 0
}

type Status = Output<'providers.test'>

/**
 * "Test connection": the provider's cheapest real call, reporting latency or its exact error.
 * With a gateway running on the data dir, the test is that gateway's own (its environment and
 * keychain hold the key it uses); otherwise this shell's, and a missing key is explained with
 * where each process looks.
 */
export const providersTest: Command = async (args, io) => {
  const { values, positionals } = parse(args, { 'timeout-ms': { type: 'string' } })
  const id = positionals[0]
  if (!id) throw new Error('providers test needs ID')
  const timeout =
    values['timeout-ms'] === undefined ? 10_000 : number(values['timeout-ms'], '--timeout-ms', (n) => Number.isInteger(n) && n > 0, 'a positive whole number')
  const input = { id, timeout_ms: timeout }
  let status: Status | null = null
  let by = 'this shell'
  const running = runningOperator(values, io)
  if (running) {
    try {
      status = await running.run('providers.test', input)
      by = `the running gateway at ${running.url}`
    } catch (err) {
      if (!(err instanceof TypeError)) throw err
      // fetch's TypeError: nothing answers there (a gateway killed before it could withdraw its file).
      io.err(`gw: the gateway announced at ${running.url} does not answer (${(err.cause as Error)?.message ?? err.message}); testing from this shell`)
    }
  }
  if (!status) {
    status = await operating(
      values,
      io,
      async (run) => {
        const tested = await run('providers.test', input)
        if (tested.ok) return tested
        const provider = (await run('providers.list', {})).find((p) => p.id === id)
        if (!provider || provider.credential || provider.local) return tested
        const reason =
          `this shell has no ${envVarFor(id)} and ${provider.key_store} holds no key for ${id}, and no gateway is running on this data dir ` +
          `(one that is would be tested with the key in its own environment). Run \`gw providers set ${id} --api-key-stdin\`, or export ${envVarFor(id)} here and in the gateway's environment`
        return { ...tested, reason }
      },
      FLAGS,
    )
  }
  if (values.json) io.out(JSON.stringify({ provider: id, ...status, tested_by: by }))
  else if (status.ok) io.out(`${id}: ok in ${status.latency_ms} ms, ${status.models} models listed (tested by ${by})`)
  else
    io.out(
      `${id}: failed: ${status.reason} (tested by ${by})${status.fix === 'api_key' && by !== 'this shell' ? `. Store one with \`gw providers set ${id} --api-key-stdin\`, or set ${envVarFor(id)} in the gateway's environment` : ''}`,
    )
  return status.ok ? 0 : 1
}
