import { ApiError } from '../errors'
import type { KeyRow } from '../store/keysRepo'
import { picoToUsdNumber, type LedgerRepo } from '../store/ledgerRepo'
import type { RecordSink } from '../store/store'

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

const insufficient = (message: string) => new ApiError(402, 'insufficient_quota', message, 'insufficient_balance', null, { 'x-should-retry': 'false' })

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
  /** Balances are read from the ledger again before the next admission. */
  private stale = true
  /** Counts reloads, so a read that overlapped one does not count as fresh. */
  private generation = 0
  private reading: Promise<void> | null = null

  /** `records`: the writer whose queued records (and debits riding with them) the store's sums must include. */
  constructor(
    private readonly ledger: LedgerRepo,
    private readonly records: Pick<RecordSink, 'flushed' | 'unwritten'>,
  ) {}

  /** After a configuration change (a top-up from another process): balances and spend are read again before the next admission. */
  reload(): void {
    this.stale = true
    this.generation++
    this.daily.clear()
    this.monthly.clear()
  }

  /**
   * Null when what `admit` needs for this key is in memory (almost always); otherwise a promise
   * that reads it from the store once the record writer has committed what it held. Waiting for
   * the record thread is awaited, never blocked on: other requests are served meanwhile, and
   * those of this key that end meanwhile are counted too (see `spendSince`).
   */
  loading(key: KeyRow, now = Date.now()): Promise<void> | null {
    // On every request: no allocation unless something must be read.
    const day = key.daily_limit_usd === null ? null : startOfUtcDay(now)
    const month = key.monthly_limit_usd === null ? null : startOfUtcMonth(now)
    const dayMissing = day !== null && this.daily.get(key.id)?.since !== day
    const monthMissing = month !== null && this.monthly.get(key.id)?.since !== month
    if (!this.stale && !dayMissing && !monthMissing) return null
    return this.load(key.id, day, month)
  }

  private async load(keyId: string, day: number | null, month: number | null): Promise<void> {
    await this.records.flushed()
    if (this.stale) await this.readBalances()
    if (day !== null && this.daily.get(keyId)?.since !== day) this.daily.set(keyId, { since: day, usd: await this.spendSince(keyId, day) })
    if (month !== null && this.monthly.get(keyId)?.since !== month) this.monthly.set(keyId, { since: month, usd: await this.spendSince(keyId, month) })
  }

  /**
   * What the key spent since `since`: the store's sum plus its records still in the writer (pushed
   * while the flush was awaited). Those are listed before the store is read, so none is missed;
   * one the thread commits in between is counted twice, which errs towards refusing, never
   * towards letting a limit be passed.
   */
  /** One read of every balance at a time, which admissions arriving meanwhile wait for. */
  private readBalances(): Promise<void> {
    this.reading ??= (async () => {
      const generation = this.generation
      try {
        this.balances = await this.ledger.balances()
        // A reload that came while this read ran leaves them stale: they are read again.
        if (generation === this.generation) this.stale = false
      } finally {
        this.reading = null
      }
    })()
    return this.reading
  }

  private async spendSince(keyId: string, since: number): Promise<number> {
    const pending = this.unwrittenSince(keyId, since)
    return (await this.ledger.spendSince(keyId, since)) + pending
  }

  private unwrittenSince(keyId: string, since: number): number {
    return this.records
      .unwritten(keyId)
      .filter((r) => Date.parse(r.created_at) >= since)
      .reduce((sum, r) => sum + (r.cost?.final_usd ?? 0), 0)
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
  async debitNow(r: Reservation, pico: bigint, requestId: string, at: number): Promise<void> {
    await this.ledger.debit(r.keyId, pico, requestId, at)
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
      // `loading` filled the cache in this same turn; only a period that began in the microseconds
      // between gets here, when the store holds next to nothing of it: what is queued counts, and
      // the period is read from the store at the next admission.
      spend = { since, usd: this.unwrittenSince(key.id, since) }
    }
    if (spend.usd >= limit) {
      throw insufficient(
        `Key "${key.name}" reached its ${name} spend limit of $${limit} ($${spend.usd.toFixed(6)} spent since ${new Date(since).toISOString()}).`,
      )
    }
  }
}
