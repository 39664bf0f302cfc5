import { before, it } from 'node:test'
import assert from 'node:assert/strict'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import type { Sql } from '../../src/gateway/store/sql'
import {
  choosePlan,
  defaultPlan,
  exportRequests,
  filterSql,
  listRequests,
  type FilterPlan,
  type ListRequestsInput,
  type Scope,
} from '../../src/gateway/store/queries/requestQuery'
import { requestOps, type RequestFilter } from '../../src/contract/requests'
import { recordFixture, type RecordSpec } from '../support/recordFixture'
import { describeEachStore, type StoreUnderTest, type TestStore } from '../support/stores'
import { requestsCsv } from '../../src/gateway/admin/queries/requestsCsv'

const T0 = Date.UTC(2025, 0, 1)
const H = 3_600_000
const ALL: Scope = { keyIds: null }

type Spec = RecordSpec & { id: string }

const record = (s: Spec): RequestRecord => recordFixture(s, { model: 'openai/gpt-4o', provider: 'openai', upstreamModel: 'gpt-4o' })

/** A fresh store of this kind holding these records, inserted in this order in one batch. */
async function storeOf(under: StoreUnderTest, specs: Spec[]): Promise<TestStore> {
  const store = await under.open()
  await store.writeRecords(specs.map(record))
  return store
}

// Inserted in this order (rowid order); `at` is deliberately not monotonic for r08/r09 (same ms).
const SPECS: Spec[] = [
  {
    id: 'r01',
    at: T0 + 1 * H,
    key: 'key_a',
    model: 'm1',
    provider: 'p1',
    status: 200,
    user: 'u1',
    trace: 'tr1',
    session: 's1',
    tags: ['prod', 'chat'],
    dims: { team: 'core', env: 'prod' },
    cost: 0.01,
    tokens: [100, 20],
    latency: 300,
    instance: 'gw-a',
  },
  {
    id: 'r02',
    at: T0 + 2 * H,
    key: 'key_a',
    model: 'm2',
    provider: 'p2',
    status: 429,
    outcome: 'error',
    user: 'u2',
    tags: ['batch'],
    dims: { team: 'ml' },
    tokens: null,
    latency: 20,
  },
  {
    id: 'r03',
    at: T0 + 3 * H,
    key: 'key_b',
    model: 'm1',
    provider: 'p1',
    status: 500,
    outcome: 'error',
    preset: 'summarizer',
    session: 's1',
    tokens: null,
    latency: 900,
  },
  {
    id: 'r04',
    at: T0 + 24 * H,
    key: 'key_b',
    model: 'm2',
    provider: 'p2',
    status: 200,
    source: 'playground',
    tags: ['prod'],
    dims: { team: 'ml', env: 'staging' },
    cost: null,
    tokens: [500, 500],
    latency: 1500,
    user: 'u1',
    instance: 'gw-b',
  },
  {
    id: 'r05',
    at: T0 + 48 * H,
    key: 'key_c',
    model: 'm1',
    provider: 'p3',
    status: 499,
    outcome: 'aborted',
    cost: 0.02,
    tokens: [50, 1],
    latency: 50,
    trace: 'tr1',
  },
  { id: 'r06', at: T0 + 48 * H + 1, key: null, model: null, provider: null, status: 401, outcome: 'error', tokens: null, latency: 1 },
  {
    id: 'r07',
    at: T0 + 49 * H,
    key: 'key_a',
    model: 'm1',
    provider: 'p1',
    status: 201,
    tags: ['chat'],
    dims: { env: 'prod' },
    cost: 0.5,
    tokens: [1000, 2000],
    latency: 700,
    preset: 'summarizer',
    instance: 'gw-a',
  },
  {
    id: 'r08',
    at: T0 + 50 * H,
    key: 'key_c',
    model: 'm3',
    provider: 'p3',
    status: 200,
    tags: ['prod', 'eval'],
    dims: { team: 'core', "we'ird": "va'l" },
    cost: 0.01,
    tokens: [5, 5],
    latency: 300,
  },
  { id: 'r09', at: T0 + 50 * H, key: 'key_a', model: 'm3', provider: 'p3', status: 200, tags: ['eval'], cost: 0.003, tokens: [1, 1], latency: 300, user: 'u3' },
  {
    id: 'r10',
    at: T0 + 72 * H,
    key: 'key_b',
    model: 'm1',
    provider: 'p1',
    status: 503,
    outcome: 'error',
    tags: ['prod'],
    dims: { env: 'prod' },
    tokens: null,
    latency: 30000,
  },
]

/** An independent reference for which specs a filter and scope select. */
function expected(filter: RequestFilter, scope: Scope = ALL): string[] {
  return SPECS.filter((s) => {
    const r = record(s)
    if (scope.keyIds && !(r.key_id !== null && scope.keyIds.includes(r.key_id))) return false
    const at = Date.parse(r.created_at)
    if (filter.from !== undefined && at < filter.from) return false
    if (filter.to !== undefined && at >= filter.to) return false
    if (filter.key_id !== undefined && r.key_id !== filter.key_id) return false
    if (filter.model !== undefined && r.model !== filter.model) return false
    if (filter.preset !== undefined && r.preset !== filter.preset) return false
    if (filter.provider !== undefined && r.provider !== filter.provider) return false
    if (filter.outcome !== undefined && r.outcome !== filter.outcome) return false
    if (filter.source !== undefined && r.source !== filter.source) return false
    if (filter.user_id !== undefined && r.attribution.user_id !== filter.user_id) return false
    if (filter.trace_id !== undefined && r.attribution.trace_id !== filter.trace_id) return false
    if (filter.session_id !== undefined && r.attribution.session_id !== filter.session_id) return false
    if (filter.instance !== undefined && r.instance !== filter.instance) return false
    if (typeof filter.status === 'number' && r.status !== filter.status) return false
    if (typeof filter.status === 'string' && String(r.status)[0] !== filter.status[0]) return false
    if (filter.tag !== undefined && !r.attribution.tags.includes(filter.tag)) return false
    for (const [k, v] of Object.entries(filter.dimensions ?? {})) if (r.dimensions[k] !== v) return false
    return true
  })
    .map((s) => s.id)
    .sort()
}

const ids = (items: Array<{ id: string }>) => items.map((i) => i.id)
const list = (sql: Sql, input: ListRequestsInput, scope: Scope = ALL) => listRequests(sql, input, scope)
const outputSchema = requestOps['requests.list'].output

describeEachStore('requests.list query', (under) => {
  const store = (specs: Spec[]) => storeOf(under, specs)
  let sql: Sql
  before(async () => {
    sql = (await store(SPECS)).sql
  })

  it('lists every request newest first, ties by insertion order, rows from columns matching the contract', async () => {
    const out = await list(sql, {})
    assert.equal(out.total, 10)
    assert.deepEqual(ids(out.items), ['r10', 'r09', 'r08', 'r07', 'r06', 'r05', 'r04', 'r03', 'r02', 'r01'])
    outputSchema.parse(out)
    const r01 = out.items.find((i) => i.id === 'r01')!
    assert.deepEqual(r01, {
      id: 'r01',
      created_at: T0 + H,
      endpoint: 'chat.completions',
      status: 200,
      outcome: 'ok',
      key_id: 'key_a',
      model: 'm1',
      preset: null,
      provider: 'p1',
      upstream_model: 'gpt-4o',
      user_id: 'u1',
      prompt_tokens: 100,
      completion_tokens: 20,
      cost_usd: 0.01,
      priced: true,
      latency_ms: 300,
      source: 'api',
      source_tool: null,
      instance: 'gw-a',
      soft_cap: null,
      cache_hit_of: null,
      cache_saved_usd: null,
    })
    const r04 = out.items.find((i) => i.id === 'r04')!
    assert.equal(r04.cost_usd, null)
    assert.equal(r04.priced, false)
    assert.equal(r04.source, 'playground')
  })

  const single: Array<[string, RequestFilter]> = [
    ['from', { from: T0 + 24 * H }],
    ['to (exclusive)', { to: T0 + 24 * H }],
    ['from and to', { from: T0 + 2 * H, to: T0 + 48 * H + 1 }],
    ['key_id', { key_id: 'key_b' }],
    ['model', { model: 'm1' }],
    ['preset', { preset: 'summarizer' }],
    ['provider', { provider: 'p3' }],
    ['status exact', { status: 429 }],
    ['status 2xx', { status: '2xx' }],
    ['status 4xx', { status: '4xx' }],
    ['status 5xx', { status: '5xx' }],
    ['outcome error', { outcome: 'error' }],
    ['outcome aborted', { outcome: 'aborted' }],
    ['user_id', { user_id: 'u1' }],
    ['trace_id', { trace_id: 'tr1' }],
    ['session_id', { session_id: 's1' }],
    ['tag', { tag: 'prod' }],
    ['tag nobody has', { tag: 'nope' }],
    ['dimension', { dimensions: { team: 'ml' } }],
    ['two dimensions', { dimensions: { team: 'core', env: 'prod' } }],
    ['dimension with quotes in name and value', { dimensions: { "we'ird": "va'l" } }],
    ['source', { source: 'playground' }],
    ['instance', { instance: 'gw-a' }],
  ]
  for (const [name, filter] of single) {
    it(`filters by ${name}`, async () => {
      const out = await list(sql, { filter })
      assert.deepEqual([...ids(out.items)].sort(), expected(filter))
      assert.equal(out.total, expected(filter).length)
    })
  }

  it('includes both ends of a status class and nothing beside it', async () => {
    const statuses = [199, 200, 299, 300, 399, 400, 499, 500, 599, 600]
    const edge = await store(statuses.map((status, i) => ({ id: `s${status}`, at: T0 + i, status })))
    const of = async (status: '2xx' | '4xx' | '5xx') => [...ids((await list(edge.sql, { filter: { status } })).items)].sort()
    assert.deepEqual(await of('2xx'), ['s200', 's299'])
    assert.deepEqual(await of('4xx'), ['s400', 's499'])
    assert.deepEqual(await of('5xx'), ['s500', 's599'])
    await edge.close()
  })

  it('filters by status class and exact status', async () => {
    assert.deepEqual([...ids((await list(sql, { filter: { status: '2xx' } })).items)].sort(), ['r01', 'r04', 'r07', 'r08', 'r09'])
    assert.deepEqual([...ids((await list(sql, { filter: { status: '4xx' } })).items)].sort(), ['r02', 'r05', 'r06'])
    assert.deepEqual([...ids((await list(sql, { filter: { status: '5xx' } })).items)].sort(), ['r03', 'r10'])
    assert.deepEqual(ids((await list(sql, { filter: { status: 200 } })).items), ['r09', 'r08', 'r04', 'r01'])
  })

  const combined: Array<[string, RequestFilter]> = [
    ['key and model', { key_id: 'key_a', model: 'm1' }],
    ['tag and dimension', { tag: 'prod', dimensions: { env: 'prod' } }],
    ['tag, status class and time', { tag: 'prod', status: '2xx', from: T0 + 2 * H }],
    ['provider, outcome and source', { provider: 'p2', outcome: 'ok', source: 'playground' }],
    ['user and tag', { user_id: 'u1', tag: 'prod' }],
    [
      'everything matching r01',
      {
        from: T0,
        to: T0 + 2 * H,
        key_id: 'key_a',
        model: 'm1',
        provider: 'p1',
        status: '2xx',
        outcome: 'ok',
        user_id: 'u1',
        trace_id: 'tr1',
        session_id: 's1',
        tag: 'chat',
        dimensions: { team: 'core', env: 'prod' },
        source: 'api',
        instance: 'gw-a',
      },
    ],
    ['contradiction', { key_id: 'key_a', model: 'm2', status: '5xx' }],
  ]
  for (const [name, filter] of combined) {
    it(`combines filters: ${name}`, async () => {
      const out = await list(sql, { filter })
      assert.deepEqual([...ids(out.items)].sort(), expected(filter))
      assert.equal(out.total, expected(filter).length)
    })
  }

  it('every plan selects exactly the same rows for every filter', async () => {
    for (const [, filter] of [...single, ...combined]) {
      const plans: FilterPlan[] = [{ drive: 'columns' }, { drive: 'order' }, { drive: 'child', child: 'tag' }]
      for (const name of Object.keys(filter.dimensions ?? {})) plans.push({ drive: 'child', child: `dimension:${name}` })
      for (const scope of [ALL, { keyIds: ['key_a', 'key_c'] }]) {
        plans.push(defaultPlan(filter, scope), await choosePlan(sql, filter, scope))
        for (const plan of plans) {
          const w = filterSql(sql.dialect, filter, scope, plan)
          const rows = await sql.all<{ id: string }>(`SELECT r.id FROM requests r WHERE ${w.sql} ORDER BY r.id`, w.params)
          assert.deepEqual(ids(rows), expected(filter, scope), `${JSON.stringify(filter)} ${JSON.stringify(plan)}`)
        }
      }
    }
  })

  // Which plan is chosen matters to SQLite's planner only (see FilterPlan); the rows each plan selects are checked on both stores above.
  const planner = under.name === 'sqlite' ? false : "the plan choice is tuned to SQLite's planner"
  it('starts from a tag or dimension only when it is rarer than what the indexed columns narrow to', { skip: planner }, async () => {
    assert.deepEqual(defaultPlan({ tag: 'prod' }, ALL), { drive: 'child', child: 'tag' })
    assert.deepEqual(defaultPlan({ tag: 'prod', model: 'm1' }, ALL), { drive: 'columns' })
    assert.deepEqual(defaultPlan({ model: 'm1' }, ALL), { drive: 'columns' })
    assert.deepEqual(await choosePlan(sql, { model: 'm1' }, ALL), { drive: 'columns' })
    // 'eval' (2 requests) is rarer than the 'prod' tag (4) and than model m1 (5) …
    assert.deepEqual(await choosePlan(sql, { tag: 'eval' }, ALL), { drive: 'child', child: 'tag' })
    assert.deepEqual(await choosePlan(sql, { tag: 'prod', dimensions: { team: 'core' } }, ALL), { drive: 'child', child: 'dimension:team' })
    assert.deepEqual(await choosePlan(sql, { tag: 'prod', model: 'm1' }, ALL), { drive: 'child', child: 'tag' })
    // … but not than user u3 (1), status 429 (1), or a member's key_c (2).
    assert.deepEqual(await choosePlan(sql, { tag: 'eval', user_id: 'u3' }, ALL), { drive: 'columns' })
    assert.deepEqual(await choosePlan(sql, { tag: 'prod', status: 429 }, ALL), { drive: 'columns' })
    // Both sides are counted within the time range: key_b has 3 requests to prod's 4, but from
    // T0 + 2 h they have 3 each, and a tie goes to the tag.
    assert.deepEqual(await choosePlan(sql, { tag: 'prod', key_id: 'key_b' }, ALL), { drive: 'columns' })
    assert.deepEqual(await choosePlan(sql, { tag: 'prod', key_id: 'key_b', from: T0 + 2 * H }, ALL), { drive: 'child', child: 'tag' })
    assert.deepEqual(await choosePlan(sql, { tag: 'prod' }, { keyIds: ['key_c'] }), { drive: 'columns' })
  })

  it('binds every value as a parameter', async () => {
    const w = filterSql(
      sql.dialect,
      { model: "x' OR 1=1 --", tag: "'; DROP TABLE requests; --", dimensions: { "a'": "b'" }, from: 5 },
      { keyIds: ["k'"] },
      { drive: 'child', child: 'tag' },
    )
    assert.doesNotMatch(w.sql, /OR 1=1|DROP|'/)
    assert.deepEqual(w.params, ["k'", 5, "x' OR 1=1 --", "'; DROP TABLE requests; --", 5, "a'", "b'"])
    assert.equal((await list(sql, { filter: { model: "x' OR 1=1 --" } })).total, 0)
    assert.equal((await list(sql, { filter: { tag: "'; DROP TABLE requests; --" } })).total, 0)
    assert.equal((await list(sql, {})).total, 10)
  })

  it('shows a member only the requests of their own keys', async () => {
    const member: Scope = { keyIds: ['key_a'] }
    const out = await list(sql, {}, member)
    assert.deepEqual(ids(out.items), ['r09', 'r07', 'r02', 'r01'])
    assert.equal(out.total, 4)
    assert.ok(out.items.every((i) => i.key_id === 'key_a'))
    // Filters cannot widen the scope: another key's id, or a tag only others' requests carry.
    assert.deepEqual(await list(sql, { filter: { key_id: 'key_b' } }, member), { items: [], total: 0 })
    assert.deepEqual(ids((await list(sql, { filter: { tag: 'prod' } }, member)).items), ['r01'])
    // Several keys; requests without a key (r06) are never visible to a member.
    const two = await list(sql, {}, { keyIds: ['key_a', 'key_c'] })
    assert.deepEqual([...ids(two.items)].sort(), expected({}, { keyIds: ['key_a', 'key_c'] }))
    assert.equal(two.total, 6)
    assert.deepEqual(await list(sql, {}, { keyIds: [] }), { items: [], total: 0 })
    assert.deepEqual(await list(sql, { filter: { status: 401 } }, { keyIds: ['key_a', 'key_b', 'key_c'] }), { items: [], total: 0 })
  })

  it('sorts by each whitelisted column in both orders, NULL costs last when descending', async () => {
    assert.deepEqual(ids((await list(sql, { sort: 'created_at', order: 'asc' })).items), ['r01', 'r02', 'r03', 'r04', 'r05', 'r06', 'r07', 'r08', 'r09', 'r10'])
    // Equal latencies (r01, r08, r09 at 300 ms) keep insertion order in the direction of the sort.
    assert.deepEqual(ids((await list(sql, { sort: 'latency_ms', order: 'desc' })).items), [
      'r10',
      'r04',
      'r03',
      'r07',
      'r09',
      'r08',
      'r01',
      'r05',
      'r02',
      'r06',
    ])
    assert.deepEqual(ids((await list(sql, { sort: 'latency_ms', order: 'asc' })).items), ['r06', 'r02', 'r05', 'r01', 'r08', 'r09', 'r07', 'r03', 'r04', 'r10'])
    const byCost = (await list(sql, { sort: 'cost_usd', order: 'desc' })).items
    assert.deepEqual(ids(byCost).slice(0, 5), ['r07', 'r05', 'r08', 'r01', 'r09'])
    assert.ok(byCost.slice(5).every((i) => i.cost_usd === null))
    assert.deepEqual(ids((await list(sql, { sort: 'cost_usd', order: 'asc' })).items).slice(5), ['r09', 'r01', 'r08', 'r05', 'r07'])
    assert.deepEqual(ids((await list(sql, { sort: 'total_tokens', order: 'desc' })).items).slice(0, 4), ['r07', 'r04', 'r01', 'r05'])
    assert.deepEqual(ids((await list(sql, { sort: 'status', order: 'asc' })).items), ['r01', 'r04', 'r08', 'r09', 'r07', 'r06', 'r02', 'r05', 'r03', 'r10'])
  })

  it('refuses a sort column or order outside the whitelist', async () => {
    await assert.rejects(list(sql, { sort: 'detail' as never }), /cannot sort by detail/)
    await assert.rejects(list(sql, { sort: 'created_at; DROP TABLE requests' as never }), /cannot sort/)
    await assert.rejects(list(sql, { order: 'sideways' as never }), /unknown order/)
    await assert.rejects(list(sql, { limit: 0 }), /limit/)
    await assert.rejects(list(sql, { offset: -1 }), /offset/)
  })

  it('paginates with a stable order and the same total on every page', async () => {
    for (const input of [{}, { sort: 'latency_ms' as const }, { sort: 'cost_usd' as const, order: 'asc' as const }, { filter: { tag: 'prod' } }]) {
      const all = ids((await list(sql, input)).items)
      const seen: string[] = []
      for (let offset = 0; offset < 12; offset += 3) {
        const page = await list(sql, { ...input, limit: 3, offset })
        assert.equal(page.total, all.length)
        seen.push(...ids(page.items))
      }
      assert.deepEqual(seen, all, JSON.stringify(input))
    }
    assert.deepEqual(await list(sql, { offset: 10 }), { items: [], total: 10 })
    assert.deepEqual(await list(sql, { offset: 500, filter: { model: 'm1' } }), { items: [], total: 5 })
  })

  it('pages a filter the same way whichever plan the page takes', async () => {
    // limit 1 over a dense filter walks the created_at order (total² > (offset + limit) · rows); limit 50 sorts the matches.
    for (const filter of [{ status: '2xx' as const }, { tag: 'prod' }, { dimensions: { env: 'prod' } }]) {
      const dense = ids((await list(sql, { filter, limit: 50 })).items)
      const single: string[] = []
      for (let offset = 0; offset < dense.length; offset++) single.push(...ids((await list(sql, { filter, limit: 1, offset })).items))
      assert.deepEqual(single, dense)
    }
  })

  it('pages a larger store: 50 rows by default, up to 500, a dense tag deep in the list', async () => {
    const many: Spec[] = Array.from({ length: 120 }, (_, i) => ({ id: `m${String(i).padStart(3, '0')}`, at: T0 + i * 1000, tags: i % 2 ? ['odd'] : [] }))
    const { sql: big, close } = await store(many)
    const first = await list(big, {})
    assert.equal(first.items.length, 50)
    assert.equal(first.total, 120)
    assert.equal(first.items[0].id, 'm119')
    assert.equal((await list(big, { limit: 500 })).items.length, 120)
    const odd = await list(big, { filter: { tag: 'odd' }, limit: 7, offset: 7 })
    assert.equal(odd.total, 60)
    assert.deepEqual(ids(odd.items), ['m105', 'm103', 'm101', 'm099', 'm097', 'm095', 'm093'])
    await close()
  })
})

describeEachStore('requests.export', (under) => {
  let sql: Sql
  before(async () => {
    sql = (
      await storeOf(under, [
        ...SPECS,
        { id: 'x01', at: T0 + 80 * H, key: 'key_x', model: '=HYPERLINK("http://evil","x")', user: '-2+3', cost: null, tokens: [7, 3], latency: 10 },
        { id: 'x02', at: T0 + 81 * H, key: 'key_x', model: 'a,"b"\nc', user: 'ok', cost: 0.000001234, tokens: [1, 1], latency: 20 },
      ])
    ).sql
  })

  it('carries every row the filter matches, in the list order and scope, past one page', async () => {
    for (const input of [{}, { filter: { tag: 'prod' } }, { sort: 'latency_ms' as const, order: 'asc' as const }]) {
      const all = await list(sql, { ...input, limit: 500 })
      assert.deepEqual(ids((await exportRequests(sql, input, ALL)).rows), ids(all.items))
    }
    assert.deepEqual(ids((await exportRequests(sql, {}, { keyIds: ['key_c'] })).rows), ['r08', 'r05'])
    assert.deepEqual((await exportRequests(sql, {}, { keyIds: [] })).rows, [])
  })

  it('stops at its cap and says the selection was cut', async () => {
    assert.deepEqual(await exportRequests(sql, {}, ALL, 3), { rows: (await exportRequests(sql, {}, ALL)).rows.slice(0, 3), truncated: true })
    assert.equal((await exportRequests(sql, {}, ALL, 12)).truncated, false)
  })

  it('writes RFC 4180 CSV: quoted where needed, formulas defused, unpriced as an empty cost and priced=false', async () => {
    const lines = requestsCsv((await exportRequests(sql, { filter: { key_id: 'key_x' } }, ALL)).rows).split('\r\n')
    assert.equal(
      lines[0],
      'id,created_at,endpoint,status,outcome,key_id,model,preset,provider,upstream_model,user_id,prompt_tokens,completion_tokens,cost_usd,priced,latency_ms,source,source_tool,instance,soft_cap,cache_hit_of,cache_saved_usd',
    )
    assert.equal(
      lines[1],
      `x02,${new Date(T0 + 81 * H).toISOString()},chat.completions,200,ok,key_x,"a,""b""\nc",,openai,gpt-4o,ok,1,1,0.000001234,true,20,api,,,,,`,
    )
    assert.equal(
      lines[2],
      `x01,${new Date(T0 + 80 * H).toISOString()},chat.completions,200,ok,key_x,"'=HYPERLINK(""http://evil"",""x"")",,openai,gpt-4o,'-2+3,7,3,,false,10,api,,,,,`,
    )
    assert.equal(lines[3], '', 'the file ends with a line end')
  })

  it("carries a soft cap's limit and a response-cache hit's first request and saving", async () => {
    const store = await under.open()
    const capped: RequestRecord = {
      ...record({ id: 'y01', at: T0, key: 'key_y', cost: 0.0001 }),
      soft_cap: { limit: 'daily', at_percent: 80, instead_of: 'openai/gpt-4o', reason: 'near the daily limit' },
    }
    const hit: RequestRecord = {
      ...record({ id: 'y02', at: T0 + H, key: 'key_y', cost: 0 }),
      response_cache: { hit: true, request_id: 'y01', saved_usd: 0.0001 },
    }
    await store.writeRecords([capped, hit])
    const [header, ...lines] = requestsCsv((await exportRequests(store.sql, { sort: 'created_at', order: 'asc' }, ALL)).rows)
      .trimEnd()
      .split('\r\n')
    const at = (line: string, column: string) => line.split(',')[header.split(',').indexOf(column)]
    assert.deepEqual(
      lines.map((l) => [at(l, 'id'), at(l, 'soft_cap'), at(l, 'cache_hit_of'), at(l, 'cache_saved_usd')]),
      [
        ['y01', 'daily', '', ''],
        ['y02', '', 'y01', '0.0001'],
      ],
    )
    await store.close()
  })
})
