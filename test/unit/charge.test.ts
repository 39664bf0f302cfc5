import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import type { Reservation } from '../../src/gateway/pipeline/balances'
import { chargeBeforeDelivery, chargeOf, chargesBeforeDelivery, settleCharge, type Charge } from '../../src/gateway/pipeline/charge'
import { ledgerStore } from '../support/ledgerStore'

const ONE_USD = 1_000_000_000_000n
const AT = Date.UTC(2026, 10, 25, 12)

const reservation = (r: Partial<Reservation> = {}): Reservation => ({ keyId: 'k', prepaid: true, pico: 5_000n, debit: 'due', ...r })
const charge = (c: Partial<Charge> = {}): Charge => ({ reservation: reservation(), pico: null, anomaly: false, requestId: 'req_1', at: AT, ...c })

describe('chargeOf: what a request is charged', () => {
  it('its priced cost, in pico-dollars', () => {
    assert.equal(chargeOf(charge({ pico: 1_234n })), 1_234n)
  })

  it('a usage the provider misreported: a prepaid key pays what it reserved; any other key nothing', () => {
    assert.equal(chargeOf(charge({ anomaly: true })), 5_000n)
    assert.equal(chargeOf(charge({ anomaly: true, reservation: reservation({ prepaid: false }) })), null)
    assert.equal(chargeOf(charge({ anomaly: true, pico: 7n })), 7n, 'a price, where there is one, wins')
  })

  it('nothing when there is no price, a zero one, or one past what is ever debited', () => {
    assert.equal(chargeOf(charge()), null)
    assert.equal(chargeOf(charge({ pico: 0n })), null)
    assert.equal(chargeOf(charge({ pico: BigInt(Number.MAX_SAFE_INTEGER) + 1n })), null)
  })

  it('the end of an answer waits for a prepaid reservation only', () => {
    assert.equal(chargesBeforeDelivery(reservation()), true)
    assert.equal(chargesBeforeDelivery(reservation({ prepaid: false })), false)
    assert.equal(chargesBeforeDelivery(null), false)
  })
})

/** A prepaid key with $1, its balance read, and a request admitted on it. */
async function prepaid() {
  const s = await ledgerStore()
  const key = await s.key('prepaid', { balanceUsd: 1 })
  await s.balances.loading(key)
  const r = s.balances.admit(key, 5_000n)
  const deps = { balances: s.balances, shared: null }
  const usage = async () => (await s.ledger.entries(key.id)).filter((e) => e.kind === 'usage')
  return { ...s, key, r, deps, usage }
}

describe('chargeBeforeDelivery: a prepaid debit is in the ledger before the answer’s end goes out', () => {
  it('writes the debit now, and settling the request later charges nothing twice', async () => {
    const { key, r, deps, ledger, balances, usage } = await prepaid()
    await chargeBeforeDelivery(deps, { reservation: r, pico: 1_000n, anomaly: false, requestId: 'req_1', at: AT })
    assert.equal(r.debit, 'written')
    assert.equal(await ledger.balance(key.id), ONE_USD - 1_000n)
    assert.deepEqual(
      (await usage()).map((e) => [e.request_id, e.created_at]),
      [['req_1', AT]],
    )
    assert.equal(await settleCharge(deps, { reservation: r, pico: 1_000n, anomaly: false, requestId: 'req_1', at: AT }), null)
    assert.equal(balances.balanceOf(key.id), ONE_USD - 1_000n)
    assert.equal((await usage()).length, 1)
  })

  it('a store that refuses the debit withholds the answer (ledger_unavailable) and waives the charge', async () => {
    const { key, r, deps, balances, refuseDebits, usage, ledger } = await prepaid()
    await refuseDebits()
    await assert.rejects(
      chargeBeforeDelivery(deps, { reservation: r, pico: 1_000n, anomaly: false, requestId: 'req_1', at: AT }),
      (e: unknown) => e instanceof ApiError && e.status === 503 && e.code === 'ledger_unavailable' && /database or disk is full/.test(e.message),
    )
    assert.equal(r.debit, 'waived')
    assert.equal(balances.balanceOf(key.id), ONE_USD, 'the charge taken off in memory is given back')
    // The answer was withheld: settling it charges nothing and queues nothing.
    assert.equal(await settleCharge(deps, { reservation: r, pico: 1_000n, anomaly: false, requestId: 'req_1', at: AT }), null)
    assert.equal(balances.balanceOf(key.id), ONE_USD)
    assert.deepEqual(await usage(), [])
    assert.equal(await ledger.balance(key.id), ONE_USD)
  })

  it('a usage the provider misreported debits what the prepaid key reserved', async () => {
    const { key, r, deps, ledger } = await prepaid()
    await chargeBeforeDelivery(deps, { reservation: r, pico: null, anomaly: true, requestId: 'req_1', at: AT })
    assert.equal(await ledger.balance(key.id), ONE_USD - 5_000n)
  })

  it('a key without a balance writes nothing before delivery', async () => {
    const s = await ledgerStore()
    const key = await s.key('unlimited')
    const r = s.balances.admit(key, 0n)
    await chargeBeforeDelivery({ balances: s.balances, shared: null }, { reservation: r, pico: 1_000n, anomaly: false, requestId: 'req_1', at: AT })
    assert.equal(r.debit, 'due')
    assert.deepEqual(await s.ledger.entries(key.id), [])
  })
})

describe('settleCharge: a request’s end', () => {
  it('writes a prepaid charge not written before delivery (an answer cut short)', async () => {
    const { key, r, deps, ledger } = await prepaid()
    assert.equal(await settleCharge(deps, { reservation: r, pico: 2_000n, anomaly: false, requestId: 'req_1', at: AT }), null)
    assert.equal(r.debit, 'written')
    assert.equal(await ledger.balance(key.id), ONE_USD - 2_000n)
  })

  it('a debit the store refuses now is returned to travel with the record, and charged in memory meanwhile', async () => {
    const { key, r, deps, balances, ledger, refuseDebits } = await prepaid()
    await refuseDebits()
    assert.deepEqual(await settleCharge(deps, { reservation: r, pico: 2_000n, anomaly: false, requestId: 'req_1', at: AT }), { keyId: key.id, pico: 2_000n })
    assert.equal(r.debit, 'due')
    assert.equal(balances.balanceOf(key.id), ONE_USD - 2_000n)
    assert.equal(await ledger.balance(key.id), ONE_USD)
  })

  it('releases the reservation, so what it held no longer counts against the balance', async () => {
    const s = await ledgerStore()
    const key = await s.key('cent', { balanceUsd: 0.01 })
    await s.balances.loading(key)
    const r = s.balances.admit(key, 10_000_000_000n)
    assert.throws(() => s.balances.admit(key, 1n), /\(\$0\.01 left, \$0\.01 reserved by requests in flight\)/)
    await settleCharge({ balances: s.balances, shared: null }, { reservation: r, pico: null, anomaly: false, requestId: 'req_1', at: AT })
    assert.equal(s.balances.admit(key, 1n).pico, 1n)
  })
})

describe('LedgerRepo.debit: the debits of one turn of the event loop commit together', () => {
  it('answers ending together each get their debit, durable when it resolves', async () => {
    const { key, ledger, usage } = await prepaid()
    await Promise.all([ledger.debit(key.id, 10n, 'req_a', AT), ledger.debit(key.id, 20n, 'req_b', AT), ledger.debit(key.id, 30n, 'req_c', AT)])
    assert.deepEqual((await usage()).map((e) => e.request_id).sort(), ['req_a', 'req_b', 'req_c'])
    assert.equal(await ledger.balance(key.id), ONE_USD - 60n)
  })

  it('they share one transaction: one row the store refuses fails every debit of that turn, and none is written', async () => {
    const { key, ledger, store, usage } = await prepaid()
    await store.sql.run(
      `CREATE TRIGGER ledger_refuses_c BEFORE INSERT ON ledger WHEN NEW.request_id = 'req_c' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    )
    const results = await Promise.allSettled([
      ledger.debit(key.id, 10n, 'req_a', AT),
      ledger.debit(key.id, 20n, 'req_b', AT),
      ledger.debit(key.id, 30n, 'req_c', AT),
    ])
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    )
    assert.deepEqual(await usage(), [])
    // The next turn's debits are a transaction of their own.
    await ledger.debit(key.id, 10n, 'req_d', AT)
    assert.deepEqual(
      (await usage()).map((e) => e.request_id),
      ['req_d'],
    )
  })
})
