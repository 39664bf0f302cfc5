import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { OriginSlots } from '../../src/gateway/upstream/originSlots'
import { ClientAbort } from '../../src/gateway/upstream/clientAbort'

const A = 'https://api.example.com'
const B = 'http://127.0.0.1:11434'

describe('origin slots', () => {
  it('lets `limit` calls per origin through at once and hands freed slots over in arrival order', async () => {
    const slots = new OriginSlots(1)
    assert.equal(slots.take(A, undefined), null)
    assert.equal(slots.take(B, undefined), null, 'another origin has its own slots')
    const order: string[] = []
    const second = slots.take(A, undefined)!.then(() => order.push('second'))
    const third = slots.take(A, undefined)!.then(() => order.push('third'))
    assert.equal(slots.waiting(A), 2)
    slots.give(A)
    await second
    slots.give(A)
    await third
    assert.deepEqual(order, ['second', 'third'])
  })

  it("drops a waiting call the moment its signal fires, with the signal's reason, and skips it when a slot frees", async () => {
    const slots = new OriginSlots(1)
    slots.take(A, undefined)
    const client = new ClientAbort()
    const leaving = slots.take(A, client)!
    const staying = slots.take(A, AbortSignal.timeout(60_000))!
    client.abort(new Error('client gone'))
    await assert.rejects(leaving, /client gone/)
    assert.equal(slots.waiting(A), 1)
    slots.give(A)
    await staying
    assert.equal(slots.waiting(A), 0)
  })

  it('refuses a call whose signal already fired, even with slots free', async () => {
    const slots = new OriginSlots(4)
    const gone = new ClientAbort()
    gone.abort(new Error('already gone'))
    await assert.rejects(slots.take(A, gone)!, /already gone/)
  })

  it('is idle once every call holding or waiting for a slot is done', async () => {
    const slots = new OriginSlots(1)
    await slots.idle()
    slots.take(A, undefined)
    const waiting = slots.take(A, undefined)!
    let idle = false
    const done = slots.idle().then(() => (idle = true))
    slots.give(A)
    await waiting
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(idle, false, 'the waiting call holds the slot it was handed')
    slots.give(A)
    await done
  })
})
