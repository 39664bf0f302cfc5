import { parseArgs, type ParseArgsConfig } from 'node:util'
import { resolveConfig } from '../config'
import { openDatabase, type Db } from '../store/db'
import { KeysRepo, toKeyInfo } from '../store/keysRepo'
import { ProvidersRepo } from '../store/providersRepo'
import { PricesRepo } from '../store/pricesRepo'
import { RequestsRepo } from '../store/requestsRepo'
import { builtinProviders, providerKinds } from '../providers/builtin'
import { KeychainSecretStore, envVarFor, resolveCredential, type SecretStore } from '../secrets/secretStore'
import { startGateway } from '../server'

export interface CliIo {
  out(text: string): void
  err(text: string): void
  readStdin(): Promise<string>
  env: NodeJS.ProcessEnv
  secrets: SecretStore
  /** `gw serve` resolves this when the process should stop (signals in real use). */
  untilStopped(): Promise<void>
}

const defaultIo = (): CliIo => ({
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : t + '\n'),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : t + '\n'),
  readStdin: async () => {
    const chunks: Buffer[] = []
    for await (const c of process.stdin) chunks.push(c as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  },
  env: process.env,
  secrets: new KeychainSecretStore(process.env.GW_KEYCHAIN_SERVICE),
  untilStopped: () =>
    new Promise((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    }),
})

const USAGE = `usage: gw <command> [options]   (every command takes --data-dir DIR)

  serve [--host H] [--port P] [--allowed-hosts a,b] [--cors-origins o1,o2]
  keys create --name NAME [--json]           print the new key (shown once)
  keys list [--json]
  keys revoke KEY                            KEY: id, name or gw-prefix
  providers set ID [--kind openai] [--base-url URL] [--api-key-stdin]
  providers list [--json]
  providers remove ID
  prices set PROVIDER/MODEL --input USD [--output USD] [--cached-input USD] [--cache-write USD] [--context N] [--note TEXT]
  prices list [--json]
  prices remove PROVIDER/MODEL
  requests list [--json] [--limit N]
  requests show ID

Prices are USD per 1M tokens.`

const common = { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  return parseArgs({ args, options: { ...common, ...options }, allowPositionals: true, strict: true })
}

function usd(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} must be a non-negative number of USD per 1M tokens, got "${value}"`)
  return n
}

const table = (rows: string[][]) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n')
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'))

export async function runCli(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [group, action, ...rest] = argv
  if (!group || group === 'help' || group === '--help' || group === '-h') {
    io.out(USAGE)
    return group ? 0 : 2
  }
  if (group === 'serve') return serve([action, ...rest].filter((a) => a !== undefined), io)
  const withDb = async (args: string[], fn: (db: Db) => Promise<number> | number) => {
    const dataDirArg = args.indexOf('--data-dir')
    const dataDir = dataDirArg === -1 ? undefined : args[dataDirArg + 1]
    const db = openDatabase(resolveConfig({ dataDir }, io.env).dataDir)
    try {
      return await fn(db)
    } finally {
      db.close()
    }
  }
  const command = `${group} ${action ?? ''}`.trim()
  switch (command) {
    case 'keys create': {
      const { values } = parse(rest, { name: { type: 'string' } })
      if (!values.name) throw new Error('keys create needs --name NAME')
      return withDb(rest, (db) => {
        const { secret, info } = new KeysRepo(db).create(values.name!)
        io.out(values.json ? JSON.stringify({ secret, ...info }) : secret)
        return 0
      })
    }
    case 'keys list': {
      const { values } = parse(rest, {})
      return withDb(rest, (db) => {
        const keys = new KeysRepo(db).all().map(toKeyInfo)
        if (values.json) io.out(JSON.stringify(keys, null, 2))
        else if (keys.length === 0) io.out('No keys yet. Create one with: gw keys create --name NAME')
        else {
          io.out(
            table([
              ['ID', 'NAME', 'KEY', 'CREATED', 'LAST USED', 'REVOKED'],
              ...keys.map((k) => [k.id, k.name, k.masked, when(k.created_at), when(k.last_used_at), when(k.revoked_at)]),
            ]),
          )
        }
        return 0
      })
    }
    case 'keys revoke': {
      const { positionals } = parse(rest, {})
      if (!positionals[0]) throw new Error('keys revoke needs KEY (id, name or gw- prefix)')
      return withDb(rest, (db) => {
        const repo = new KeysRepo(db)
        const key = repo.find(positionals[0])
        if (!key) throw new Error(`no key matches "${positionals[0]}"`)
        if (!repo.revoke(key.id)) throw new Error(`key ${key.id} was already revoked`)
        io.out(`revoked ${key.id} (${key.name})`)
        return 0
      })
    }
    case 'providers set': {
      const { values, positionals } = parse(rest, {
        kind: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key-stdin': { type: 'boolean' },
      })
      const id = positionals[0]
      if (!id || !/^[a-z0-9][a-z0-9_-]{0,39}$/.test(id)) {
        throw new Error('providers set needs ID: lower-case letters, digits, - and _ (it becomes the model prefix, ID/model)')
      }
      const builtin = builtinProviders.find((p) => p.id === id)
      const kind = values.kind ?? builtin?.kind
      if (!kind) throw new Error(`${id} is not a built-in provider: give --kind (${providerKinds.join(', ')}) and --base-url`)
      if (!(providerKinds as readonly string[]).includes(kind)) throw new Error(`unknown --kind "${kind}" (known: ${providerKinds.join(', ')})`)
      const baseUrl = values['base-url'] ?? null
      if (baseUrl !== null && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new Error(`--base-url must be an http(s) URL, got "${baseUrl}"`)
      if (!builtin && !baseUrl) throw new Error(`${id} is not a built-in provider: give --base-url`)
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
          )
        }
      }
      return withDb(rest, (db) => {
        new ProvidersRepo(db).upsert(id, kind, baseUrl)
        io.out(`provider ${id} saved${secret ? ` (key …${secret.slice(-4)} stored in ${io.secrets.description})` : ''}`)
        return 0
      })
    }
    case 'providers list': {
      const { values } = parse(rest, {})
      return withDb(rest, async (db) => {
        const rows = new Map(new ProvidersRepo(db).all().map((r) => [r.id, r]))
        const ids = [...new Set([...builtinProviders.map((p) => p.id), ...rows.keys()])]
        const list = await Promise.all(
          ids.map(async (id) => {
            const builtin = builtinProviders.find((p) => p.id === id)
            const row = rows.get(id)
            const cred = await resolveCredential(id, io.secrets, io.env)
            return {
              id,
              kind: row?.kind ?? builtin!.kind,
              base_url: row?.base_url ?? builtin?.baseUrl ?? null,
              local: builtin?.local ?? false,
              credential: cred ? { source: cred.source, last4: cred.value.slice(-4) } : null,
            }
          }),
        )
        if (values.json) io.out(JSON.stringify(list, null, 2))
        else {
          io.out(
            table([
              ['ID', 'KIND', 'BASE URL', 'KEY'],
              ...list.map((p) => [
                p.id,
                p.kind,
                p.base_url ?? '-',
                p.credential ? `…${p.credential.last4} (${p.credential.source})` : p.local ? 'not needed' : `none (${envVarFor(p.id)})`,
              ]),
            ]),
          )
        }
        return 0
      })
    }
    case 'providers remove': {
      const { positionals } = parse(rest, {})
      if (!positionals[0]) throw new Error('providers remove needs ID')
      return withDb(rest, async (db) => {
        const removed = new ProvidersRepo(db).remove(positionals[0])
        const hadKey = await io.secrets.delete(positionals[0]).catch(() => false)
        if (!removed && !hadKey) throw new Error(`no stored provider or key named ${positionals[0]}`)
        io.out(`removed ${positionals[0]}${hadKey ? ' and its key' : ''}`)
        return 0
      })
    }
    case 'prices set': {
      const { values, positionals } = parse(rest, {
        input: { type: 'string' },
        output: { type: 'string' },
        'cached-input': { type: 'string' },
        'cache-write': { type: 'string' },
        context: { type: 'string' },
        note: { type: 'string' },
      })
      const model = positionals[0]
      if (!model || !/^[^/\s]+\/\S+$/.test(model)) throw new Error('prices set needs PROVIDER/MODEL, e.g. openai/gpt-4o-mini')
      const input = usd(values.input, '--input')
      if (input === null) throw new Error('prices set needs --input USD (per 1M tokens)')
      const context = values.context === undefined ? null : Number(values.context)
      if (context !== null && !(Number.isInteger(context) && context > 0)) throw new Error('--context must be a positive integer')
      return withDb(rest, (db) => {
        new PricesRepo(db).set({
          model,
          input,
          output: usd(values.output, '--output'),
          cached_input: usd(values['cached-input'], '--cached-input'),
          cache_write: usd(values['cache-write'], '--cache-write'),
          context_length: context,
          note: values.note ?? null,
        })
        io.out(`price for ${model} saved`)
        return 0
      })
    }
    case 'prices list': {
      const { values } = parse(rest, {})
      return withDb(rest, (db) => {
        const prices = new PricesRepo(db).all()
        if (values.json) io.out(JSON.stringify(prices, null, 2))
        else if (prices.length === 0) io.out('No price overrides; the built-in catalog applies (see GET /v1/models).')
        else {
          const n = (v: number | null) => (v === null ? '-' : String(v))
          io.out(
            table([
              ['MODEL', 'INPUT', 'CACHED', 'WRITE', 'OUTPUT', 'NOTE'],
              ...prices.map((p) => [p.model, n(p.input), n(p.cached_input), n(p.cache_write), n(p.output), p.note ?? '']),
            ]),
          )
        }
        return 0
      })
    }
    case 'prices remove': {
      const { positionals } = parse(rest, {})
      return withDb(rest, (db) => {
        if (!positionals[0] || !new PricesRepo(db).remove(positionals[0])) throw new Error(`no price override for "${positionals[0] ?? ''}"`)
        io.out(`price override for ${positionals[0]} removed`)
        return 0
      })
    }
    case 'requests list': {
      const { values } = parse(rest, { limit: { type: 'string' } })
      const limit = values.limit === undefined ? 100 : Number(values.limit)
      if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive integer')
      return withDb(rest, (db) => {
        const records = new RequestsRepo(db).list(limit)
        if (values.json) io.out(JSON.stringify(records, null, 2))
        else if (records.length === 0) io.out('No requests recorded yet.')
        else {
          io.out(
            table([
              ['ID', 'TIME', 'STATUS', 'OUTCOME', 'MODEL', 'PROVIDER', 'TOKENS', 'COST USD', 'MS'],
              ...records.map((r) => [
                r.id,
                r.created_at,
                String(r.status),
                r.outcome,
                r.model ?? '-',
                r.provider ?? '-',
                r.usage ? `${r.usage.prompt_tokens}/${r.usage.completion_tokens}` : '-',
                r.cost?.final_usd != null ? String(r.cost.final_usd) : r.cost ? 'unpriced' : '-',
                String(r.latency_ms),
              ]),
            ]),
          )
        }
        return 0
      })
    }
    case 'requests show': {
      const { positionals } = parse(rest, {})
      return withDb(rest, (db) => {
        const record = positionals[0] ? new RequestsRepo(db).get(positionals[0]) : undefined
        if (!record) throw new Error(`no request "${positionals[0] ?? ''}"`)
        io.out(JSON.stringify(record, null, 2))
        return 0
      })
    }
    default:
      io.err(`gw: unknown command "${command}"\n\n${USAGE}`)
      return 2
  }
}

async function serve(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    'allowed-hosts': { type: 'string' },
    'cors-origins': { type: 'string' },
  })
  const split = (v: string | undefined) => v?.split(',').map((s) => s.trim()).filter(Boolean)
  const running = await startGateway(
    {
      host: values.host,
      port: values.port,
      dataDir: values['data-dir'],
      allowedHosts: split(values['allowed-hosts']),
      corsOrigins: split(values['cors-origins']),
    },
    { env: io.env, secrets: io.secrets },
  )
  io.out(`GW Gateway listening on ${running.url} (OpenAI base URL ${running.url}/v1, data in ${running.config.dataDir})`)
  await io.untilStopped()
  await running.close()
  return 0
}
