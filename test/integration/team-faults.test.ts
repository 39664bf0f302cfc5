import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import pg from 'pg'
import { openStore } from '../../src/gateway/store/openStore'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { MemorySecretStore } from '../support/memorySecretStore'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startGatewayProcesses, type GatewayProcess } from '../support/gatewayProcesses'
import { postgresSkipReason, sharedPostgres, startPostgres, type Postgres } from '../support/postgres'
import { tempDir } from '../support/tempDir'
import { waitUntil } from '../support/waitUntil'

/**
 * docs/team.md "Durability": a record is committed within the writer's 50 ms batch delay plus its
 * batch's write; a record missing after a kill must belong to an answer delivered this close to it.
 */
const RECORD_BOUND_MS = 250

/** Until `ok()` holds, asked every 50 ms (most ask the database or a gateway); resolves to how long that took. */
const within = (timeoutMs: number, what: string, ok: () => boolean | Promise<boolean>) => waitUntil(ok, { what, timeoutMs, intervalMs: 50 })

interface Keys {
  free: string
  prepaid: string
}

/** A database with the fake provider and a free and a prepaid key, made as an operator would before starting the gateways. */
async function prepare(databaseUrl: string, fake: FakeOpenAI): Promise<Keys> {
  const store = await openStore({ dataDir: tempDir(), databaseUrl })
  try {
    await store.providers.upsert('openai', 'openai', fake.url)
    const free = await store.keys.create('free')
    const prepaid = await store.keys.create('prepaid', { balanceUsd: 1000 })
    return { free: free.secret, prepaid: prepaid.secret }
  } finally {
    await store.close()
  }
}

/** The test's own connection to the database, to read what the gateways stored. */
async function storedIds(databaseUrl: string, query: string): Promise<Set<string>> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  try {
    return new Set((await pool.query<{ id: string }>(query)).rows.map((r) => r.id))
  } finally {
    await pool.end()
  }
}

interface Answer {
  gateway: number
  prepaid: boolean
  /** The request id, once the whole answer was received (a stream to its end). */
  id: string | null
  /** When the client had the whole answer, or gave up. */
  at: number
  status: number | null
  error: string | null
}

/** One chat completion through the official SDK, streamed or not, as the answer a client received. */
async function ask(client: OpenAI, gateway: number, prepaid: boolean, stream: boolean, content: string): Promise<Answer> {
  const body = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content }] }
  try {
    let id: string | null
    if (stream) {
      const { data, response } = await client.chat.completions.create({ ...body, stream: true }).withResponse()
      let priced = false
      for await (const chunk of data) if ((chunk as { gw?: { cost?: unknown } }).gw?.cost) priced = true
      id = priced ? response.headers.get('x-request-id') : null
    } else {
      const { response } = await client.chat.completions.create(body).withResponse()
      id = response.headers.get('x-request-id')
    }
    return { gateway, prepaid, id, at: Date.now(), status: 200, error: id ? null : 'the stream ended without its cost' }
  } catch (err) {
    const e = err as { status?: number; message: string }
    return { gateway, prepaid, id: null, at: Date.now(), status: e.status ?? null, error: e.message }
  }
}

const clientsFor = (gateways: Array<{ url: string }>, key: string) => gateways.map((g) => new OpenAI({ baseURL: `${g.url}/v1`, apiKey: key, maxRetries: 0 }))

/** A gateway's log lines (its log is gw.log in its data dir). */
function logLines(gateway: Pick<GatewayProcess, 'dataDir'>): Array<{ level: number; msg: string; [field: string]: unknown }> {
  return fs
    .readFileSync(`${gateway.dataDir}/gw.log`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/** Whether a gateway logged a batch of records it could not write (it holds them for the next try). */
const failedToWrite = (gateway: Pick<GatewayProcess, 'dataDir'>) => logLines(gateway).some((l) => l.msg === 'request records: could not write')

/** The messages of a gateway's log lines at warning level or above. */
const warnings = (gateway: GatewayProcess): string[] =>
  logLines(gateway)
    .filter((l) => l.level >= 40)
    .map((l) => l.msg)

describe('three gateway processes on one PostgreSQL, one killed with SIGKILL under load', { skip: postgresSkipReason() ?? false }, () => {
  let fake: FakeOpenAI
  let databaseUrl: string
  let keys: Keys
  let gateways: GatewayProcess[] = []

  before(async () => {
    fake = await startFakeOpenAI()
    databaseUrl = await (await sharedPostgres()).createDatabase()
    keys = await prepare(databaseUrl, fake)
    gateways = await startGatewayProcesses(3, { databaseUrl, env: { OPENAI_API_KEY: fake.apiKey } })
  })
  after(async () => {
    await Promise.all(gateways.map((g) => g.kill()))
    await fake.close()
  })

  it('the other two answer every request sent to them, and every answer delivered is recorded (and debited) but those of the last moments of the killed one', async (t) => {
    const TOTAL = 300
    const CONCURRENCY = 30
    const KILL_AFTER = 100
    const VICTIM = 2
    const free = clientsFor(gateways, keys.free)
    const prepaid = clientsFor(gateways, keys.prepaid)
    const answers: Answer[] = []
    let next = 0
    let killedAt = 0
    let killed: Promise<unknown> = Promise.resolve()
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) {
          const i = next++
          const gateway = i % 3
          const isPrepaid = i % 2 === 1
          answers.push(await ask((isPrepaid ? prepaid : free)[gateway], gateway, isPrepaid, i % 4 === 0, `request ${i}`))
          if (answers.length === KILL_AFTER) {
            killedAt = Date.now()
            killed = gateways[VICTIM].kill('SIGKILL')
          }
        }
      }),
    )
    await killed

    const survivors = answers.filter((a) => a.gateway !== VICTIM)
    assert.deepEqual(
      survivors.filter((a) => a.id === null).map((a) => `gateway ${a.gateway}: ${a.status} ${a.error}`),
      [],
      'every request sent to the two others was answered whole',
    )
    const delivered = answers.filter((a) => a.id !== null)
    // The survivors' records are written within their batch delay: wait for them, then read once.
    const survivorIds = survivors.map((a) => a.id!)
    const waited = await within(10_000, 'the survivors’ records are stored', async () => {
      const records = await storedIds(databaseUrl, 'SELECT id FROM requests')
      return survivorIds.every((id) => records.has(id))
    })
    const records = await storedIds(databaseUrl, 'SELECT id FROM requests')
    const debits = await storedIds(databaseUrl, `SELECT request_id AS id FROM ledger WHERE kind = 'usage'`)
    const lost = delivered.filter((a) => !records.has(a.id!))
    const victimDelivered = delivered.filter((a) => a.gateway === VICTIM)
    // Relative to the kill signal: an answer may complete in the moment between the signal and the process's death.
    const offsets = lost.map((a) => a.at - killedAt)
    const span = lost.length ? `, delivered from ${Math.min(...offsets)} to ${Math.max(...offsets)} ms after the kill signal (negative: before it)` : ''
    t.diagnostic(
      `${answers.length} requests, ${delivered.length} answered whole (${victimDelivered.length} by the killed gateway); ` +
        `${answers.length - delivered.length} sent to the killed gateway failed; survivors' records stored ${waited} ms after the load; ` +
        `${lost.length} records lost${span}`,
    )
    assert.ok(victimDelivered.length >= 10, 'the killed gateway served before its death')
    assert.deepEqual(
      lost
        .filter((a) => a.gateway !== VICTIM || a.at < killedAt - RECORD_BOUND_MS)
        .map((a) => `gateway ${a.gateway}: ${a.id} delivered ${killedAt - a.at} ms before the kill`),
      [],
      'no record lost but those the killed gateway delivered within the batch bound of its death',
    )
    assert.deepEqual(
      delivered.filter((a) => a.prepaid && !debits.has(a.id!)).map((a) => `gateway ${a.gateway}: ${a.id}`),
      [],
      'every prepaid answer delivered has its debit',
    )
    for (const survivor of [0, 1]) assert.deepEqual(warnings(gateways[survivor]), [], `gateway ${survivor} logged no warning or error`)
  })
})

describe('PostgreSQL stopped and started again under load', { skip: postgresSkipReason() ?? false }, () => {
  let fake: FakeOpenAI
  let postgres: Postgres
  let databaseUrl: string
  let keys: Keys
  let gateways: GatewayProcess[] = []

  before(async () => {
    fake = await startFakeOpenAI()
    // A server of this test's own: it is stopped and started again.
    postgres = await startPostgres()
    databaseUrl = await postgres.createDatabase()
    keys = await prepare(databaseUrl, fake)
    gateways = await startGatewayProcesses(3, { databaseUrl, env: { OPENAI_API_KEY: fake.apiKey } })
  })
  after(async () => {
    await Promise.all(gateways.map((g) => g.kill()))
    await fake.close()
    await postgres?.stop()
  })

  it('free keys are answered throughout, /readyz goes 503 and back to 200, and every answer is recorded once the database is back', async (t) => {
    const free = clientsFor(gateways, keys.free)
    const answers: Answer[] = []
    const readiness: Array<Array<{ at: number; status: number; reason?: string }>> = gateways.map(() => [])
    const stop = { now: false }
    let n = 0
    const load = Promise.all(
      Array.from({ length: 15 }, async () => {
        while (!stop.now) {
          const i = n++
          answers.push(await ask(free[i % 3], i % 3, false, i % 4 === 0, `request ${i}`))
        }
      }),
    )
    // Each gateway's /readyz every 200 ms, as a load balancer's health check polls it; every change is kept.
    const polls = gateways.map(async (g, i) => {
      while (!stop.now) {
        const res = await fetch(`${g.url}/readyz`)
        const body = (await res.json()) as { status: string; reason?: string }
        if (readiness[i].at(-1)?.status !== res.status) readiness[i].push({ at: Date.now(), status: res.status, reason: body.reason })
        // The balancer's own pace, not a wait for anything.
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    })
    const ready = () => gateways.every((_, i) => readiness[i].at(-1)?.status === 200)
    /** Whether each gateway has answered a request whole since `since`. */
    const eachAnswered = (since: number) => gateways.every((_, i) => answers.some((a) => a.gateway === i && a.id !== null && a.at > since))

    await within(10_000, 'every gateway ready and answering', () => ready() && eachAnswered(0))
    const stoppedAt = Date.now()
    await postgres.stopServer()
    const saidDown = () => readiness.every((changes) => changes.some((c) => c.status === 503 && c.at > stoppedAt))
    await within(10_000, "every gateway's /readyz saying 503", saidDown)
    // A key whose limits the database holds cannot be served meanwhile: 503, before any provider sees it.
    const prepaid = clientsFor(gateways, keys.prepaid)
    const refusedPrepaid = await Promise.all([0, 1, 2].map((g) => ask(prepaid[g], g, true, g === 0, `prepaid during the outage ${g}`)))
    // Down until every gateway holds records it could not write, and free keys were answered meanwhile.
    await within(
      15_000,
      'every gateway failing to write records, and 30 answers during the outage',
      () => gateways.every(failedToWrite) && answers.filter((a) => a.at > stoppedAt).length >= 30,
    )
    await postgres.startServer()
    const startedAt = Date.now()
    const readyAgain = await within(30_000, 'every gateway ready again', async () => ready())
    const readyAt = Date.now()
    await within(10_000, 'every gateway answering again', () => eachAnswered(readyAt))
    stop.now = true
    await Promise.all([load, ...polls])

    for (const a of refusedPrepaid) {
      assert.equal(a.status, 503, `a prepaid request during the outage: ${a.status} ${a.error}`)
      assert.match(a.error!, /limits the gateways keep in their database, which cannot be reached now \(E[A-Z]+\); try again shortly/)
    }
    assert.equal(fake.received.filter((r) => JSON.stringify(r.body).includes('prepaid during the outage')).length, 0, 'no provider saw them')
    const failed = answers.filter((a) => a.id === null)
    const duringOutage = answers.filter((a) => a.at > stoppedAt && a.at < startedAt)
    assert.deepEqual(
      failed.map((a) => `gateway ${a.gateway}: ${a.status} ${a.error}`),
      [],
      'every free-key request was answered',
    )
    assert.ok(duringOutage.length >= 30, `requests were answered while the database was down (${duringOutage.length})`)
    for (const [i, changes] of readiness.entries()) {
      const down = changes.find((c) => c.status === 503 && c.at > stoppedAt)
      assert.ok(down, `gateway ${i}'s /readyz said 503 while the database was down: ${JSON.stringify(changes)}`)
      assert.match(down.reason!, /store does not answer/)
      assert.equal(changes.at(-1)!.status, 200)
    }
    const ids = answers.map((a) => a.id!)
    const recorded = await within(15_000, 'every answer recorded', async () => {
      const records = await storedIds(databaseUrl, 'SELECT id FROM requests')
      return ids.every((id) => records.has(id))
    })
    for (const [i, g] of gateways.entries()) {
      assert.doesNotThrow(() => process.kill(g.pid, 0), `gateway ${i} (pid ${g.pid}) still runs`)
    }
    // Each gateway listens for configuration changes again: a key made now works on all of them.
    const store = await openStore({ dataDir: tempDir(), databaseUrl })
    const { secret } = await store.keys.create('after the outage')
    await store.close()
    const reached = await Promise.all(
      clientsFor(gateways, secret).map((client, i) =>
        within(5000, `the new key works on gateway ${i}`, async () => (await ask(client, i, false, false, 'new key')).id !== null),
      ),
    )
    const firstDown = Math.min(...readiness.map((changes) => changes.find((c) => c.status === 503 && c.at > stoppedAt)!.at))
    t.diagnostic(
      `${answers.length} requests answered, ${duringOutage.length} while the database was down; /readyz 503 ${firstDown - stoppedAt} ms after the stop, ` +
        `200 on all ${readyAgain} ms after the start; every answer recorded ${recorded} ms after the load ended; a new key worked after ${reached.join(', ')} ms`,
    )
  })
})

describe('the bound on records held while PostgreSQL is unreachable', { skip: postgresSkipReason() ?? false }, () => {
  const BOUND = 40
  let fake: FakeOpenAI
  let postgres: Postgres
  let databaseUrl: string
  let keys: Keys
  let gateway: GatewayProcess

  before(async () => {
    fake = await startFakeOpenAI()
    postgres = await startPostgres()
    databaseUrl = await postgres.createDatabase()
    keys = await prepare(databaseUrl, fake)
    ;[gateway] = await startGatewayProcesses(1, { databaseUrl, env: { OPENAI_API_KEY: fake.apiKey, GW_MAX_QUEUED_RECORDS: String(BOUND) } })
  })
  after(async () => {
    await gateway?.kill()
    await fake.close()
    await postgres?.stop()
  })

  it('beyond it requests are refused with 503 in their wire’s shape before any provider sees them, and none answered is lost', async (t) => {
    const [client] = clientsFor([gateway], keys.free)
    // In steady state: the gateway has served (and read what it reads once after a start).
    const warmUp = await ask(client, 0, false, false, 'before')
    assert.ok(warmUp.id)
    await within(5000, 'its record stored', async () => (await storedIds(databaseUrl, 'SELECT id FROM requests')).has(warmUp.id!))
    await postgres.stopServer()
    const sentBefore = fake.received.length
    // One answer first, whose record's batch (due 50 ms later) fails: the gateway knows the store is unreachable.
    const answers: Answer[] = [await ask(client, 0, false, false, 'first')]
    await within(5000, 'its record failing to be written', () => failedToWrite(gateway))
    let n = 1
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        while (n < 100) answers.push(await ask(client, 0, false, n % 4 === 0, `request ${n++}`))
      }),
    )
    const answered = answers.filter((a) => a.id !== null)
    const refused = answers.filter((a) => a.id === null)
    assert.ok(answered.length >= BOUND && answered.length <= BOUND + 5, `${answered.length} answered: the bound, passed by at most the requests in flight`)
    assert.equal(refused.length, 100 - answered.length)
    for (const r of refused) {
      assert.equal(r.status, 503)
      assert.match(
        r.error!,
        /The gateway's store has been unreachable for \d+ s and \d+ request records are waiting to be written .*the gateway holds at most 40 records/,
      )
    }
    assert.equal(fake.received.length - sentBefore, answered.length, 'no refused request reached the provider')
    const sdkError = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((err: unknown) => err)
    assert.ok(sdkError instanceof OpenAI.APIError)
    assert.equal(sdkError.status, 503)
    assert.equal(sdkError.code, 'store_unavailable')
    assert.equal(sdkError.headers?.get('retry-after'), '5')
    // Anthropic's wire: its own error shape, with the status its SDKs read as "overloaded, retry".
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: keys.free, maxRetries: 0 })
    const messagesError = await anthropic.messages
      .create({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((err: unknown) => err)
    assert.ok(messagesError instanceof Anthropic.APIError)
    assert.equal(messagesError.status, 529)
    assert.equal((messagesError.error as { error: { type: string } }).error.type, 'overloaded_error')
    const readyz = await fetch(`${gateway.url}/readyz`)
    assert.equal(readyz.status, 503)
    assert.match(((await readyz.json()) as { reason: string }).reason, /request records are waiting/)

    await postgres.startServer()
    const recorded = await within(15_000, 'every answered request recorded', async () => {
      const records = await storedIds(databaseUrl, 'SELECT id FROM requests')
      return answered.every((a) => records.has(a.id!))
    })
    const records = await storedIds(databaseUrl, 'SELECT id FROM requests')
    assert.equal(records.size, answered.length + 1, 'refused requests are not recorded (the one before the stop is)')
    const back = await within(10_000, 'requests answered again', async () => (await ask(client, 0, false, false, 'after')).id !== null)
    assert.equal((await fetch(`${gateway.url}/readyz`)).status, 200)
    // The warning, and each refusal (not recorded), are in the log, written within a second: it is gathered.
    await within(5000, 'the refusals warned of', async () => warnings(gateway).some((msg) => msg.startsWith('refusing new requests: ')))
    const refusedLines = () => logLines(gateway).filter((l) => l.msg === 'request' && l.status === 503 && l.path === '/v1/chat/completions').length
    await within(5000, 'every refusal logged', async () => refusedLines() === refused.length + 1)
    t.diagnostic(
      `${answered.length} answered and ${refused.length} refused while down; all answered recorded ${recorded} ms after the start, requests answered again after ${back} ms`,
    )
  })
})

describe('a configuration reload the database cannot answer', { skip: postgresSkipReason() ?? false }, () => {
  let fake: FakeOpenAI
  let postgres: Postgres
  let databaseUrl: string
  let keys: Keys
  let running: RunningGateway
  let dataDir: string

  before(async () => {
    fake = await startFakeOpenAI()
    postgres = await startPostgres()
    databaseUrl = await postgres.createDatabase()
    keys = await prepare(databaseUrl, fake)
    dataDir = tempDir()
    running = await startGateway(
      { host: '127.0.0.1', port: 0, dataDir, databaseUrl, logFile: `${dataDir}/gw.log` },
      { env: { OPENAI_API_KEY: fake.apiKey }, secrets: new MemorySecretStore() },
    )
  })
  after(async () => {
    await running?.close()
    await fake.close()
    await postgres?.stop()
  })

  it('leaves the configuration in memory serving, and is tried again until the database answers', async (t) => {
    const [client] = clientsFor([running], keys.free)
    assert.ok((await ask(client, 0, false, false, 'before')).id)
    await postgres.stopServer()
    // As a notice of a change would: the next request reloads, from a database that is gone.
    running.gateway.store.config.invalidate()
    const during = await ask(client, 0, false, false, 'during')
    assert.ok(during.id, `answered from the configuration in memory: ${during.status} ${during.error}`)
    await within(5000, 'the failed reload logged', async () =>
      logLines({ dataDir }).some((l) => l.level === 50 && l.msg.startsWith('configuration: could not be read from the store')),
    )
    await postgres.startServer()
    const store = await openStore({ dataDir: tempDir(), databaseUrl })
    const { secret } = await store.keys.create('after the restart')
    await store.close()
    const [fresh] = clientsFor([running], secret)
    const loaded = await within(10_000, 'a key made after the restart works', async () => (await ask(fresh, 0, false, false, 'new')).id !== null)
    t.diagnostic(`a key made after the database's return worked ${loaded} ms later`)
  })
})
