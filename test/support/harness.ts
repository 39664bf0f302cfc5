import fs from 'node:fs'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import type { Gateway } from '../../src/gateway/gateway'
import { KeychainSecretStore } from '../../src/gateway/secrets/secretStore'
import type { ConfigOverrides } from '../../src/gateway/config'
import type { RoutingConfig } from '../../src/gateway/routing/routingConfig'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai'
import { tempDir } from './tempDir'
import { waitUntil } from './waitUntil'
import { ROOT } from './build'
import { sharedPostgres } from './postgres'
import { databases, databaseUrlOf } from './storeFile'

export { tempDir }

const run = promisify(execFile)

/**
 * The store test gateways run on: SQLite in their data dir, or with GW_TEST_STORE=postgres a
 * database of its own on a throwaway PostgreSQL server, the same tests against the team's store.
 */
export const TEST_STORE = process.env.GW_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'

/**
 * The GW_SECRET_KEY every test gateway has, as every gateway of a team's server has one: on
 * PostgreSQL the provider keys a test stores are encrypted under it; SQLite ignores it.
 */
export const TEST_SECRET_KEY = randomBytes(32).toString('base64')

/** The store overrides for a new test gateway with this data dir. */
export async function testStoreFor(dataDir: string): Promise<{ databaseUrl?: string }> {
  if (TEST_STORE === 'sqlite') return {}
  const databaseUrl = await (await sharedPostgres()).createDatabase()
  databases.set(dataDir, databaseUrl)
  return { databaseUrl }
}

/** Runs the real `gw` CLI in its own process, as a user (or a script) would, on the test gateway's store. */
export async function gwCli(args: string[], opts: { dataDir: string; input?: string; env?: NodeJS.ProcessEnv }) {
  const database = databaseUrlOf(opts.dataDir)
  const store = database ? ['--database-url', database] : []
  const child = run(process.execPath, [path.join(ROOT, 'bin/gw.mjs'), ...args, '--data-dir', opts.dataDir, ...store], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
  })
  if (opts.input !== undefined) {
    child.child.stdin!.end(opts.input)
  }
  return child
}

export interface TestGateway {
  running: RunningGateway
  url: string
  baseURL: string
  dataDir: string
  /**
   * The gateway's PostgreSQL database, or null when its store is the SQLite file in `dataDir`: a
   * test that runs `gw` itself passes it as GW_DATABASE_URL.
   */
  databaseUrl: string | null
  fake: FakeOpenAI
  key: string
  client: OpenAI
  /**
   * Request records, newest first, once at least `atLeast` are stored: a record is queued after
   * the response went out, so a test that just got its answer may be a moment ahead of it.
   */
  records(atLeast?: number): Promise<RequestRecord[]>
  /** One request's record, once it is stored. */
  record(id: string | null): Promise<RequestRecord>
  close(): Promise<void>
}

/**
 * A real gateway on a loopback port with its own data dir, whose `openai` provider points at a
 * fake OpenAI server, and an official SDK client holding a fresh gateway key; `env` adds to its
 * environment (OpenTelemetry's variables, say).
 */
export async function startTestGateway(config: ConfigOverrides = {}, routing: Partial<RoutingConfig> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestGateway> {
  const fake = await startFakeOpenAI()
  const dataDir = tempDir()
  const store = await testStoreFor(dataDir)
  const running = await startGateway(
    // Quiet unless a test asks for a log (config.logLevel, config.logFile).
    { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...store, ...config },
    {
      env: { OPENAI_API_KEY: fake.apiKey, GW_SECRET_KEY: TEST_SECRET_KEY, ...env },
      secrets: new KeychainSecretStore('GW Gateway test'),
      // Tests of other behaviour see each provider answer once; routing tests ask for retries.
      routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000, baseDelayMs: 1, maxDelayMs: 20, ...routing },
    },
  )
  const gw = running.gateway
  await gw.store.providers.upsert('openai', 'openai', fake.url)
  const { secret } = await gw.store.keys.create('test')
  await gw.configChanged()
  const baseURL = `${running.url}/v1`
  return {
    running,
    url: running.url,
    baseURL,
    dataDir,
    databaseUrl: store.databaseUrl ?? null,
    fake,
    key: secret,
    client: new OpenAI({ baseURL, apiKey: secret, maxRetries: 0 }),
    async records(atLeast = 1) {
      const deadline = Date.now() + 3000
      for (;;) {
        await gw.records.flushed()
        const list = await gw.store.requests.list(1000)
        if (list.length >= atLeast || Date.now() > deadline) return list
        await new Promise((r) => setTimeout(r, 10))
      }
    },
    record: (id) => waitForRecord(gw, id),
    async close() {
      await running.close()
      await fake.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
      databases.delete(dataDir)
    },
  }
}

/** Reads an SSE response body into its `data:` payloads (JSON parsed, except [DONE]). */
export async function readSse(res: Response): Promise<Array<Record<string, any> | '[DONE]'>> {
  const text = await res.text()
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => {
      const data = block.slice('data: '.length)
      return data === '[DONE]' ? '[DONE]' : JSON.parse(data)
    })
}

/** Response bodies in tests are read loosely typed: the assertions are the type check. */
export const json = async (res: Response): Promise<any> => res.json()

/** One request's record, once the writer has stored it: a record is queued after the response went out. */
export async function waitForRecord(gw: Gateway, id: string | null | undefined): Promise<RequestRecord> {
  let found: RequestRecord | undefined
  await waitUntil(
    async () => {
      await gw.records.flushed()
      found = id ? await gw.store.requests.get(id) : undefined
      return found !== undefined
    },
    { what: `record ${id} stored`, timeoutMs: 3000 },
  )
  return found!
}

/** Sets up the gateway's owner over `/api/auth.setup` and returns the sign-in cookie (`name=value`) the dashboard's calls carry. */
export async function ownerCookie(url: string): Promise<string> {
  const setup = await fetch(`${url}/api/auth.setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'owner', password: 'correct horse battery' }),
  })
  if (setup.status !== 200) throw new Error(`auth.setup answered ${setup.status}: ${await setup.text()}`)
  return setup.headers.get('set-cookie')!.split(';')[0]
}
