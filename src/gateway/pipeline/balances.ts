import type { LedgerRepo } from '../store/ledgerRepo'
import { costPico } from '../store/requestsRepo'
import type { Key, SoftRules } from './keyRules'
import { noBalanceLeft, periodLimitReached } from './refusals'
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
  pico: bigint
  /** The store's part still being read; admissions wait for it. */
  loading: Promise<void> | null
}

const DAY_MS = 86_400_000
export const startOfUtcDay = (now: number) => now - (((now % DAY_MS) + DAY_MS) % DAY_MS)
export const startOfUtcMonth = (now: number) => {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/**
 * Prepaid balances and period spend, in memory, in whole pico-dollars. A request is admitted only while the balance
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
  /** While balances are read: what was charged meanwhile, by key. */
  private chargedDuringRead: Map<string, bigint> | null = null
  /** Debits being written to the ledger, by key. */
  private debiting = new Map<string, bigint>()

  /**
   * `records`: the writer whose queued records (and debits riding with them) the store's sums must
   * include; `clock`: the gateway's, which says which day and month a request's spend counts in.
   */
  constructor(
    private readonly ledger: LedgerRepo,
    private readonly records: Pick<RecordSink, 'flushed' | 'unwritten'>,
    private readonly clock: () => number,
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
   * the store is awaited, never blocked on: other requests are served meanwhile, and what they
   * spend meanwhile is counted too.
   */
  loading(key: Key): Promise<void> | null {
    // On every request: no allocation unless something must be read.
    const rules = key.rules
    const now = this.clock()
    const day = rules.dailyPico === null ? null : startOfUtcDay(now)
    const month = rules.monthlyPico === null ? null : startOfUtcMonth(now)
    if (key.prepaid !== 1 && day === null && month === null) return null
    const dayMissing = day !== null && !loaded(this.daily.get(key.id), day)
    const monthMissing = month !== null && !loaded(this.monthly.get(key.id), month)
    if (!this.stale && !dayMissing && !monthMissing) return null
    return this.load(key.id, day, month)
  }

  private async load(keyId: string, day: number | null, month: number | null): Promise<void> {
    if (this.stale) await this.readBalances()
    else await this.records.flushed()
    if (day !== null) await this.readPeriod(this.daily, keyId, day)
    if (month !== null) await this.readPeriod(this.monthly, keyId, month)
  }

  /**
   * One read of every balance at a time, after the record writer committed what it held, which
   * admissions arriving meanwhile wait for. What is charged from its start on (debits riding
   * records still queued, debits being written) is charged again on what it read: the read may
   * have missed it, and a charge counted twice errs towards refusing, never towards overdrawing.
   */
  private readBalances(): Promise<void> {
    this.reading ??= (async () => {
      const generation = this.generation
      const during = new Map(this.debiting)
      this.chargedDuringRead = during
      try {
        await this.records.flushed()
        const balances = await this.ledger.balances()
        for (const [keyId, pico] of during) balances.set(keyId, (balances.get(keyId) ?? 0n) - pico)
        this.balances = balances
        // A reload that came while this read ran leaves them stale: they are read again.
        if (generation === this.generation) this.stale = false
      } finally {
        this.chargedDuringRead = null
        this.reading = null
      }
    })()
    return this.reading
  }

  /**
   * What the key spent since `since`: the store's sum plus its records still in the writer, and
   * what is settled while the store is read (the entry is in memory from the start). Records are
   * listed before the store is read, so none is missed; one the writer commits in between is
   * counted twice, which errs towards refusing, never towards letting a limit be passed.
   */
  private readPeriod(cache: Map<string, Spend>, keyId: string, since: number): Promise<void> {
    const have = cache.get(keyId)
    if (have?.since === since) return have.loading ?? Promise.resolve()
    const spend: Spend = { since, pico: this.unwrittenSince(keyId, since), loading: null }
    cache.set(keyId, spend)
    spend.loading = this.ledger.spendSince(keyId, since).then(
      (pico) => {
        spend.pico += pico
        spend.loading = null
      },
      (err: unknown) => {
        if (cache.get(keyId) === spend) cache.delete(keyId)
        throw err
      },
    )
    return spend.loading
  }

  private unwrittenSince(keyId: string, since: number): bigint {
    return this.records
      .unwritten(keyId)
      .filter((r) => Date.parse(r.created_at) >= since)
      .reduce((sum, r) => sum + costPico(r), 0n)
  }

  /** Takes a charge off a balance in memory (a refund is negative), and off the one being read if a read runs. */
  private charge(keyId: string, pico: bigint): void {
    this.balances.set(keyId, this.balanceOf(keyId) - pico)
    if (this.chargedDuringRead) this.chargedDuringRead.set(keyId, (this.chargedDuringRead.get(keyId) ?? 0n) + pico)
  }

  balanceOf(keyId: string): bigint {
    return this.balances.get(keyId) ?? 0n
  }

  admit(key: Key, expectedPico: bigint): Reservation {
    const prepaid = key.prepaid === 1
    if (prepaid) {
      const balance = this.balanceOf(key.id)
      const inFlight = this.reserved.get(key.id) ?? 0n
      if (balance - inFlight <= 0n) throw noBalanceLeft(key, balance, inFlight)
    }
    const { dailyPico, monthlyPico } = key.rules
    const now = this.clock()
    if (dailyPico !== null) this.checkLimit(key, 'daily', dailyPico, this.daily, startOfUtcDay(now))
    if (monthlyPico !== null) this.checkLimit(key, 'monthly', monthlyPico, this.monthly, startOfUtcMonth(now))
    this.reserved.set(key.id, (this.reserved.get(key.id) ?? 0n) + expectedPico)
    return { keyId: key.id, prepaid, pico: expectedPico, debit: 'due' }
  }

  /**
   * Writes a prepaid charge to the ledger now, in its own transaction on this connection: once
   * this returns, the debit survives a kill of the process. Throws when the store refuses it.
   */
  async debitNow(r: Reservation, pico: bigint, requestId: string, at: number): Promise<void> {
    // Charged in memory first: an admission meanwhile sees it, and so does a read of the balances.
    this.charge(r.keyId, pico)
    this.debiting.set(r.keyId, (this.debiting.get(r.keyId) ?? 0n) + pico)
    try {
      await this.ledger.debit(r.keyId, pico, requestId, at)
    } catch (err) {
      this.charge(r.keyId, -pico)
      throw err
    } finally {
      const left = this.debiting.get(r.keyId)! - pico
      if (left === 0n) this.debiting.delete(r.keyId)
      else this.debiting.set(r.keyId, left)
    }
    r.debit = 'written'
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
    if (r.prepaid && r.debit === 'due') this.charge(r.keyId, costPico)
    for (const period of [this.daily, this.monthly]) {
      const s = period.get(r.keyId)
      if (s) s.pico += costPico
    }
  }

  /**
   * Which period limit the key's soft cap has reached, if any: what the period spent plus what the
   * key's requests in flight reserved is at or past the cap's share of the limit. Asked in the
   * same turn as `admit`, after `loading`, so the two see the same figures.
   */
  softReached(key: Key, soft: SoftRules): 'daily' | 'monthly' | null {
    const reserved = this.reserved.get(key.id) ?? 0n
    const now = this.clock()
    if (soft.dailyPico !== null && this.spentIn(key, this.daily, startOfUtcDay(now)) + reserved >= soft.dailyPico) return 'daily'
    if (soft.monthlyPico !== null && this.spentIn(key, this.monthly, startOfUtcMonth(now)) + reserved >= soft.monthlyPico) return 'monthly'
    return null
  }

  private spentIn(key: Key, cache: Map<string, Spend>, since: number): bigint {
    const spend = cache.get(key.id)
    if (spend && spend.since === since && !spend.loading) return spend.pico
    // `loading` filled the cache in this same turn; only a period that began in the microseconds
    // between gets here, when the store holds next to nothing of it: what is queued counts, and
    // the period is read from the store at the next admission.
    return this.unwrittenSince(key.id, since)
  }

  private checkLimit(key: Key, name: 'daily' | 'monthly', limitPico: bigint, cache: Map<string, Spend>, since: number): void {
    const spent = this.spentIn(key, cache, since)
    const reserved = this.reserved.get(key.id) ?? 0n
    if (spent + reserved >= limitPico) throw periodLimitReached(key.name, name, limitPico, spent, reserved, since)
  }
}

const loaded = (spend: Spend | undefined, since: number) => spend !== undefined && spend.since === since && spend.loading === null
