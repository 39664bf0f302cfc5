/**
 * The gateway exactly as shipped, in its own process so the benchmark can measure its CPU and RSS
 * alone: `node <flags> out/main/gw.js serve` with the flags of the checkout's `npm run serve`, on a
 * temp data dir prepared with the same CLI (`openai`, `anthropic` for the Messages row,
 * `gemini` for the Gemini rows and `openai-chat` for the Responses API translated, pointed at the
 * mock, a fresh key, body logging on request), with the provider credentials from the environment
 * (OPENAI_API_KEY, ANTHROPIC_API_KEY…) as on a headless server; or, joining a gateway on
 * PostgreSQL, a second gateway on that one's database and keys. SIGTERM closes it cleanly
 * (flushing records and, under --cpu-prof, writing the profile).
 *
 * A checkout from before the compiled CLI (`--compare DIR` of an older commit) has no
 * out/main/gw.js; its own bench/gateway-process.ts, run through tsx, starts it as it shipped then.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startChild, type Child } from './procs'
import { serveNodeArgs } from '../test/support/build'
import { envVarFor } from '../src/gateway/secrets/secretStore'
import { MOCK_MODELS } from './mock-provider'

export interface GatewayChildOptions {
  /** The checkout to run (this one by default). */
  root: string
  logBodies?: boolean
  /** Also an `anthropic` provider at the mock, for /v1/messages (a checkout from before the Messages API has none). */
  messages?: boolean
  /** Also a `gemini` provider at the mock, for Google's generateContent API natively (a checkout from before it has none). */
  gemini?: boolean
  /**
   * Also `openai-chat` (`CHAT_ONLY_PROVIDER`): OpenAI's API at the mock taking chat completions
   * only (`--wire chat`), priced as `openai`'s models, so the Responses API to it is translated.
   */
  chatOnly?: boolean
  /** Environment variables for the gateway process besides this process's (bench/ab.ts --env, --after-env). */
  env?: Record<string, string>
  /** Node flags for the gateway process, e.g. --cpu-prof. */
  nodeArgs?: string[]
  /** A program node runs under, and how long the gateway may take to start then (bench/instructions.ts: valgrind). */
  wrapper?: string[]
  startTimeoutMs?: number
  /** `serve --log-level`: the shipped default (info, to the log file) when not given; `silent` for a twin that logs nothing. */
  logLevel?: string
  /** A PostgreSQL store instead of the data dir's SQLite file. */
  databaseUrl?: string
  /** Also a key with a prepaid balance of this many USD (`prepaidKey`). */
  prepaidUsd?: number
  /** Also a key limited by this many requests a minute and nothing else (`rpmKey`). */
  rpm?: number
  /**
   * A gateway already serving a PostgreSQL store: this one serves the same database and keys, as
   * another gateway of a team does, with no set-up of its own (the options above are not used).
   */
  joins?: GatewayChild
}

const MOCK_KEY = 'sk-mock-bench'
/** A provider of OpenAI's kind that serves chat completions alone, as Mistral's, DeepSeek's and Together's APIs do. */
export const CHAT_ONLY_PROVIDER = 'openai-chat'

export type GatewayChild = Child & { key: string; url: string; prepaidKey: string | null; rpmKey: string | null; databaseUrl: string | null }

export async function startGatewayChild(mockUrl: string, opts: GatewayChildOptions): Promise<GatewayChild> {
  const gw = path.join(opts.root, 'out/main/gw.js')
  if (!fs.existsSync(gw)) {
    // An older checkout: its gateway-process prints {"url", "key"} itself.
    const child = await startChild(
      [
        ...(opts.nodeArgs ?? []),
        '--import',
        'tsx',
        path.join(opts.root, 'bench/gateway-process.ts'),
        '--mock',
        mockUrl,
        ...(opts.logBodies ? ['--log-bodies'] : []),
      ],
      { cwd: opts.root },
    )
    return { ...child, key: child.info.key, url: child.info.url, prepaidKey: null, rpmKey: null, databaseUrl: null }
  }
  if (opts.joins && !opts.joins.databaseUrl) throw new Error('only a gateway on PostgreSQL can be joined: on SQLite its data dir is its own')
  const databaseUrl = opts.joins?.databaseUrl ?? opts.databaseUrl ?? null
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'))
  const store = ['--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])]
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [gw, ...args, ...store], { cwd: opts.root, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`gw ${args.join(' ')} failed: ${r.stderr}`)
    return r.stdout.trim()
  }
  const keys = opts.joins ?? setUp(cli, mockUrl, opts)
  const logLevel = opts.logLevel ? ['--log-level', opts.logLevel] : []
  const child = await startChild([...serveNodeArgs(opts.root), ...(opts.nodeArgs ?? []), gw, 'serve', '--port', '0', ...logLevel, ...store], {
    cwd: opts.root,
    wrapper: opts.wrapper,
    timeoutMs: opts.startTimeoutMs,
    // Logged at the default level (unless `logLevel` says otherwise), as a server runs it, to a file: on standard output its lines
    // would fill the pipe this process reads the start-up line from.
    env: {
      ...Object.fromEntries(['openai', 'anthropic', 'gemini', CHAT_ONLY_PROVIDER].map((id) => [envVarFor(id), MOCK_KEY])),
      GW_LOG_FILE: path.join(dataDir, 'gw.log'),
      ...opts.env,
    },
    parse: (out) => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      return m ? { url: m[1] } : null
    },
  })
  const stop = child.stop
  return {
    ...child,
    key: keys.key,
    prepaidKey: keys.prepaidKey,
    rpmKey: keys.rpmKey,
    databaseUrl,
    url: child.info.url,
    stop: async () => {
      await stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A new store's providers (at the mock), keys and settings, made with the CLI as an operator would. */
function setUp(cli: (...args: string[]) => string, mockUrl: string, opts: GatewayChildOptions): Pick<GatewayChild, 'key' | 'prepaidKey' | 'rpmKey'> {
  cli('providers', 'set', 'openai', '--base-url', `${mockUrl}/v1`)
  if (opts.messages) cli('providers', 'set', 'anthropic', '--base-url', `${mockUrl}/v1`)
  // Google's version root, as its own base URL is: the gateway asks for models/{model}:… under it.
  if (opts.gemini) cli('providers', 'set', 'gemini', '--base-url', `${mockUrl}/v1beta`)
  if (opts.chatOnly) {
    cli('providers', 'set', CHAT_ONLY_PROVIDER, '--kind', 'openai', '--wire', 'chat', '--dialect', 'openai', '--base-url', `${mockUrl}/v1`)
    // `openai`'s price row for the model, so the chat row and the translated one differ by the translation alone.
    const { row } = JSON.parse(cli('api', 'prices.get', '--input', JSON.stringify({ model: `openai/${MOCK_MODELS.instant}` })))
    cli('api', 'prices.set', '--input', JSON.stringify({ model: `${CHAT_ONLY_PROVIDER}/${MOCK_MODELS.instant}`, row }))
  }
  const key = cli('keys', 'create', '--name', 'bench')
  const prepaidKey = opts.prepaidUsd === undefined ? null : cli('keys', 'create', '--name', 'bench-prepaid', '--balance', String(opts.prepaidUsd))
  const rpmKey = opts.rpm === undefined ? null : cli('keys', 'create', '--name', 'bench-rpm', '--rpm', String(opts.rpm))
  if (opts.logBodies) cli('api', 'settings.update', '--input', JSON.stringify({ log_bodies: true }))
  return { key, prepaidKey, rpmKey }
}
