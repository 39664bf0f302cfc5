import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SessionSpend } from '../../src/gateway/pipeline/sessionSpend'
import { keyRow } from '../support/keyRow'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'

const key = keyRow('k', { name: 'agent', policy: JSON.stringify({ max_session_requests: 1 }) })
const recordOf = (sessionId: string) =>
  ({
    key_id: 'k',
    endpoint: 'chat.completions',
    created_at: new Date(0).toISOString(),
    cost: null,
    attribution: { session_id: sessionId },
  }) as unknown as RequestRecord

describe('SessionSpend: sessions kept in memory', () => {
  it('drops idle sessions past 10,000, never one with a request in flight, and reads a dropped one from the store again', async () => {
    const reads: string[] = []
    const store = new Map<string, number>()
    const spend = new SessionSpend(
      async (_key, sessionId) => (reads.push(sessionId), { pico: 0n, requests: store.get(sessionId) ?? 0 }),
      // Nothing is ever left in the writer here.
      { flushed: async () => {}, unwritten: () => [] },
      { threshold: () => null, raise: () => assert.fail('no alert without a threshold') },
    )
    // As the core does: a session not in memory is read before its request is admitted.
    const admit = async (sessionId: string) => {
      await spend.loading(key, sessionId)
      return spend.admit(key, sessionId, 0n, 'chat.completions')
    }
    // The first session stays in flight throughout; the others come and go.
    const held = await admit('s0')
    for (let i = 1; i < 10_500; i++) {
      const hold = await admit(`s${i}`)
      spend.recorded(hold, recordOf(`s${i}`))
      store.set(`s${i}`, 1)
    }
    assert.equal(reads.length, 10_500, 'each session read once')
    // s0's request is still in flight: its place is kept, so a second request is refused without a read.
    await assert.rejects(admit('s0'), /limit of 1 requests set on key "agent" \(0 made, 1 in flight\)/)
    assert.equal(reads.length, 10_500)
    // s1 was dropped: read again, with its record now in the store.
    await assert.rejects(admit('s1'), /\(1 made\)/)
    assert.equal(reads.at(-1), 's1')
    spend.recorded(held, recordOf('s0'))
    await assert.rejects(admit('s0'), /\(1 made\)/)
  })
})
