import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import { KeysRepo } from '../../src/gateway/store/keysRepo'
import type { Sql } from '../../src/gateway/store/sql'
import { bucketStart, groupBy, nearestRank, overview, MAX_BUCKETS, type GroupByInput } from '../../src/gateway/store/queries/analyticsQuery'
import { listRequests, type Scope } from '../../src/gateway/store/queries/requestQuery'
import { InvalidQuery } from '../../src/gateway/store/queries/invalidQuery'
import { analyticsOps } from '../../src/contract/analytics'
import { recordFixture, type RecordSpec } from '../support/recordFixture'
import { describeEachStore, type StoreUnderTest, type TestStore } from '../support/stores'

const T0 = Date.UTC(2025, 2, 10) // a Monday, 00:00 UTC
const MIN = 60_000
const H = 3_600_000
const DAY = 86_400_000
const ALL: Scope = { keyIds: null }
/** After every record: each test's writes have had their TTL. */
const NOW = Date.UTC(2030, 0, 1)

type Spec = RecordSpec

const record = (s: Spec): RequestRecord => recordFixture(s, { model: 'm1', provider: 'p1', upstreamModel: null })

/** A fresh store of this kind holding these records, stored in this order in one batch. */
async function storeOf(under: StoreUnderTest, specs: Spec[]): Promise<TestStore> {
  const store = await under.open()
  await store.writeRecords(specs.map(record))
  return store
}

const overviewOutput = analyticsOps['analytics.overview'].output
const groupOutput = analyticsOps['analytics.groupBy'].output
const approx = (actual: number, wanted: number) => assert.ok(Math.abs(actual - wanted) < 1e-9, `${actual} ≈ ${wanted}`)

describe('nearest-rank percentiles', () => {
  it('take the value at rank ceil(p/100 · n)', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    assert.equal(nearestRank(hundred, 50), 50)
    assert.equal(nearestRank(hundred, 95), 95)
    assert.equal(nearestRank(hundred, 99), 99)
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert.equal(nearestRank(ten, 50), 5) // rank 5
    assert.equal(nearestRank(ten, 95), 10) // rank ceil(9.5) = 10
    assert.equal(nearestRank(ten, 99), 10)
    assert.equal(nearestRank([7, 7, 8, 100], 50), 7) // rank 2
    assert.equal(nearestRank([7, 7, 8, 100], 95), 100) // rank ceil(3.8) = 4
    assert.equal(nearestRank([42], 50), 42)
    assert.equal(nearestRank([42], 99), 42)
    assert.equal(nearestRank([], 50), null)
    // 7 · 100 / 100 must be rank 7 exactly, not 8 through floating error (0.07 · 100 = 7.000000000000001).
    assert.equal(nearestRank(hundred, 7), 7)
  })
})

describeEachStore('analytics.overview', (under) => {
  const store = (specs: Spec[]) => storeOf(under, specs)

  it('computes totals, error rate, exact percentiles and unpriced requests', async () => {
    // 20 latencies 10, 20, … 200 in scrambled order: p50 = rank 10 = 100, p95 = rank 19 = 190, p99 = rank 20 = 200.
    const latencies = [130, 10, 200, 70, 40, 190, 20, 110, 160, 50, 180, 30, 90, 150, 60, 120, 170, 80, 140, 100]
    const specs: Spec[] = latencies.map((latency, i) => ({
      at: T0 + i * MIN,
      latency,
      outcome: i < 3 ? 'error' : i === 3 ? 'aborted' : 'ok',
      tokens: i < 3 ? null : [100, 10],
      cost: i < 3 ? undefined : i < 6 ? null : 0.25,
    }))
    const { sql, close } = await store(specs)
    const out = await overview(sql, { from: T0, to: T0 + H, bucket: 'hour' }, ALL, NOW)
    overviewOutput.parse(out)
    assert.deepEqual(out.totals, {
      requests: 20,
      errors: 3, // aborted is not an error
      error_rate: 3 / 20,
      cost_usd: 14 * 0.25,
      unpriced_requests: 3 + 3, // errors without any cost, and requests without a price: never $0
      prompt_tokens: 17 * 100,
      completion_tokens: 17 * 10,
      p50_ms: 100,
      p95_ms: 190,
      p99_ms: 200,
    })
    assert.equal(out.series.length, 1)
    assert.deepEqual(out.series[0], { t: T0, requests: 20, errors: 3, cost_usd: 3.5, prompt_tokens: 1700, completion_tokens: 170, p50_ms: 100, p95_ms: 190 })
    await close()
  })

  it('does not count a request refused before any provider was chosen as unpriced: it was sent nowhere', async () => {
    const { sql, close } = await store([
      { at: T0, outcome: 'error', provider: null, tokens: null },
      { at: T0 + MIN, outcome: 'error', tokens: null },
    ])
    const out = await overview(sql, { from: T0, to: T0 + H, bucket: 'hour' }, ALL, NOW)
    assert.equal(out.totals.requests, 2)
    assert.equal(out.totals.unpriced_requests, 1, 'only the one a provider saw: its cost is unknown')
    await close()
  })

  it('leaves free token counts out (they are in the request list, not in inference totals, percentiles or groups)', async () => {
    const counts: Spec[] = [1, 2, 3].map((i) => ({ at: T0 + i * MIN, endpoint: 'messages.count_tokens', latency: 1, cost: 0, tokens: null }))
    const { sql, close } = await store([{ at: T0, latency: 300, cost: 0.5 }, { at: T0 + 5 * MIN, latency: 500, cost: 0.25 }, ...counts])
    const out = await overview(sql, { from: T0, to: T0 + H, bucket: 'hour' }, ALL, NOW)
    assert.equal(out.totals.requests, 2)
    assert.equal(out.totals.cost_usd, 0.75)
    assert.equal(out.totals.p50_ms, 300)
    assert.equal(out.series[0].requests, 2)
    assert.deepEqual(
      (await groupBy(sql, { from: T0, to: T0 + H, by: 'model' }, ALL)).map((g) => [g.value, g.requests]),
      [['m1', 2]],
    )
    assert.equal((await listRequests(sql, { filter: {} }, ALL)).total, 5)
    await close()
  })

  it('answers an empty range with zeros and null percentiles', async () => {
    const { sql, close } = await store([])
    const out = await overview(sql, { from: T0, to: T0 + 2 * H }, ALL, NOW)
    assert.deepEqual(out.totals, {
      requests: 0,
      errors: 0,
      error_rate: 0,
      cost_usd: 0,
      unpriced_requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      p50_ms: null,
      p95_ms: null,
      p99_ms: null,
    })
    assert.deepEqual(
      out.series.map((p) => p.t),
      [T0, T0 + H],
    )
    await close()
  })

  it('aligns hourly buckets to UTC hour starts, includes empty ones, keeps [from, to)', async () => {
    const from = T0 + 30 * MIN
    const to = T0 + 5 * H + 10 * MIN
    const { sql, close } = await store([
      { at: T0 + 10 * MIN, latency: 1 }, // before from, in the first bucket: excluded
      { at: from, latency: 5 }, // exactly from: included
      { at: T0 + 40 * MIN, latency: 7 },
      { at: T0 + 4 * H - 1, latency: 9, cost: 0.5 }, // last ms of the 03:00 bucket
      { at: T0 + 5 * H + 5 * MIN, latency: 11, outcome: 'error' },
      { at: to, latency: 13 }, // exactly to: excluded
    ])
    const out = await overview(sql, { from, to, bucket: 'hour' }, ALL, NOW)
    assert.deepEqual(
      out.series.map((p) => [p.t, p.requests, p.errors, p.p50_ms, p.p95_ms]),
      [
        [T0, 2, 0, 5, 7],
        [T0 + H, 0, 0, null, null],
        [T0 + 2 * H, 0, 0, null, null],
        [T0 + 3 * H, 1, 0, 9, 9],
        [T0 + 4 * H, 0, 0, null, null],
        [T0 + 5 * H, 1, 1, 11, 11],
      ],
    )
    assert.equal(out.series[3].cost_usd, 0.5)
    assert.equal(out.series[1].cost_usd, 0)
    assert.equal(out.totals.requests, 4)
    assert.equal(out.totals.p50_ms, 7) // 5, 7, 9, 11: rank 2
    // A `to` on a bucket boundary does not open an empty bucket after it.
    assert.equal((await overview(sql, { from: T0, to: T0 + 2 * H }, ALL, NOW)).series.length, 2)
    await close()
  })

  it('keeps 0 ms and multi-hour latencies in their own bucket', async () => {
    const { sql, close } = await store([
      { at: T0 + 59 * MIN, latency: 5 * H }, // a 5-hour request in the first bucket
      { at: T0 + 59 * MIN, latency: 0 },
      { at: T0 + H, latency: 0 },
      { at: T0 + 3 * H + 1, latency: 2 ** 31 + 5 }, // longer than the packing allows: clamped, bucket intact
    ])
    const out = await overview(sql, { from: T0, to: T0 + 4 * H }, ALL, NOW)
    assert.deepEqual(
      out.series.map((p) => [p.requests, p.p50_ms, p.p95_ms]),
      [
        [2, 0, 5 * H],
        [1, 0, 0],
        [0, null, null],
        [1, 2 ** 31 - 1, 2 ** 31 - 1],
      ],
    )
    assert.deepEqual([out.totals.p50_ms, out.totals.p99_ms], [0, 2 ** 31 - 1])
    await close()
  })

  it('aligns daily buckets to UTC midnight', async () => {
    const { sql, close } = await store([
      { at: T0 - 1, latency: 1 }, // 23:59:59.999 the day before
      { at: T0 + 23 * H, latency: 2 },
      { at: T0 + DAY, latency: 3 },
      { at: T0 + 3 * DAY + 12 * H, latency: 4 },
    ])
    const out = await overview(sql, { from: T0 - 6 * H, to: T0 + 3 * DAY + 13 * H, bucket: 'day' }, ALL, NOW)
    assert.deepEqual(
      out.series.map((p) => [p.t, p.requests]),
      [
        [T0 - DAY, 1],
        [T0, 1],
        [T0 + DAY, 1],
        [T0 + 2 * DAY, 0],
        [T0 + 3 * DAY, 1],
      ],
    )
    for (const p of out.series) assert.equal(new Date(p.t).toISOString().slice(10), 'T00:00:00.000Z')
    assert.equal(bucketStart(T0 + 5 * H + 1, H), T0 + 5 * H)
    assert.equal(bucketStart(T0 + DAY - 1, DAY), T0)
    await close()
  })

  it('applies the filter inside the range and the member scope', async () => {
    const { sql, close } = await store([
      { at: T0 + MIN, key: 'key_a', model: 'm1', latency: 10, tags: ['prod'] },
      { at: T0 + 2 * MIN, key: 'key_b', model: 'm1', latency: 20, tags: ['prod'] },
      { at: T0 + 3 * MIN, key: 'key_b', model: 'm2', latency: 30, dims: { team: 'ml' } },
      { at: T0 + 2 * H, key: 'key_a', model: 'm2', latency: 40, dims: { team: 'ml' } },
    ])
    const range = { from: T0, to: T0 + 3 * H }
    assert.equal((await overview(sql, { ...range, filter: { model: 'm1' } }, ALL, NOW)).totals.requests, 2)
    assert.equal((await overview(sql, { ...range, filter: { tag: 'prod' } }, ALL, NOW)).totals.p95_ms, 20)
    assert.equal((await overview(sql, { ...range, filter: { dimensions: { team: 'ml' } } }, ALL, NOW)).totals.requests, 2)
    // The filter's own from/to narrow the range; they never widen it.
    assert.equal((await overview(sql, { ...range, filter: { from: T0 + H } }, ALL, NOW)).totals.requests, 1)
    assert.equal((await overview(sql, { from: T0, to: T0 + H, filter: { to: T0 + 5 * H } }, ALL, NOW)).totals.requests, 3)
    const member = await overview(sql, range, { keyIds: ['key_a'] }, NOW)
    assert.equal(member.totals.requests, 2)
    assert.equal(member.totals.p50_ms, 10)
    assert.equal((await overview(sql, range, { keyIds: [] }, NOW)).totals.requests, 0)
    await close()
  })

  it('refuses a series with too many buckets', async () => {
    const { sql, close } = await store([])
    // Valid by the contract but too large: refused as invalid input (400), not as an internal error.
    await assert.rejects(
      overview(sql, { from: 0, to: (MAX_BUCKETS + 1) * H, bucket: 'hour' }, ALL, NOW),
      (err: unknown) => err instanceof InvalidQuery && err.field === 'bucket' && /^bucket: .*10001 hour buckets/.test(err.message),
    )
    assert.equal((await overview(sql, { from: 0, to: MAX_BUCKETS * H, bucket: 'hour' }, ALL, NOW)).series.length, MAX_BUCKETS)
    await close()
  })
})

describeEachStore('analytics.groupBy', (under) => {
  const store = (specs: Spec[]) => storeOf(under, specs)

  const specs: Spec[] = [
    {
      at: T0 + 1 * MIN,
      key: 'key_a',
      model: 'm1',
      provider: 'p1',
      user: 'u1',
      session: 's1',
      trace: 't1',
      preset: 'summ',
      tags: ['prod', 'chat'],
      dims: { team: 'core' },
      cost: 0.1,
      tokens: [100, 10],
    },
    {
      at: T0 + 2 * MIN,
      key: 'key_a',
      model: 'm1',
      provider: 'p1',
      user: 'u1',
      session: 's1',
      trace: 't1',
      tags: ['prod'],
      dims: { team: 'core' },
      cost: null,
      tokens: [50, 5],
    },
    {
      at: T0 + 3 * MIN,
      key: 'key_a',
      model: 'm2',
      provider: 'p2',
      user: 'u2',
      session: 's2',
      tags: ['batch'],
      dims: { team: 'ml' },
      outcome: 'error',
      tokens: null,
    },
    { at: T0 + 4 * MIN, key: 'key_b', model: 'm2', provider: 'p2', user: null, preset: 'summ', tags: [], dims: {}, cost: 0.3, tokens: [1, 1] },
    { at: T0 + 5 * MIN, key: 'key_b', model: 'm3', provider: 'p1', user: 'u2', tags: ['prod'], dims: { team: 'ml' }, cost: 0.05, tokens: [2, 2] },
    { at: T0 + 6 * MIN, key: null, model: null, provider: null, outcome: 'error', tokens: null },
    { at: T0 + 2 * DAY, key: 'key_a', model: 'm9', tags: ['prod'], cost: 9 }, // outside the range
  ]
  const range = { from: T0, to: T0 + DAY }
  const rows = async (sql: Sql, input: Omit<GroupByInput, 'from' | 'to'>, scope: Scope = ALL) => {
    const out = await groupBy(sql, { ...range, ...input }, scope)
    groupOutput.parse(out)
    return out.map(({ value, requests, cost_usd, tokens, errors }) => [value, requests, Math.round(cost_usd * 1e9) / 1e9, tokens, errors])
  }

  it('groups by the model that answered, as provider/model, apart from the model asked for', async () => {
    const { sql, close } = await store([
      { at: T0 + 1 * MIN, model: 'fast', provider: 'p1', upstream: 'small-1', cost: 0.01, tokens: [10, 1] },
      { at: T0 + 2 * MIN, model: 'fast', provider: 'p1', upstream: 'small-1', cost: 0.01, tokens: [10, 1] },
      // A fallback: asked for the same alias, answered by another provider's model.
      { at: T0 + 3 * MIN, model: 'fast', provider: 'p2', upstream: 'small-1', cost: 0.02, tokens: [10, 1] },
      // Refused before any provider: nothing served it.
      { at: T0 + 4 * MIN, model: 'fast', provider: null, upstream: null, outcome: 'error', tokens: null },
    ])
    assert.deepEqual(await rows(sql, { by: 'model' }), [['fast', 4, 0.04, 33, 1]])
    assert.deepEqual(await rows(sql, { by: 'served_model' }), [
      ['p1/small-1', 2, 0.02, 22, 0],
      ['p2/small-1', 1, 0.02, 11, 0],
      [null, 1, 0, 0, 1],
    ])
    await close()
  })

  it('groups by the gateway that served each request, records from before gateways were named in the null group', async () => {
    const { sql, close } = await store([
      { at: T0 + 1 * MIN, instance: 'gw-a', cost: 0.01, tokens: [10, 1] },
      { at: T0 + 2 * MIN, instance: 'gw-b', cost: 0.02, tokens: [10, 1] },
      { at: T0 + 3 * MIN, instance: 'gw-a', outcome: 'error', tokens: null },
      { at: T0 + 4 * MIN, instance: null, cost: 0.03, tokens: [1, 1] },
    ])
    assert.deepEqual(await rows(sql, { by: 'instance' }), [
      ['gw-a', 2, 0.01, 11, 1],
      [null, 1, 0.03, 2, 0],
      ['gw-b', 1, 0.02, 11, 0],
    ])
    assert.deepEqual(await rows(sql, { by: 'instance', filter: { instance: 'gw-b' } }), [['gw-b', 1, 0.02, 11, 0]])
    await close()
  })

  it('groups by model, provider, user, preset, session and trace, with a null group, largest first', async () => {
    const { sql, close } = await store(specs)
    // Equal request counts: the costlier group first.
    assert.deepEqual(await rows(sql, { by: 'model' }), [
      ['m2', 2, 0.3, 2, 1],
      ['m1', 2, 0.1, 165, 0],
      ['m3', 1, 0.05, 4, 0],
      [null, 1, 0, 0, 1],
    ])
    assert.deepEqual(await rows(sql, { by: 'provider' }), [
      ['p1', 3, 0.15, 169, 0],
      ['p2', 2, 0.3, 2, 1],
      [null, 1, 0, 0, 1],
    ])
    assert.deepEqual(await rows(sql, { by: 'user' }), [
      [null, 2, 0.3, 2, 1],
      ['u1', 2, 0.1, 165, 0],
      ['u2', 2, 0.05, 4, 1],
    ])
    assert.deepEqual(await rows(sql, { by: 'preset' }), [
      [null, 4, 0.05, 59, 2],
      ['summ', 2, 0.4, 112, 0],
    ])
    assert.deepEqual(await rows(sql, { by: 'session' }), [
      [null, 3, 0.35, 6, 1],
      ['s1', 2, 0.1, 165, 0],
      ['s2', 1, 0, 0, 1],
    ])
    assert.deepEqual(await rows(sql, { by: 'trace' }), [
      [null, 4, 0.35, 6, 2],
      ['t1', 2, 0.1, 165, 0],
    ])
    assert.deepEqual(
      (await rows(sql, { by: 'model', limit: 2 })).map((r) => r[0]),
      ['m2', 'm1'],
    )
    await close()
  })

  it('groups by key with the key name joined from keys', async () => {
    const { sql, writeRecords, close } = await store([])
    const keys = new KeysRepo(sql)
    const a = (await keys.create('Team A')).info.id
    const b = (await keys.create('Team B')).info.id
    await writeRecords(specs.map((s) => record({ ...s, key: s.key === 'key_a' ? a : s.key === 'key_b' ? b : s.key })))
    const out = await groupBy(sql, { ...range, by: 'key' }, ALL)
    assert.deepEqual(
      out.map((g) => [g.value, g.name, g.requests, g.errors]),
      [
        [a, 'Team A', 3, 1],
        [b, 'Team B', 2, 0],
        [null, null, 1, 1],
      ],
    )
    // The contract's group has no `name`: parsing the answer keeps value = key id and drops nothing else.
    assert.deepEqual(groupOutput.parse(out)[0], { value: a, requests: 3, cost_usd: 0.1, unpriced: 2, tokens: 165, errors: 1 })
    assert.deepEqual(
      (await groupBy(sql, { ...range, by: 'key' }, { keyIds: [b] })).map((g) => g.value),
      [b],
    )
    await close()
  })

  it('groups by tag, counting a request once under each of its tags, and by a dimension', async () => {
    const { sql, close } = await store(specs)
    assert.deepEqual(await rows(sql, { by: 'tag' }), [
      ['prod', 3, 0.15, 169, 0],
      ['chat', 1, 0.1, 110, 0],
      ['batch', 1, 0, 0, 1],
    ])
    assert.deepEqual(await rows(sql, { by: 'dimension:team' }), [
      ['core', 2, 0.1, 165, 0],
      ['ml', 2, 0.05, 4, 1],
    ])
    assert.deepEqual(await rows(sql, { by: 'dimension:nobody' }), [])
    // Grouping composes with filters, including tag and dimension filters.
    assert.deepEqual(await rows(sql, { by: 'tag', filter: { dimensions: { team: 'core' } } }), [
      ['prod', 2, 0.1, 165, 0],
      ['chat', 1, 0.1, 110, 0],
    ])
    assert.deepEqual(await rows(sql, { by: 'dimension:team', filter: { tag: 'prod' } }), [
      ['core', 2, 0.1, 165, 0],
      ['ml', 1, 0.05, 4, 0],
    ])
    await close()
  })

  it('keeps members to their own keys', async () => {
    const { sql, close } = await store(specs)
    assert.deepEqual(await rows(sql, { by: 'model' }, { keyIds: ['key_b'] }), [
      ['m2', 1, 0.3, 2, 0],
      ['m3', 1, 0.05, 4, 0],
    ])
    assert.deepEqual(await rows(sql, { by: 'tag' }, { keyIds: ['key_b'] }), [['prod', 1, 0.05, 4, 0]])
    assert.deepEqual(await rows(sql, { by: 'model' }, { keyIds: [] }), [])
    await close()
  })

  it('never counts an unpriced request as $0 of cost: it only adds to unpriced_requests', async () => {
    const { sql, close } = await store([
      { at: T0, model: 'local', cost: null, tokens: [1000, 1000] },
      { at: T0 + 1, model: 'local', cost: null, tokens: [1000, 1000] },
      { at: T0 + 2, model: 'paid', cost: 0.02 },
    ])
    assert.deepEqual(await rows(sql, { by: 'model' }), [
      ['local', 2, 0, 4000, 0],
      ['paid', 1, 0.02, 15, 0],
    ])
    const totals = (await overview(sql, range, ALL, NOW)).totals
    approx(totals.cost_usd, 0.02)
    assert.equal(totals.unpriced_requests, 2)
    await close()
  })

  it('refuses an unknown grouping', async () => {
    const { sql, close } = await store([])
    await assert.rejects(groupBy(sql, { ...range, by: 'detail' }, ALL), /cannot group by detail/)
    await assert.rejects(groupBy(sql, { ...range, by: "dimension:x') OR 1=1 --" }, ALL), /invalid dimension name/)
    await close()
  })
})
