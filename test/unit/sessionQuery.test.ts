import { before, it } from 'node:test'
import assert from 'node:assert/strict'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'
import type { Sql } from '../../src/gateway/store/sql'
import { getSession, listSessions, type ListSessionsInput } from '../../src/gateway/store/queries/sessionQuery'
import type { Scope } from '../../src/gateway/store/queries/requestQuery'
import { sessionOps } from '../../src/contract/sessions'
import { recordFixture, type RecordSpec } from '../support/recordFixture'
import { describeEachStore } from '../support/stores'

const T0 = Date.UTC(2025, 5, 2)
const MIN = 60_000
const ALL: Scope = { keyIds: null }

type Spec = RecordSpec & { id: string; derived?: boolean }

const record = (s: Spec): RequestRecord => {
  const r = recordFixture(s, { model: 'm1', provider: 'p1', upstreamModel: null })
  return { ...r, attribution: { ...r.attribution, session_derived: s.derived ?? false } }
}

// Inserted in this order. s1: two keys, two tools (and one request saying none), models used m2
// then m1; s2: one key, a derived id, an error and an unpriced request; s3: key_b only, the
// costliest; r10 is in no session.
const SPECS: Spec[] = [
  { id: 'r01', at: T0 + 1 * MIN, session: 's1', key: 'key_a', model: 'm2', tool: 'codex 0.169.0', cost: 0.02, tokens: [100, 10] },
  { id: 'r02', at: T0 + 2 * MIN, session: 's2', key: 'key_a', model: 'm1', tool: 'claude-code 2.1.330', derived: true, cost: 0.01, tokens: [10, 1] },
  { id: 'r03', at: T0 + 3 * MIN, session: 's1', key: 'key_b', model: 'm1', tool: 'claude-code 2.1.330', cost: null, tokens: [200, 20] },
  { id: 'r04', at: T0 + 4 * MIN, session: 's1', key: 'key_a', model: 'm2', tool: null, cost: 0.03, tokens: [5, 5] },
  { id: 'r05', at: T0 + 5 * MIN, session: 's2', key: 'key_a', model: 'm1', tool: 'claude-code 2.1.330', derived: true, outcome: 'error', tokens: null },
  { id: 'r06', at: T0 + 6 * MIN, session: 's3', key: 'key_b', model: 'm3', cost: 0.5, tokens: [1, 1] },
  { id: 'r07', at: T0 + 7 * MIN, session: 's2', key: 'key_a', model: 'm1', tool: 'claude-code 2.1.330', derived: true, cost: null, tokens: [1000, 100] },
  { id: 'r08', at: T0 + 8 * MIN, session: 's1', key: 'key_a', model: 'm1', tool: 'codex 0.169.0', cost: 0.04, tokens: [1, 1] },
  // Same time as r08: insertion order breaks the tie.
  { id: 'r09', at: T0 + 8 * MIN, session: 's1', key: 'key_b', model: 'm2', tool: 'codex 0.169.0', cost: 0.001, tokens: [2, 2] },
  { id: 'r10', at: T0 + 9 * MIN, session: null, key: 'key_a', cost: 9, tokens: [1, 1] },
]

const listOutput = sessionOps['sessions.list'].output
const getOutput = sessionOps['sessions.get'].output
const round = (usd: number) => Math.round(usd * 1e9) / 1e9
const sessionIds = (out: { items: Array<{ session_id: string }> }) => out.items.map((s) => s.session_id)

describeEachStore('sessions.list query', (under) => {
  let sql: Sql
  before(async () => {
    const store = await under.open()
    await store.writeRecords(SPECS.map(record))
    sql = store.sql
  })
  const list = async (input: ListSessionsInput, scope: Scope = ALL) => {
    const out = await listSessions(sql, input, scope)
    // The contract's keys are objects the handler names; the query gives ids.
    listOutput.parse({ ...out, items: out.items.map(({ key_ids, ...s }) => ({ ...s, keys: key_ids.map((id) => ({ id, name: null })) })) })
    return out
  }

  it("sums each session's requests: counts, tokens, priced cost, unpriced, errors, first and last, its tools, keys and models", async () => {
    const out = await list({})
    assert.equal(out.total, 3)
    const [s1, s2, s3] = out.items
    assert.deepEqual(sessionIds(out), ['s1', 's2', 's3'], 'the latest last request first')
    assert.deepEqual(
      { ...s1, cost_usd: round(s1.cost_usd) },
      {
        session_id: 's1',
        tools: ['claude-code 2.1.330', 'codex 0.169.0'],
        key_ids: ['key_a', 'key_b'],
        models: ['m1', 'm2'],
        first_at: T0 + 1 * MIN,
        last_at: T0 + 8 * MIN,
        requests: 5,
        errors: 0,
        prompt_tokens: 308,
        completion_tokens: 38,
        cost_usd: 0.091,
        unpriced: 1,
      },
    )
    assert.deepEqual(s2, {
      session_id: 's2',
      tools: ['claude-code 2.1.330'],
      key_ids: ['key_a'],
      models: ['m1'],
      first_at: T0 + 2 * MIN,
      last_at: T0 + 7 * MIN,
      requests: 3,
      errors: 1,
      prompt_tokens: 1010,
      completion_tokens: 101,
      cost_usd: 0.01,
      // The error had a provider and no cost: its cost is unknown too.
      unpriced: 2,
    })
    assert.deepEqual(s3.tools, [], 'no tool said: empty, not [null]')
    assert.equal(s3.cost_usd, 0.5)
  })

  it('sorts by each figure in both orders, ties by session id in the same direction', async () => {
    const order = async (sort: ListSessionsInput['sort'], dir: 'asc' | 'desc') => sessionIds(await list({ sort, order: dir }))
    assert.deepEqual(await order('last_at', 'desc'), ['s1', 's2', 's3'])
    assert.deepEqual(await order('last_at', 'asc'), ['s3', 's2', 's1'])
    assert.deepEqual(await order('first_at', 'asc'), ['s1', 's2', 's3'])
    assert.deepEqual(await order('cost_usd', 'desc'), ['s3', 's1', 's2'])
    assert.deepEqual(await order('requests', 'desc'), ['s1', 's2', 's3'])
    assert.deepEqual(await order('tokens', 'desc'), ['s2', 's1', 's3'])
    assert.deepEqual(await order('tokens', 'asc'), ['s3', 's1', 's2'])
    // s1 and s2 have one request each before 3 min: the tie goes by session id.
    assert.deepEqual(sessionIds(await list({ sort: 'requests', order: 'desc', filter: { to: T0 + 3 * MIN } })), ['s2', 's1'])
    assert.deepEqual(sessionIds(await list({ sort: 'requests', order: 'asc', filter: { to: T0 + 3 * MIN } })), ['s1', 's2'])
  })

  it('pages with the same total on every page', async () => {
    const pages = await Promise.all([0, 1, 2, 3].map((offset) => list({ limit: 1, offset })))
    assert.deepEqual(
      pages.map((p) => p.total),
      [3, 3, 3, 3],
    )
    assert.deepEqual(pages.map(sessionIds), [['s1'], ['s2'], ['s3'], []])
  })

  it('sums only the matching requests of a session, and lists a session when any of its requests match', async () => {
    const out = await list({ filter: { from: T0 + 3 * MIN, to: T0 + 8 * MIN } })
    assert.deepEqual(
      out.items.map((s) => [s.session_id, s.requests, s.first_at, s.last_at, s.models]),
      [
        ['s2', 2, T0 + 5 * MIN, T0 + 7 * MIN, ['m1']],
        ['s3', 1, T0 + 6 * MIN, T0 + 6 * MIN, ['m3']],
        ['s1', 2, T0 + 3 * MIN, T0 + 4 * MIN, ['m1', 'm2']],
      ],
    )
    assert.deepEqual(
      (await list({ filter: { outcome: 'error' } })).items.map((s) => [s.session_id, s.requests, s.errors]),
      [['s2', 1, 1]],
    )
  })

  it('keeps members to their own keys', async () => {
    const out = await list({}, { keyIds: ['key_b'] })
    assert.deepEqual(
      out.items.map((s) => [s.session_id, s.requests, s.key_ids, s.models]),
      [
        ['s1', 2, ['key_b'], ['m1', 'm2']],
        ['s3', 1, ['key_b'], ['m3']],
      ],
    )
    assert.deepEqual(await list({}, { keyIds: [] }), { items: [], total: 0 })
  })

  it('refuses a sort or order outside the whitelist', async () => {
    await assert.rejects(listSessions(sql, { sort: 'session_id' as never }, ALL), /cannot sort by session_id/)
    await assert.rejects(listSessions(sql, { order: 'up' as never }, ALL), /unknown order/)
  })
})

describeEachStore('sessions.get query', (under) => {
  let sql: Sql
  before(async () => {
    const store = await under.open()
    await store.writeRecords(SPECS.map(record))
    sql = store.sql
  })

  it("gives the session's figures, whether its id was derived, and its requests oldest first with the cost so far", async () => {
    const out = (await getSession(sql, { id: 's1' }, ALL, Date.now()))!
    getOutput.parse({ ...out, session: { ...out.session, keys: [] } })
    assert.equal(out.session.derived, false)
    assert.deepEqual(out.session.models, ['m1', 'm2'])
    assert.equal(out.session.requests, 5)
    assert.deepEqual(
      out.requests.map((r) => [r.id, round(r.cumulative_usd), r.cumulative_unpriced, r.priced]),
      [
        ['r01', 0.02, 0, true],
        ['r03', 0.02, 1, false],
        ['r04', 0.05, 1, true],
        ['r08', 0.09, 1, true],
        ['r09', 0.091, 1, true],
      ],
    )
    const s2 = (await getSession(sql, { id: 's2' }, ALL, Date.now()))!
    assert.equal(s2.session.derived, true)
    assert.deepEqual(s2.session.tools, ['claude-code 2.1.330'])
    assert.deepEqual(
      s2.requests.map((r) => [r.id, r.cost_usd, r.cumulative_usd, r.cumulative_unpriced]),
      [
        ['r02', 0.01, 0.01, 0],
        ['r05', null, 0.01, 1],
        ['r07', null, 0.01, 2],
      ],
    )
  })

  it('pages the timeline with the running sums of the whole session', async () => {
    const page = (await getSession(sql, { id: 's1', limit: 2, offset: 2 }, ALL, Date.now()))!
    assert.equal(page.session.requests, 5)
    assert.deepEqual(
      page.requests.map((r) => [r.id, round(r.cumulative_usd), r.cumulative_unpriced]),
      [
        ['r04', 0.05, 1],
        ['r08', 0.09, 1],
      ],
    )
    assert.deepEqual((await getSession(sql, { id: 's1', offset: 5 }, ALL, Date.now()))!.requests, [])
  })

  it("shows a member only their keys' part of a session, and no session where they have none", async () => {
    const mine = (await getSession(sql, { id: 's1' }, { keyIds: ['key_b'] }, Date.now()))!
    assert.deepEqual(
      mine.requests.map((r) => [r.id, round(r.cumulative_usd), r.cumulative_unpriced]),
      [
        ['r03', 0, 1],
        ['r09', 0.001, 1],
      ],
    )
    assert.deepEqual([mine.session.requests, mine.session.key_ids, mine.session.first_at], [2, ['key_b'], T0 + 3 * MIN])
    assert.equal(await getSession(sql, { id: 's2' }, { keyIds: ['key_b'] }, Date.now()), undefined)
    assert.equal(await getSession(sql, { id: 'nope' }, ALL, Date.now()), undefined)
  })
})
