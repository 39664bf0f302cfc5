import { ApiError } from '../errors'
import type { KeyRow } from '../store/keysRepo'
import { picoToUsdNumber, type LedgerRepo } from '../store/ledgerRepo'

export interface Reservation {
  keyId: string
  prepaid: boolean
  pico: bigint
  /**
   * A prepaid charge's way to the ledger: still `due`; `written` (synchronously, before the end of
   * the answer went out); or `waived` because the store refused it and the answer was withheld.
   */
  debit: 'due' | 'written' | 'waived'
}

interface Spend {
  since: number
  usd: number
}

const insufficient = (message: string) =>
  new ApiError(402, 'insufficient_quota', message, 'insufficient_balance', null, { 'x-should-retry': 'false' })

/** A pico-dollar amount as a price: `$0.0048`, `$2.00`. */
export const usd = (pico: bigint) => `$${picoToUsdNumber(pico).toFixed(6).replace(/0+$/, '').replace(/\.$/, '.00')}`

const DAY_MS = 86_400_000
export const startOfUtcDay = (now: number) => now - (((now % DAY_MS) + DAY_MS) % DAY_MS)
export const startOfUtcMonth = (now: number) => {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/**
 * Prepaid balances and period spend, in memory. A request is admitted only while the balance
 * minus what requests in flight have reserved is above zero, and it reserves its expected cost;
 * so parallel requests can overdraw a balance by no more than what those already in flight
 * spend beyond their reservation. A prepaid request's charge is written to the ledger before the
 * end of its answer is sent (or, for one that ended otherwise, when it ends).
 */
export class Balances {
  private balances = new Map<string, bigint>()
  private reserved = new Map<string, bigint>()
  private daily = new Map<string, Spend>()
  private monthly = new Map<string, Spend>()

  /** `flushPending` writes queued records, so spend read from the store is complete. */
  constructor(
    private readonly ledger: LedgerRepo,
    private readonly flushPending: () => void,
  ) {}

  /** After a configuration change (a top-up from another process); pending records must be flushed first. */
  reload(): void {
    this.balances = this.ledger.balances()
    this.daily.clear()
    this.monthly.clear()
  }

  balanceOf(keyId: string): bigint {
    return this.balances.get(keyId) ?? 0n
  }

  admit(key: KeyRow, expectedPico: bigint, now = Date.now()): Reservation {
    const prepaid = key.prepaid === 1
    if (prepaid) {
      const balance = this.balanceOf(key.id)
      const inFlight = this.reserved.get(key.id) ?? 0n
      if (balance - inFlight <= 0n) {
        const detail = inFlight > 0n ? ` (${usd(balance)} left, ${usd(inFlight)} reserved by requests in flight)` : ` (${usd(balance)} left)`
        throw insufficient(`Key "${key.name}" has no prepaid balance left${detail}. Top it up with \`gw balance top-up ${key.id} USD\`.`)
      }
    }
    if (key.daily_limit_usd !== null) this.checkLimit(key, 'daily', key.daily_limit_usd, this.daily, startOfUtcDay(now))
    if (key.monthly_limit_usd !== null) this.checkLimit(key, 'monthly', key.monthly_limit_usd, this.monthly, startOfUtcMonth(now))
    this.reserved.set(key.id, (this.reserved.get(key.id) ?? 0n) + expectedPico)
    return { keyId: key.id, prepaid, pico: expectedPico, debit: 'due' }
  }

  /**
   * Writes a prepaid charge to the ledger now, in its own transaction on this connection: once
   * this returns, the debit survives a kill of the process. Throws when the store refuses it.
   */
  debitNow(r: Reservation, pico: bigint, requestId: string, at: number): void {
    this.ledger.debit(r.keyId, pico, requestId, at)
    r.debit = 'written'
    this.balances.set(r.keyId, this.balanceOf(r.keyId) - pico)
  }

  /**
   * Releases the reservation and books what the request was charged (null when nothing); a debit
   * already written was booked then.
   */
  settle(r: Reservation, costPico: bigint | null): void {
    const left = (this.reserved.get(r.keyId) ?? 0n) - r.pico
    if (left > 0n) this.reserved.set(r.keyId, left)
    else this.reserved.delete(r.keyId)
    if (costPico === null || costPico === 0n || r.debit === 'waived') return
    if (r.prepaid && r.debit === 'due') this.balances.set(r.keyId, this.balanceOf(r.keyId) - costPico)
    const spent = picoToUsdNumber(costPico)
    for (const period of [this.daily, this.monthly]) {
      const s = period.get(r.keyId)
      if (s) s.usd += spent
    }
  }

  private checkLimit(key: KeyRow, name: 'daily' | 'monthly', limit: number, cache: Map<string, Spend>, since: number): void {
    let spend = cache.get(key.id)
    if (!spend || spend.since !== since) {
      this.flushPending()
      spend = { since, usd: this.ledger.spendSince(key.id, since) }
      cache.set(key.id, spend)
    }
    if (spend.usd >= limit) {
      throw insufficient(
        `Key "${key.name}" reached its ${name} spend limit of $${limit} ($${spend.usd.toFixed(6)} spent since ${new Date(since).toISOString()}).`,
      )
    }
  }
}
