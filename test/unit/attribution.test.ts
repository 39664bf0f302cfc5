import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { LIMITS, resolveAttribution } from '../../src/gateway/pipeline/attribution'

const headers = (pairs: Record<string, string>) => Object.entries(pairs).flat()

describe('attribution', () => {
  it('takes each envelope bound at its limit, and refuses one past it naming the field', () => {
    const s128 = 'x'.repeat(LIMITS.stringLength)
    const ok = resolveAttribution({ user_id: s128, tags: Array.from({ length: 12 }, (_, i) => `t${i}`) }, [])
    assert.equal(ok.attribution.user_id, s128)
    assert.equal(ok.attribution.tags.length, 12)
    const cases: Array<[unknown, string]> = [
      [{ user_id: s128 + 'x' }, 'gw.user_id'],
      [{ tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }, 'gw.tags'],
      [{ tags: ['ok', 'y'.repeat(129)] }, 'gw.tags[1]'],
      [{ extra: Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`k${i}`, 'v'])) }, 'gw.extra'],
      [{ extra: { k: 1 } }, 'gw.extra.k'],
      [{ extra: { k: { nested: 'no' } } }, 'gw.extra.k'],
      [{ auto_cache: 'yes' }, 'gw.auto_cache'],
      [{ surprise: 1 }, 'gw.surprise'],
      [[1], 'gw'],
      // every field within its own bound, the whole over 2 KB
      [
        {
          tags: Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(128, 't')),
          extra: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, 'v'.repeat(128)])),
        },
        'gw',
      ],
    ]
    for (const [gw, param] of cases) {
      assert.throws(
        () => resolveAttribution(gw, []),
        (e: any) => e.status === 400 && e.param === param,
        param,
      )
    }
  })

  it('turns X-Gw-* headers into lower-case dimensions, ignoring over-long values and those past the first 12', () => {
    const h: Record<string, string> = {}
    for (let i = 0; i < 14; i++) h[`X-Gw-Dim${i}`] = `v${i}`
    h['X-Gw-Long'] = 'z'.repeat(129)
    h['Authorization'] = 'Bearer x'
    const r = resolveAttribution(undefined, headers(h))
    assert.equal(Object.keys(r.dimensions).length, 12)
    assert.equal(r.dimensions.dim0, 'v0')
    assert.equal(r.dimensions.dim12, undefined)
    assert.deepEqual(
      r.ignored.map((i) => i.name),
      ['x-gw-dim12', 'x-gw-dim13', 'x-gw-long'],
    )
  })

  it('lets the body win over an equivalent header', () => {
    const r = resolveAttribution(
      { session_id: 'body', extra: { team: 'body-team' } },
      headers({ 'X-Gw-Session-Id': 'hdr', 'X-Gw-Team': 'hdr-team', 'X-Gw-Trace-Id': 't1' }),
    )
    assert.equal(r.attribution.session_id, 'body')
    assert.equal(r.attribution.trace_id, 't1')
    assert.equal(r.dimensions.team, 'body-team')
    assert.deepEqual(r.ignored.map((i) => i.name).sort(), ['x-gw-session-id', 'x-gw-team'])
  })
})
