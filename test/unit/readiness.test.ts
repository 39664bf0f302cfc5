import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pino from 'pino'
import { ReadinessCheck } from '../../src/gateway/core/readiness'
import { RecordBackpressure } from '../../src/gateway/core/recordBackpressure'
import type { RecordBacklog } from '../../src/gateway/store/store'

const silent = pino({ level: 'silent' })

/** A backpressure over a backlog the test sets, with a bound of 10 records or 1 MB. */
function backpressureOver(backlog: RecordBacklog) {
  return new RecordBackpressure(() => backlog, { records: 10, bytes: 1024 * 1024 }, silent)
}

describe('readiness', () => {
  it('asks the store at most once a second, however many checks arrive', async (t) => {
    // A clock the test moves: the age of the store's answer is what decides, not a second waited out.
    t.mock.timers.enable({ apis: ['Date'] })
    let pings = 0
    const check = new ReadinessCheck(async () => void pings++, backpressureOver({ records: 0, bytes: 0, failingSince: null, lagMs: 0 }))
    const answers = await Promise.all(Array.from({ length: 20 }, () => check.check()))
    assert.deepEqual(new Set(answers.map((a) => a.ready)), new Set([true]))
    assert.equal(pings, 1, 'concurrent checks share one question')
    await check.check()
    assert.equal(pings, 1, 'an answer is reused within the second')
    t.mock.timers.tick(1100)
    await check.check()
    assert.equal(pings, 2)
  })

  it("names a socket error by its code alone (its message holds the database's address), a database error by code and message", async () => {
    const refused = new ReadinessCheck(
      async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), { code: 'ECONNREFUSED' })
      },
      backpressureOver({ records: 0, bytes: 0, failingSince: null, lagMs: 0 }),
    )
    assert.deepEqual(await refused.check(), { ready: false, reason: "The gateway's store does not answer (ECONNREFUSED)." })
    const starting = new ReadinessCheck(
      async () => {
        throw Object.assign(new Error('the database system is starting up'), { code: '57P03' })
      },
      backpressureOver({ records: 0, bytes: 0, failingSince: null, lagMs: 0 }),
    )
    assert.deepEqual(await starting.check(), { ready: false, reason: "The gateway's store does not answer (57P03: the database system is starting up)." })
  })

  it('is not ready when the store does not answer within 2 s', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const check = new ReadinessCheck(() => new Promise(() => {}), backpressureOver({ records: 0, bytes: 0, failingSince: null, lagMs: 0 }))
    const readiness = check.check()
    t.mock.timers.tick(2000)
    assert.deepEqual(await readiness, { ready: false, reason: "The gateway's store does not answer (no answer in 2 s)." })
  })

  it('is not ready while requests are refused for the records held, without asking the store', async () => {
    let pings = 0
    const check = new ReadinessCheck(async () => void pings++, backpressureOver({ records: 10, bytes: 20_480, failingSince: Date.now() - 3000, lagMs: 0 }))
    const readiness = await check.check()
    assert.equal(readiness.ready, false)
    assert.match(
      (readiness as { reason: string }).reason,
      /^The gateway's store has been unreachable for 3 s and 10 request records are waiting to be written \(1 MB; the gateway holds at most 10 records or 1 MB\); new requests are refused until the store has them\.$/,
    )
    assert.equal(pings, 0)
  })
})
