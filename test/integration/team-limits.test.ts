import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import pg from 'pg'
import { pgTypes } from '../../src/gateway/store/postgres/pgSql'
import { openStore } from '../../src/gateway/store/openStore'
import type { Store } from '../../src/gateway/store/store'
import type { KeySettings } from '../../src/gateway/store/keysRepo'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startGatewayProcesses, type GatewayProcess } from '../support/gatewayProcesses'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { tempDir } from '../support/harness'
import { waitUntil } from '../support/waitUntil'

/** Requests sent at once in each test, spread over the three gateways in turn. */
const BURST = 240
/** Output tokens each answer has, and each request asks for at most: its reservation covers its output exactly. */
const OUTPUT = 200

/**
 * Every limit of a key held across three gateway processes on one database: a burst of requests
 * spread over them, each held upstream long enough for all to be in flight together, passes a
 * limit no more than one gateway would let it. Each gateway alone would admit the whole limit
 * again, so a limit held in each gateway's memory fails every test here.
 */
describe('limits held by three gateways on one PostgreSQL database', { skip: postgresSkipReason() ?? false }, () => {
  let fake: FakeOpenAI
  let databaseUrl: string
  let gateways: GatewayProcess[]
  let store: Store
  let db: pg.Pool
  let n = 0

  before(async () => {
    fake = await startFakeOpenAI()
    databaseUrl = await (await sharedPostgres()).createDatabase()
    store = await openStore({ dataDir: tempDir(), databaseUrl })
    await store.providers.upsert('openai', 'openai', fake.url)
    gateways = await startGatewayProcesses(3, { databaseUrl, env: { OPENAI_API_KEY: fake.apiKey } })
    db = new pg.Pool({ connectionString: databaseUrl, types: pgTypes })
  })
  after(async () => {
    await Promise.all((gateways ?? []).map((g) => g.kill()))
    await store?.close()
    await db?.end()
    await fake.close()
  })

  /**
   * A key made in the database, as the CLI makes one, in every gateway's memory before it is used:
   * a free key made after it answers on each gateway, and configuration is read whole.
   */
  const keyWith = async (settings: KeySettings & { balanceUsd?: number }) => {
    const { secret, info } = await store.keys.create(`team-${++n}`, settings)
    const sentinel = await store.keys.create(`sentinel-${n}`)
    for (const g of gateways) {
      await waitUntil(async () => (await fetch(`${g.url}/v1/models`, { headers: { authorization: `Bearer ${sentinel.secret}` } })).status === 200, {
        what: `the key reached ${g.url} within a second`,
        timeoutMs: 1000,
        intervalMs: 20,
      })
    }
    return { secret, id: info.id }
  }

  /** The provider's answer to each request: OUTPUT tokens, after `holdMs`. */
  const answer = (holdMs: number) => ({
    kind: 'delay' as const,
    ms: holdMs,
    then: { kind: 'reply' as const, usage: { prompt_tokens: 10, completion_tokens: OUTPUT } },
  })

  interface Outcome {
    status: number
    message: string
    costUsd: number
  }

  /** BURST requests at once, the i-th through gateway i % 3, each held `holdMs` upstream; outcomes in order. */
  const burst = async (secret: string, opts: { sessionId?: string; holdMs?: number } = {}): Promise<Outcome[]> => {
    fake.script(...Array.from({ length: BURST }, () => answer(opts.holdMs ?? 400)))
    try {
      return await Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const client = new OpenAI({
            baseURL: `${gateways[i % 3].url}/v1`,
            apiKey: secret,
            maxRetries: 0,
            defaultHeaders: opts.sessionId ? { 'x-gw-session-id': opts.sessionId } : {},
          })
          try {
            const res = await client.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: OUTPUT, messages: [{ role: 'user', content: `burst ${i}` }] })
            return { status: 200, message: '', costUsd: (res as unknown as { gw: { cost: { final_usd: number } } }).gw.cost.final_usd }
          } catch (err) {
            const e = err as { status?: number; message: string }
            return { status: e.status ?? 0, message: e.message, costUsd: 0 }
          }
        }),
      )
    } finally {
      fake.clearScript()
    }
  }

  const served = (outcomes: Outcome[]) => outcomes.filter((o) => o.status === 200)
  const statuses = (outcomes: Outcome[]) => [...new Set(outcomes.map((o) => o.status))].sort()
  /** What one answer costs: every answer of a burst costs the same. */
  const costOf = (outcomes: Outcome[]) => served(outcomes)[0].costUsd
  const balanceOf = async (keyId: string) =>
    BigInt((await db.query<{ pico: string }>(`SELECT CAST(COALESCE(SUM(amount_pico), 0) AS TEXT) AS pico FROM ledger WHERE key_id = $1`, [keyId])).rows[0].pico)
  /** What the key's records say it spent, once every answer served has its record. */
  const spentOf = async (keyId: string, answers: number) => {
    const read = async () =>
      (
        await db.query<{ n: number; usd: number }>(
          `SELECT count(*) FILTER (WHERE status = 200) AS n, COALESCE(SUM(cost_usd), 0) AS usd FROM requests WHERE key_id = $1`,
          [keyId],
        )
      ).rows[0]
    await waitUntil(async () => (await read()).n >= answers, { what: 'every answer is recorded', intervalMs: 50 })
    return (await read()).usd
  }
  /** One answer's cost in pico-dollars, learnt from a key with no limit. */
  let unitPico = 0n
  const unit = async () => {
    if (unitPico === 0n) {
      const { secret } = await keyWith({})
      fake.script(answer(0))
      const res = await new OpenAI({ baseURL: `${gateways[0].url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o-mini',
        max_tokens: OUTPUT,
        messages: [{ role: 'user', content: 'probe' }],
      })
      unitPico = BigInt(Math.round((res as unknown as { gw: { cost: { final_usd: number } } }).gw.cost.final_usd * 1e12))
    }
    return unitPico
  }

  it('requests per minute: exactly the key’s rate passes, the rest get 429 with a Retry-After', async (t) => {
    const { secret } = await keyWith({ policy: { rpm: 60 } })
    const before = fake.received.length
    const outcomes = await burst(secret, { holdMs: 0 })
    assert.equal(served(outcomes).length, 60)
    assert.deepEqual(statuses(outcomes), [200, 429])
    assert.match(outcomes.find((o) => o.status === 429)!.message, /60 requests per minute \[rule: rpm\]/)
    assert.equal(fake.received.length - before, 60)
    t.diagnostic(`served by each gateway: ${[0, 1, 2].map((g) => outcomes.filter((o, i) => i % 3 === g && o.status === 200).length).join(', ')}`)
  })

  it('a session’s request cap: exactly that many of one session reach the provider', async () => {
    const { secret } = await keyWith({ policy: { max_session_requests: 30 } })
    const before = fake.received.length
    const outcomes = await burst(secret, { sessionId: 'team-session-requests' })
    assert.equal(served(outcomes).length, 30)
    assert.deepEqual(statuses(outcomes), [200, 400])
    assert.match(outcomes.find((o) => o.status === 400)!.message, /limit of 30 requests set on key/)
    assert.equal(fake.received.length - before, 30)
  })

  it('a prepaid balance: used up, and overdrawn by no more than one answer, whichever gateway admitted what', async (t) => {
    const c = await unit()
    const balanceUsd = Number(c * 40n) / 1e12
    const { secret, id } = await keyWith({ balanceUsd })
    const outcomes = await burst(secret)
    const left = await balanceOf(id)
    t.diagnostic(`${served(outcomes).length} of ${BURST} served on a balance of 40 answers; ${Number(left) / Number(c)} answers' worth left`)
    assert.deepEqual(statuses(outcomes), [200, 402])
    assert.equal(BigInt(Math.round(costOf(outcomes) * 1e12)), c)
    assert.ok(left >= -c, `overdrawn by ${-left} pico-dollars, more than one answer (${c})`)
    assert.ok(left < 2n * c, `${left} pico-dollars left unused: admission refused too early`)
    assert.match(outcomes.find((o) => o.status === 402)!.message, /has no prepaid balance left/)
  })

  it('a daily spend limit: reached, and passed by no more than one answer', async (t) => {
    const c = await unit()
    const limitUsd = Number(c * 40n) / 1e12
    const { secret, id } = await keyWith({ daily_limit_usd: limitUsd })
    const outcomes = await burst(secret)
    const spent = await spentOf(id, served(outcomes).length)
    t.diagnostic(`${served(outcomes).length} of ${BURST} served against a daily limit of 40 answers; spent ${spent / (Number(c) / 1e12)} answers' worth`)
    assert.deepEqual(statuses(outcomes), [200, 402])
    assert.ok(spent <= limitUsd + Number(c) / 1e12 + 1e-12, `spent $${spent} against a limit of $${limitUsd}`)
    assert.ok(spent > limitUsd - (2 * Number(c)) / 1e12, `spent $${spent}: refused too early`)
    assert.match(outcomes.find((o) => o.status === 402)!.message, /reached its daily spend limit/)
  })

  it('a session’s spend cap: never passed, whichever gateway admitted what', async () => {
    const c = await unit()
    const limitUsd = Number(c * 30n) / 1e12
    const { secret, id } = await keyWith({ policy: { max_session_usd: limitUsd } })
    const outcomes = await burst(secret, { sessionId: 'team-session-usd' })
    const spent = await spentOf(id, served(outcomes).length)
    assert.deepEqual(statuses(outcomes), [200, 400])
    assert.ok(spent <= limitUsd + 1e-12, `session spent $${spent} against a cap of $${limitUsd}`)
    assert.ok(served(outcomes).length >= 25, `only ${served(outcomes).length} served of a cap of 30 answers`)
  })

  it('a soft cap: of 8 requests at once over the three gateways, those admitted under 80 % of the daily limit go to gpt-4o, the rest to gpt-4o-mini', async () => {
    // Each reserves $0.00103 on gpt-4o (12 prompt tokens estimated, 100 out at $2.50/$10 per 1M):
    // 4 fit under 80 % of $0.005; the other 4 reserve $0.0000618 each on gpt-4o-mini.
    const { secret } = await keyWith({ daily_limit_usd: 0.005, policy: { soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 80 } } })
    fake.script(...Array.from({ length: 8 }, () => answer(400)))
    try {
      const served = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const res = await new OpenAI({ baseURL: `${gateways[i % 3].url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions.create({
            model: 'openai/gpt-4o',
            max_tokens: 100,
            messages: [{ role: 'user', content: 'nineteen characters' }],
          })
          return (res as unknown as { gw: { routing: { upstream_model: string } } }).gw.routing.upstream_model
        }),
      )
      assert.deepEqual(served.sort(), ['gpt-4o', 'gpt-4o', 'gpt-4o', 'gpt-4o', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini'])
    } finally {
      fake.clearScript()
    }
  })

  it('the holds of a gateway killed with SIGKILL are released by the others within seconds', async (t) => {
    const c = await unit()
    // Half an answer: the first request is admitted and holds more than is left.
    const { secret, id } = await keyWith({ balanceUsd: Number(c) / 2e12 })
    const [doomed] = await startGatewayProcesses(1, { databaseUrl, env: { OPENAI_API_KEY: fake.apiKey } })
    const chat = (g: GatewayProcess) =>
      new OpenAI({ baseURL: `${g.url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions
        .create({ model: 'gpt-4o-mini', max_tokens: OUTPUT, messages: [{ role: 'user', content: 'held' }] })
        .then(
          () => 200,
          (err: { status?: number }) => err.status ?? 0,
        )
    // A fourth gateway admits a request that reserves the whole balance, held upstream, and is
    // killed with it in flight: its hold stays in the database, its heartbeat stops.
    fake.script(answer(60_000))
    const held = chat(doomed)
    const upstream = () => fake.received.some((r) => JSON.stringify(r.body).includes('"held"'))
    await waitUntil(upstream, { what: 'the request was admitted and sent upstream' })
    assert.equal((await db.query(`SELECT 1 FROM limit_holds WHERE key_id = $1`, [id])).rowCount, 1, 'its hold is in the database')
    await doomed.kill('SIGKILL')
    const killedAt = Date.now()
    assert.equal(await held, 0, 'the request died with its gateway')
    assert.equal(await chat(gateways[0]), 402, 'the balance is still held by the dead gateway’s request')
    // Its holds go once it has been silent 10 s by the database's clock (another gateway's reaper
    // looks every second): a real wait in other processes, asked after every 250 ms.
    let sentAt = 0
    await waitUntil(
      async () => {
        sentAt = Date.now()
        return (await chat(gateways[0])) === 200
      },
      { what: 'the hold was released', timeoutMs: killedAt + 15_000 - Date.now(), intervalMs: 250 },
    )
    t.diagnostic(`released ${sentAt - killedAt} ms after the kill (admitted at the next try after it)`)
  })

  it('a key with no limit costs no call to the database; a limited key one admission a request, and one settlement when it holds money', async (t) => {
    // Counted by the server: calls of the limits' functions, once it tracks them (a reload reaches
    // every open connection; each reports its counts within a second or two of going idle).
    await db.query(`ALTER SYSTEM SET track_functions = 'pl'`)
    await db.query(`SELECT pg_reload_conf()`)
    const calls = async () => {
      await db.query(`SELECT pg_stat_clear_snapshot()`)
      const rows = (
        await db.query<{ funcname: string; calls: number }>(`SELECT funcname, calls FROM pg_stat_user_functions WHERE funcname IN ('gw_admit', 'gw_settle')`)
      ).rows
      const of = (name: string) => rows.find((r) => r.funcname === name)?.calls ?? 0
      return { admit: of('gw_admit'), settle: of('gw_settle') }
    }
    const settled = async (expected: { admit: number; settle: number }) => {
      for (const start = Date.now(); Date.now() - start < 10_000; await new Promise((r) => setTimeout(r, 200))) {
        const now = await calls()
        if (now.admit >= expected.admit && now.settle >= expected.settle) break
      }
      // Long enough for any call not yet reported to be: a call that should not have happened gives
      // no sign but its count, and each connection reports its counts on its own, when idle.
      await new Promise((r) => setTimeout(r, 2500))
      return calls()
    }
    const send = (secret: string, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          new OpenAI({ baseURL: `${gateways[i % 3].url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions.create({
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: `count ${i}` }],
          }),
        ),
      )
    const free = await keyWith({})
    const rated = await keyWith({ policy: { rpm: 10_000 } })
    const prepaid = await keyWith({ balanceUsd: 10 })
    const start = await settled({ admit: 0, settle: 0 })
    await send(free.secret, 30)
    const afterFree = await settled(start)
    assert.deepEqual(afterFree, start, 'a free key calls neither function')
    await send(rated.secret, 30)
    const afterRated = await settled({ admit: start.admit + 30, settle: start.settle })
    assert.deepEqual(afterRated, { admit: start.admit + 30, settle: start.settle }, 'a key with only a rate: one admission a request, nothing to settle')
    await send(prepaid.secret, 30)
    const afterPrepaid = await settled({ admit: afterRated.admit + 30, settle: afterRated.settle + 30 })
    assert.deepEqual(
      afterPrepaid,
      { admit: afterRated.admit + 30, settle: afterRated.settle + 30 },
      'a prepaid key: one admission and one settlement a request',
    )
    t.diagnostic(`calls: ${JSON.stringify({ start, afterFree, afterRated, afterPrepaid })}`)
  })
})
