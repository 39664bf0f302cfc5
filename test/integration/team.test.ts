import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI from 'openai'
import pg from 'pg'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { pgTypes } from '../../src/gateway/store/postgres/pgSql'
import { migrations } from '../../src/gateway/store/migrations'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { MemorySecretStore } from '../support/memorySecretStore'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { gwCli, tempDir } from '../support/harness'

const LATEST = Math.max(...migrations.map((m) => m.version))

/** Waits until `ok()` holds, checking every 10 ms, and says how long it took; fails after `ms`. */
async function within(ms: number, ok: () => Promise<boolean>): Promise<number> {
  const start = Date.now()
  while (!(await ok())) {
    if (Date.now() - start > ms) assert.fail(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return Date.now() - start
}

/**
 * Several gateways on one PostgreSQL database, started together on an empty one: the schema is
 * applied once, and a change made through one gateway or the CLI reaches the others' next requests.
 */
describe('three gateways on one PostgreSQL database', { skip: postgresSkipReason() ?? false }, () => {
  let fake: FakeOpenAI
  let databaseUrl: string
  let gateways: RunningGateway[]
  const dataDirs: string[] = []

  const start = (url: string) => {
    const dataDir = tempDir()
    dataDirs.push(dataDir)
    return startGateway(
      { host: '127.0.0.1', port: 0, dataDir, databaseUrl: url, logLevel: 'silent' },
      { env: { OPENAI_API_KEY: fake.apiKey }, secrets: new MemorySecretStore(), routing: { maxRetries: 0 } },
    )
  }
  const chat = (gateway: RunningGateway, key: string) =>
    new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => 200,
        (err: { status?: number }) => err.status ?? 0,
      )

  before(async () => {
    fake = await startFakeOpenAI()
    databaseUrl = await (await sharedPostgres()).createDatabase()
    // At the same moment, on an empty database: they queue on the migration lock.
    gateways = await Promise.all([start(databaseUrl), start(databaseUrl), start(databaseUrl)])
  })
  after(async () => {
    await Promise.all((gateways ?? []).map((g) => g.close()))
    await fake.close()
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('all come up, and the schema is applied once', async () => {
    for (const g of gateways) assert.equal((await fetch(`${g.url}/healthz`)).status, 200)
    const pool = new pg.Pool({ connectionString: databaseUrl, types: pgTypes })
    try {
      const meta = (await pool.query<{ key: string; value: string }>(`SELECT key, value FROM meta ORDER BY key`)).rows
      assert.deepEqual(meta, [
        { key: 'config_rev', value: '0' },
        { key: 'schema_version', value: String(LATEST) },
      ])
    } finally {
      await pool.end()
    }
  })

  it('a key made through one gateway works on the others within a second, and one revoked by the CLI stops within a second', async (t) => {
    const [a, b, c] = gateways
    await a.gateway.store.providers.upsert('openai', 'openai', fake.url)
    const { secret, info } = await a.gateway.store.keys.create('team')
    const reachedB = await within(1000, async () => (await chat(b, secret)) === 200)
    const reachedC = await within(1000, async () => (await chat(c, secret)) === 200)
    await gwCli(['keys', 'revoke', info.id, '--database-url', databaseUrl], { dataDir: dataDirs[0] })
    const stoppedB = await within(1000, async () => (await chat(b, secret)) === 401)
    const stoppedA = await within(1000, async () => (await chat(a, secret)) === 401)
    t.diagnostic(`created: on B after ${reachedB} ms, C after ${reachedC} ms; revoked by the CLI: B refused after ${stoppedB} ms, A after ${stoppedA} ms`)
  })

  it('a gateway older than the database schema refuses to start, saying so', async () => {
    const url = await (await sharedPostgres()).createDatabase()
    const pool = new pg.Pool({ connectionString: url })
    try {
      await pool.query(`CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)`)
      await pool.query(`INSERT INTO meta (key, value) VALUES ('schema_version', '99')`)
    } finally {
      await pool.end()
    }
    await assert.rejects(start(url), new RegExp(`the database has schema version 99, newer than this build knows \\(${LATEST}\\); upgrade GW Gateway`))
  })
})
