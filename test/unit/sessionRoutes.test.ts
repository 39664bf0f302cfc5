/**
 * Where a session's next turn goes (SessionRoutes): the order candidates are tried in, the
 * memory's bound, the store read only for a session the gateway does not know, and why a move
 * happened. The end-to-end behaviour, with providers failing, is in sticky-sessions.test.ts.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_HELD_SESSIONS, moveReason, SessionRoutes, type Held } from '../../src/gateway/routing/sessionRoutes'
import type { Target } from '../../src/gateway/pipeline/resolveModel'
import type { Provider } from '../../src/gateway/providers/registry'

const target = (id: string, model = 'claude-sonnet-4-5'): Target => ({
  requested: `${id}/${model}`,
  provider: { id } as Provider,
  upstreamModel: model,
  priced: null,
})
const [a, b, c] = [target('a'), target('b'), target('c')]
const held = (t: Target, softCap = false): Held => ({ provider: t.provider.id, upstreamModel: t.upstreamModel, softCap })
const ids = (ts: Target[]) => ts.map((t) => t.provider.id).join('')

describe('SessionRoutes', () => {
  it("puts a session's held target first, wherever it stands; without one, keeps a preset's order", () => {
    const routes = new SessionRoutes(async () => null)
    assert.equal(ids(routes.arrange([a, b, c], 'p', false, 's', held(c))), 'cab')
    assert.equal(ids(routes.arrange([a, b, c], 'p', false, 's', held(a))), 'abc')
    assert.equal(ids(routes.arrange([a, b, c], 'p', false, 's', null)), 'abc')
    assert.equal(ids(routes.arrange([a, b, c], 'p', false, null, null)), 'abc')
    assert.equal(ids(routes.arrange([a, b], 'p', false, 's', held(target('gone')))), 'ab', 'a target the preset no longer names holds nothing')
  })

  it('equal candidates: requests without a session in turn per preset; a session from a spot its id fixes, the same on every gateway', () => {
    const routes = new SessionRoutes(async () => null)
    const turns = Array.from({ length: 6 }, () => ids(routes.arrange([a, b, c], 'p', true, null, null))[0]).join('')
    assert.equal(turns, 'abcabc')
    assert.equal(ids(routes.arrange([a, b, c], 'other', true, null, null))[0], 'a', 'each preset has its own turn')
    const elsewhere = new SessionRoutes(async () => null)
    const spots = new Set<string>()
    for (let i = 0; i < 30; i++) {
      const here = ids(routes.arrange([a, b, c], 'p', true, `session-${i}`, null))
      assert.equal(ids(elsewhere.arrange([a, b, c], 'p', true, `session-${i}`, null)), here)
      assert.ok(['abc', 'bca', 'cab'].includes(here), here)
      spots.add(here)
    }
    assert.equal(spots.size, 3, 'sessions spread over every candidate')
  })

  it('reads the store only for a session it does not know, remembers what it answered, and forgets the oldest past its bound', async () => {
    const asked: string[] = []
    const routes = new SessionRoutes(async (_key, session) => {
      asked.push(session)
      return session === 'old' ? held(b) : null
    })
    assert.deepEqual(await routes.of('k', 'old', 'p'), held(b))
    assert.equal(await routes.of('k', 'new', 'p'), null)
    assert.deepEqual(routes.of('k', 'old', 'p'), held(b), 'known: answered at once, no promise')
    routes.answered('k', 'new', 'p', c, false)
    assert.deepEqual(routes.of('k', 'new', 'p'), held(c))
    assert.ok(routes.of('k', 'new', 'other-preset') instanceof Promise, 'per preset')
    assert.ok(routes.of('other-key', 'new', 'p') instanceof Promise, 'per key')
    assert.deepEqual(asked, ['old', 'new', 'new', 'new'])

    // Bounded: past MAX_HELD_SESSIONS, the session answered longest ago is forgotten; a turn answered
    // where the previous one was makes its session the most recent again.
    const bounded = new SessionRoutes(async () => null)
    bounded.answered('k', 'first', 'p', a, false)
    for (let i = 1; i < MAX_HELD_SESSIONS; i++) bounded.answered('k', `s${i}`, 'p', a, false)
    bounded.answered('k', 'first', 'p', a, false)
    bounded.answered('k', 'one-more', 'p', a, false)
    assert.deepEqual(bounded.of('k', 'first', 'p'), held(a))
    assert.ok(bounded.of('k', 's1', 'p') instanceof Promise, 'the session answered longest ago was forgotten')
    assert.deepEqual(bounded.of('k', 's2', 'p'), held(a))
  })

  it('a store that cannot answer holds nothing', async () => {
    const routes = new SessionRoutes(async () => {
      throw new Error('store unavailable')
    })
    assert.equal(await routes.of('k', 's', 'p'), null)
  })

  it('says why a session moved', () => {
    assert.equal(moveReason(held(a), [a, b], true, null), 'soft_cap')
    assert.equal(moveReason(held(c, true), [a, b], false, null), 'soft_cap', 'back from where a soft cap had sent it')
    assert.equal(moveReason(held(c), [a, b], false, null), 'preset_changed')
    assert.equal(moveReason(held(a), [a, b], false, 'cooled_down'), 'cooled_down')
    assert.equal(moveReason(held(a), [a, b], false, 'policy'), 'policy')
    assert.equal(moveReason(held(a), [a, b], false, null), 'failed')
  })
})
