import { ApiError } from '../errors'
import { storeFailure } from '../store/storeFailure'
import type { Debit } from '../store/recordBatch'
import type { Balances, Reservation } from './balances'
import type { SharedLimits, SharedReservation } from './sharedLimits'

/** No request is priced above 2^53 pico-dollars ($9,007; see priceUsage): a larger figure is never debited. */
const MAX_CHARGE_PICO = BigInt(Number.MAX_SAFE_INTEGER)

/** One request's charge: what it reserved at admission, what it cost, and who and when it was. */
export interface Charge {
  reservation: Reservation
  /** The priced cost in pico-dollars; null when it is not priced. */
  pico: bigint | null
  /** The provider reported usage that cannot be true (so the cost is not priced from it). */
  anomaly: boolean
  requestId: string
  /** The request's time, in ms: the day and month it is counted in. */
  at: number
}

/**
 * What a request is charged, in pico-dollars: its priced cost; or, when the provider reported
 * usage that cannot be true, what a prepaid key reserved for it at admission, so an answer is
 * never free because its provider misreported. Null when there is nothing to charge.
 */
export function chargeOf(c: Charge): bigint | null {
  const pico = c.pico ?? (c.anomaly && c.reservation.prepaid ? c.reservation.pico : null)
  return pico !== null && pico > 0n && pico <= MAX_CHARGE_PICO ? pico : null
}

/** Who keeps a request's reservation: this process's memory or the database gateways share. */
export interface ChargeDeps {
  balances: Balances
  shared: SharedLimits | null
}

const isShared = (r: Reservation): r is SharedReservation => 'shared' in r

/**
 * Runs just before the end of a whole answer is written. A prepaid request's debit goes to the
 * ledger first, synchronously, so no answer a client received whole is missing from its key's
 * balance after a crash; when the store refuses it, the end of the answer is withheld (the caller
 * gets this error instead) and the request is not charged. A request whose limits the gateways
 * share is settled there too, so the next request on any gateway sees what this one cost; a
 * settlement without a debit that fails is tried again later and the answer still goes out.
 */
export async function chargeBeforeDelivery(deps: ChargeDeps, c: Charge): Promise<void> {
  const r = c.reservation
  const pico = chargeOf(c)
  if (!(r.prepaid && r.debit === 'due' && pico !== null)) {
    if (isShared(r)) await deps.shared!.settle(r, pico, c.at)
    return
  }
  try {
    if (isShared(r)) await deps.shared!.debitNow(r, pico, c.at)
    else await deps.balances.debitNow(r, pico, c.requestId, c.at)
  } catch (err) {
    r.debit = 'waived'
    throw new ApiError(
      503,
      'server_error',
      `The charge for this answer could not be stored, so the answer is withheld: ${storeFailure(err)}`,
      'ledger_unavailable',
    )
  }
}

/** Whether the end of a request's answer waits for `chargeBeforeDelivery`: a prepaid debit, or limits the gateways share. */
export const chargesBeforeDelivery = (r: Reservation | null): boolean => r !== null && (r.prepaid || isShared(r))

/**
 * When a request ends: writes a prepaid charge not written before delivery (an aborted or failed
 * request that still cost something) and releases the reservation. A debit the store refuses now
 * is returned, to travel with the request's record and be retried with it.
 */
export async function settleCharge(deps: ChargeDeps, c: Charge): Promise<Debit | null> {
  const r = c.reservation
  const pico = chargeOf(c)
  if (isShared(r)) return deps.shared!.settle(r, pico, c.at)
  const balances = deps.balances
  let queued: Debit | null = null
  if (r.prepaid && r.debit === 'due' && pico !== null) {
    try {
      await balances.debitNow(r, pico, c.requestId, c.at)
    } catch {
      queued = { keyId: r.keyId, pico }
    }
  }
  balances.settle(r, pico)
  return queued
}
