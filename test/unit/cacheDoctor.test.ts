/**
 * The prompt-cache doctor's rules beyond what the integration test drives through a provider: a
 * cache that expired, markers that were never sent or were dropped by a translation, turns of
 * other models kept apart, writes read or not within their TTL (5 minutes, or an hour).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { diagnoseSession } from '../../src/gateway/store/queries/cacheDoctor'
import type { PromptFingerprint, RequestRecord } from '../../src/gateway/store/requestsRepo'
import { recordFixture } from '../support/recordFixture'

const T0 = Date.parse('2026-11-20T10:00:00Z')
const MIN = 60_000

interface Turn {
  at: number
  read?: number
  write?: number
  write1h?: number
  prompt?: Partial<PromptFingerprint> | null
  upstream?: string
  dropped?: boolean
  writeUsd?: number
}

/** A turn's record: 10,000 prompt tokens of which `read` were read and `write` written, the prefix's fingerprint. */
function record(t: Turn): RequestRecord {
  const r = recordFixture(
    { at: t.at, session: 's', tokens: [10_000, 10] },
    { model: 'anthropic/claude-sonnet-4-5', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
  )
  return {
    ...r,
    upstream_model: t.upstream ?? 'claude-sonnet-4-5',
    usage: { ...r.usage!, cached_tokens: t.read ?? 0, cache_write_tokens: t.write ?? 0, cache_write_1h_tokens: t.write1h ?? 0 },
    cost: { ...r.cost!, cache_write_usd: t.writeUsd ?? 0, cache_savings_usd: 0 },
    ignored: t.dropped ? [{ name: 'cache_control', reason: 'chat completions has no cache markers' }] : [],
    ...(t.prompt !== null && { prompt: { system: 'sys', tools: ['t1'], messages: ['m1'], markers: 2, ...t.prompt } }),
  }
}

const causes = (turns: Turn[], now = T0 + 24 * 60 * MIN) =>
  diagnoseSession(turns.map(record), now).turns.map((t) => t.cause && `${t.cause.kind}: ${t.cause.text}`)

describe('the prompt-cache doctor', () => {
  it('an unchanged prefix read again after its TTL: expired; within it, no markers, dropped markers, or unexplained', () => {
    assert.deepEqual(
      causes([
        { at: T0, write: 8_000 },
        { at: T0 + 7 * MIN, write: 8_000 },
      ])[1],
      'expired: the cache expired at turn 2: 8,000 tokens re-written (7 min after turn 1, past its 5-minute TTL)',
    )
    assert.equal(
      causes([
        { at: T0, write: 8_000, write1h: 8_000 },
        { at: T0 + 7 * MIN, read: 8_000 },
      ])[1],
      null,
      'a 1-hour write is read after 7 minutes',
    )
    assert.match(
      causes([
        { at: T0, write: 8_000 },
        { at: T0 + MIN, prompt: { markers: 0 } },
      ])[1]!,
      /^no_markers: no cache_control markers were sent at turn 2: 10,000 tokens read uncached$/,
    )
    assert.match(
      causes([
        { at: T0, write: 8_000 },
        { at: T0 + MIN, dropped: true },
      ])[1]!,
      /^markers_dropped: the cache markers were dropped at turn 2: .*: chat completions has no cache markers$/,
    )
    assert.match(
      causes([
        { at: T0, write: 8_000 },
        { at: T0 + MIN, write: 8_000 },
      ])[1]!,
      /^unexplained: /,
    )
    assert.match(
      causes([
        { at: T0, write: 8_000, prompt: null },
        { at: T0 + MIN, write: 8_000 },
      ])[1]!,
      /^unknown: /,
    )
  })

  it('turns are compared with the previous turn of the same model; a turn that grows the prefix is no miss', () => {
    const c = diagnoseSession(
      [
        { at: T0, write: 8_000 },
        { at: T0 + MIN, upstream: 'claude-haiku-4-5', prompt: { system: 'other' } },
        { at: T0 + 2 * MIN, read: 8_000, write: 1_000, prompt: { messages: ['m1', 'm2'] } },
        { at: T0 + 3 * MIN, read: 8_000, prompt: { messages: ['m1 changed', 'm2'] } },
      ].map(record),
      T0 + 24 * 60 * MIN,
    )
    assert.deepEqual(
      c.turns.map((t) => t.state),
      ['write', 'none', 'read', 'miss'],
    )
    assert.equal(c.turns[3].cause!.kind, 'message')
    assert.equal(c.turns[3].cause!.index, 0)
    assert.equal(c.verdict, 'missing')
  })

  it('a write is wasted when no later turn of its model read into it within its TTL; one still within it is not counted yet', () => {
    const turns: Turn[] = [
      { at: T0, write: 8_000, writeUsd: 0.03 },
      { at: T0 + MIN, read: 8_000, write: 500, writeUsd: 0.002 },
      { at: T0 + 10 * MIN, read: 0, write: 8_500, writeUsd: 0.032 },
    ]
    const later = diagnoseSession(turns.map(record), T0 + 60 * MIN)
    assert.deepEqual(
      later.turns.map((t) => t.unread_write),
      [false, true, true],
      'the first was read by the second; the second expired unread; the third was never read',
    )
    assert.equal(later.wasted_usd, 0.034)
    assert.equal(later.wasted_tokens, 9_000)
    const meanwhile = diagnoseSession(turns.map(record), T0 + 12 * MIN)
    assert.equal(meanwhile.wasted_tokens, 500, 'the last write may still be read')
  })

  it("leaves a response-cache replay out: its usage is its first answer, not a turn of the provider's cache", () => {
    const first = record({ at: T0, write: 9_000, writeUsd: 0.03 })
    const replay = { ...record({ at: T0 + MIN, write: 9_000, writeUsd: 0.03 }), response_cache: { hit: true as const, request_id: first.id, saved_usd: 0.04 } }
    const third = record({ at: T0 + 2 * MIN, read: 9_000 })
    const d = diagnoseSession([first, replay, third], T0 + 60 * MIN)
    assert.equal(d.cache_write_tokens, 9_000)
    assert.equal(d.cached_tokens, 9_000)
    assert.equal(d.turns[1].state, 'none')
    assert.equal(d.turns[1].unread_write, false)
    assert.equal(d.verdict, 'healthy')
  })

  it('names a move as the reason a turn missed: from where to where, why, and what it re-wrote', () => {
    const before = record({ at: T0, write: 41_000 })
    const moved: RequestRecord = {
      ...record({ at: T0 + MIN, write: 41_200, writeUsd: 0.1545 }),
      provider: 'mirror',
      moved: { from: 'anthropic/claude-sonnet-4-5', to: 'mirror/claude-sonnet-4-5', reason: 'failed', cache_write_tokens: 41_200, cache_write_usd: 0.1545 },
    }
    const after = { ...record({ at: T0 + 2 * MIN, read: 41_200 }), provider: 'mirror' }
    const d = diagnoseSession([before, moved, after], T0 + 3 * MIN)
    assert.deepEqual(d.turns[1].cause, {
      kind: 'moved',
      index: null,
      previous_id: before.id,
      text: 'moved from anthropic/claude-sonnet-4-5 to mirror/claude-sonnet-4-5 (because it failed) at turn 2: 41,200 tokens re-written, $0.15',
    })
    assert.equal(d.turns[2].cause, null, 'the turn after reads on the new provider')
    assert.equal(d.misses, 1)
  })
})
