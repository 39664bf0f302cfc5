import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { json, startTestGateway, TEST_STORE, type TestGateway } from '../support/harness'
import { withStoreSql } from '../support/storeFile'

describe('attribution through the gateway', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  const send = (gw: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], gw }),
    })

  it('accepts an envelope at every bound and stores it indexed', async () => {
    const max = (c: string) => c.repeat(128)
    const envelope = {
      user_id: max('u'),
      trace_id: 'trace-a',
      session_id: 'session-a',
      tags: Array.from({ length: 12 }, (_, i) => `tag-${i}`),
      extra: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, `v${i}`])),
      auto_cache: true,
    }
    const res = await send(envelope)
    assert.equal(res.status, 200)
    const record = await t.record(res.headers.get('x-request-id'))
    assert.equal(record.attribution.user_id, max('u'))
    assert.equal(record.attribution.auto_cache, true)
    assert.equal(record.attribution.tags.length, 12)
    assert.equal(Object.keys(record.dimensions).length, 12)
    await withStoreSql(t.dataDir, async (sql) => {
      const tagged = await sql.get<{ n: number }>(`SELECT count(*) AS n FROM request_tags WHERE tag = 'tag-11' AND request_id = ?`, [record.id])
      assert.equal(tagged?.n, 1)
      const dimension = await sql.get<{ value: string }>(`SELECT value FROM request_dimensions WHERE name = 'k3' AND request_id = ?`, [record.id])
      assert.equal(dimension?.value, 'v3')
      if (TEST_STORE === 'sqlite') {
        const plan = await sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT request_id FROM request_tags WHERE tag = ?`, ['tag-1'])
        assert.match(plan.map((p) => p.detail).join(' '), /USING (COVERING )?INDEX|PRIMARY KEY/)
      } else {
        // PostgreSQL's planner scans a table this small whole whatever its indexes; with sequential
        // scans priced out it shows whether an index answers the tag condition.
        const plan = await sql.read(async (tx) => {
          await tx.run(`SET LOCAL enable_seqscan = off`)
          return tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT request_id FROM request_tags WHERE tag = 'tag-1'`)
        })
        assert.match(plan.map((p) => p['QUERY PLAN']).join(' '), /Index Cond: \(tag = /)
      }
    })
  })

  it('refuses an envelope one past each bound with 400 naming the field, sending nothing upstream', async () => {
    const before = t.fake.received.length
    const cases: Array<[unknown, string]> = [
      [{ user_id: 'u'.repeat(129) }, 'gw.user_id'],
      [{ tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }, 'gw.tags'],
      [{ extra: Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`k${i}`, 'v'])) }, 'gw.extra'],
      [{ session_id: 42 }, 'gw.session_id'],
      [{ colour: 'red' }, 'gw.colour'],
      [
        {
          tags: Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(128, 't')),
          extra: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, 'v'.repeat(128)])),
        },
        'gw',
      ],
    ]
    for (const [envelope, param] of cases) {
      const res = await send(envelope)
      assert.equal(res.status, 400, param)
      const body = await json(res)
      assert.equal(body.error.type, 'invalid_request_error')
      assert.equal(body.error.param, param)
    }
    assert.equal(t.fake.received.length, before)
  })

  it('keeps the first 12 dimension headers, ignores over-long values, and lists what it ignored', async () => {
    const headers: Record<string, string> = { 'X-Gw-Agent': 'a'.repeat(128), 'X-Gw-Too-Long': 'b'.repeat(129) }
    for (let i = 0; i < 12; i++) headers[`X-Gw-D${i}`] = `v${i}`
    const res = await send(undefined, headers)
    assert.equal(res.status, 200)
    const record = await t.record(res.headers.get('x-request-id'))
    assert.equal(Object.keys(record.dimensions).length, 12)
    assert.equal(record.dimensions.agent, 'a'.repeat(128))
    assert.equal(record.dimensions.d10, 'v10')
    assert.equal(record.dimensions.d11, undefined)
    assert.deepEqual(record.ignored.map((i) => i.name).sort(), ['x-gw-d11', 'x-gw-too-long'])
    assert.deepEqual(
      Object.keys(t.fake.received.at(-1)!.headers).filter((h) => h.startsWith('x-gw')),
      [],
    )
  })
})
