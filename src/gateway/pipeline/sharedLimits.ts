import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { ApiError } from '../errors'
import { isTransient, type Debit } from '../store/recordBatch'
import { storeFailure } from '../store/storeFailure'
import { costPico, isTokenCount, type RequestRecord } from '../store/requestsRepo'
import type { RecordSink } from '../store/store'
import type { LimitAdmission, LimitAnswer, LimitRefusal, LimitSettlement, SharedLimitStore } from '../store/sharedLimitStore'
import { startOfUtcDay, startOfUtcMonth, type Reservation } from './balances'
import { capsSessions, type Key, type SoftLimit, type SoftRules } from './keyRules'
import { noBalanceLeft, periodLimitReached, rateLimited, sessionRequestsReached, sessionRequestTooDear, sessionSpendReached } from './refusals'
import { crossedThreshold, type SessionAlertSink } from './sessionAlerts'

/** How often a gateway says it is alive, releases dead gateways' holds and retries settlements the store refused. */
const TICK_MS = 1000
/** A gateway not heard of for this long is dead: its holds are released. */
const SILENT_MS = 10_000
/** A session's counters unused for this long are dropped; one that returns starts again from its records. */
const SESSION_IDLE_MS = 7 * 86_400_000

/** A reservation the database holds, with what its settlement needs. */
export interface SharedReservation extends Reservation {
  shared: {
    requestId: string
    keyName: string
    sessionId: string | null
    dayStart: number | null
    monthStart: number | null
    tool: string | null
    /** Nothing is left to settle: done, or there was nothing (a key limited by its rate or its sessions' request count only). */
    settled: boolean
    /** The limit near which the key's soft cap sent the request to its model (reserving `softPico`), or null. */
    soft: SoftLimit | null
  }
}

export interface SharedAdmission {
  key: Key
  requestId: string
  startedAt: number
  endpoint: RequestRecord['endpoint']
  sessionId: string | null
  tool: string | null
  expectedPico: bigint
  /** The soft cap in effect and what the request is expected to cost on its model, when it has one that may serve it. */
  soft: { rules: SoftRules; pico: bigint } | null
}

const NOT_COUNTED: LimitAdmission['unwritten'] = { counted: false, dayPico: 0n, monthPico: 0n, sessionPico: 0n, sessionRequests: 0 }

const unavailable = (keyName: string, err: unknown) =>
  new ApiError(
    503,
    'server_error',
    `Key "${keyName}" has limits the gateways keep in their database, which cannot be reached now (${storeFailure(err)}); try again shortly.`,
    'store_unavailable',
    null,
    { 'retry-after': '2' },
  )

/**
 * Keys' limits held in the database several gateways share: a request of a limited key is
 * admitted by one atomic call there (`gw_admit`, under the key's row lock), which sees what every
 * gateway committed and reserved, and settled by one more when it ends, or before its answer's end
 * goes out when it debits a prepaid balance. So the limits hold across gateways with one
 * gateway's guarantee. A key with no limit never reaches here: it costs no round trip.
 */
export class SharedLimits {
  /** This process, for its holds: a new id each start, so a restarted gateway's old holds are released as a dead one's. */
  readonly instanceId = randomUUID()
  /** Settlements the store refused, tried again each tick in order. */
  private pending: LimitSettlement[] = []
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly store: SharedLimitStore,
    private readonly records: Pick<RecordSink, 'flushed' | 'unwritten'>,
    private readonly instanceName: () => string,
    private readonly alerts: SessionAlertSink,
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  /** Whether this request is held by a limit the gateways share: any of its key's, its session's where it has one. */
  holds(key: Key, sessionId: string | null): boolean {
    const rules = key.rules
    return (
      key.prepaid === 1 ||
      rules.dailyPico !== null ||
      rules.monthlyPico !== null ||
      rules.policy.rpm !== undefined ||
      (sessionId !== null && capsSessions(rules))
    )
  }

  /** Says this gateway is alive before it serves, then every tick. */
  async start(): Promise<void> {
    await this.store.heartbeat(this.instanceId, this.instanceName())
    this.timer = setInterval(() => void this.tick(), TICK_MS)
    this.timer.unref()
  }

  /** Stops the heartbeat, as a killed gateway's stops: its holds are released by the others once it has been silent long enough. */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /**
   * A gateway shutting down (its requests ended): settles what is pending, then leaves, its holds
   * released at once rather than after its silence.
   */
  async leave(): Promise<void> {
    this.stop()
    try {
      await this.settlePending()
      await this.store.leave(this.instanceId)
    } catch (err) {
      this.log.error({ err }, 'limits: could not leave cleanly; the other gateways release its holds within seconds')
    }
  }

  private async tick(): Promise<void> {
    try {
      await this.store.heartbeat(this.instanceId, this.instanceName())
      await this.store.reap(SILENT_MS, SESSION_IDLE_MS)
      await this.settlePending()
    } catch {
      // The database is unreachable for now: the next tick tries again.
    }
  }

  /** Settlements the store refused, in order; one it refuses for a lasting reason is dropped, saying so, not retried for ever. */
  private async settlePending(): Promise<void> {
    while (this.pending.length > 0) {
      const next = this.pending[0]
      try {
        await this.store.settle(next)
      } catch (err) {
        if (isTransient(err)) throw err
        this.log.error({ err, request_id: next.requestId }, 'limits: a settlement was refused; its hold is released when its gateway leaves or falls silent')
      }
      this.pending.shift()
    }
  }

  /** Admits the request or throws its refusal (503 when the database cannot be reached). */
  async admit(a: SharedAdmission): Promise<SharedReservation> {
    const key = a.key
    const rules = key.rules
    const policy = rules.policy
    const session = a.sessionId !== null && capsSessions(rules) ? a.sessionId : null
    const dayStart = rules.dailyPico === null ? null : startOfUtcDay(a.startedAt)
    const monthStart = rules.monthlyPico === null ? null : startOfUtcMonth(a.startedAt)
    const sessionLimitPico = session !== null ? rules.sessionPico : null
    const soft = a.soft?.rules ?? null
    const admission = {
      requestId: a.requestId,
      instanceId: this.instanceId,
      keyId: key.id,
      rpm: policy.rpm ?? null,
      prepaid: key.prepaid === 1,
      expectedPico: a.expectedPico,
      dayStart,
      dayLimitPico: rules.dailyPico,
      monthStart,
      monthLimitPico: rules.monthlyPico,
      sessionId: session,
      sessionRequests: session !== null ? (policy.max_session_requests ?? null) : null,
      sessionLimitPico,
      soft: soft && {
        expectedPico: a.soft!.pico,
        dayPico: dayStart === null ? null : soft.dailyPico,
        monthPico: monthStart === null ? null : soft.monthlyPico,
        sessionPico: session === null ? null : soft.sessionPico,
      },
    }
    let answer: LimitAnswer
    try {
      answer = await this.store.admit({ ...admission, unwritten: NOT_COUNTED })
      if (answer.refusal === 'unstarted') {
        // A counter starts from the records (once a session, a period, a new limit): what this
        // gateway's writer held is committed first, and what it took in meanwhile is counted.
        await this.records.flushed()
        answer = await this.store.admit({ ...admission, unwritten: this.unwritten(key.id, session, dayStart, monthStart) })
      }
    } catch (err) {
      throw unavailable(key.name, err)
    }
    if (answer.refusal !== null) throw this.refused(a, answer, sessionLimitPico, dayStart, monthStart)
    return {
      keyId: key.id,
      prepaid: key.prepaid === 1,
      pico: answer.soft ? a.soft!.pico : a.expectedPico,
      debit: 'due',
      shared: {
        requestId: a.requestId,
        keyName: key.name,
        sessionId: session,
        dayStart,
        monthStart,
        tool: a.tool,
        settled: !(key.prepaid === 1 || dayStart !== null || monthStart !== null || sessionLimitPico !== null),
        soft: answer.soft,
      },
    }
  }

  /** What this gateway's record writer still holds of the key, for a counter the database starts from the records. */
  private unwritten(keyId: string, sessionId: string | null, dayStart: number | null, monthStart: number | null): LimitAdmission['unwritten'] {
    const u = { counted: true, dayPico: 0n, monthPico: 0n, sessionPico: 0n, sessionRequests: 0 }
    for (const r of this.records.unwritten(keyId)) {
      const pico = costPico(r)
      const at = Date.parse(r.created_at)
      if (dayStart !== null && at >= dayStart) u.dayPico += pico
      if (monthStart !== null && at >= monthStart) u.monthPico += pico
      if (sessionId !== null && r.attribution.session_id === sessionId && !isTokenCount(r)) {
        u.sessionPico += pico
        u.sessionRequests++
      }
    }
    return u
  }

  private refused(
    a: SharedAdmission,
    r: LimitRefusal & Pick<LimitAnswer, 'soft'>,
    sessionLimitPico: bigint | null,
    dayStart: number | null,
    monthStart: number | null,
  ): ApiError {
    const { key } = a
    const policy = a.key.rules.policy
    switch (r.refusal) {
      case 'rpm':
        return rateLimited(key.name, policy.rpm!, Number(r.a))
      case 'session_requests':
        // Requests in flight are counted among those made: the database counts a request when it is admitted.
        return sessionRequestsReached(a.endpoint, key.name, policy.max_session_requests!, Number(r.a), 0)
      case 'session_usd':
        return sessionSpendReached(a.endpoint, key.name, sessionLimitPico!, r.a, r.b)
      case 'session_usd_request':
        return sessionRequestTooDear(a.endpoint, key.name, sessionLimitPico!, r.a, r.b, r.soft ? a.soft!.pico : a.expectedPico)
      case 'balance':
        return noBalanceLeft(key, r.a, r.b)
      case 'daily':
        return periodLimitReached(key.name, 'daily', a.key.rules.dailyPico!, r.a, r.b, dayStart!)
      case 'monthly':
        return periodLimitReached(key.name, 'monthly', a.key.rules.monthlyPico!, r.a, r.b, monthStart!)
      case 'unstarted':
        throw new Error('a counter was not started with what the record writer holds')
    }
  }

  /**
   * Writes a prepaid charge to the ledger and settles the request with it, in one transaction:
   * once this returns, the debit survives a kill of the gateway. Throws when the store refuses
   * it; the request's settlement at its end then releases the hold.
   */
  async debitNow(r: SharedReservation, pico: bigint, at: number): Promise<void> {
    await this.settleNow(r, this.settlement(r, pico, true, at))
    r.debit = 'written'
  }

  /**
   * When the request ends: settles it if its debit did not already. A prepaid debit the store
   * refuses now is returned, to travel with the request's record; the rest of the settlement is
   * tried again each tick.
   */
  async settle(r: SharedReservation, costPico: bigint | null, at: number): Promise<Debit | null> {
    if (r.shared.settled) return null
    const charge = r.debit === 'waived' ? 0n : (costPico ?? 0n)
    const debit = r.prepaid && r.debit === 'due' && charge > 0n
    const settlement = this.settlement(r, charge, debit, at)
    try {
      await this.settleNow(r, settlement)
      return null
    } catch (err) {
      this.log.error({ err, request_id: r.shared.requestId }, 'limits: could not settle a request; trying again')
      this.pending.push({ ...settlement, debit: false })
      return debit ? { keyId: r.keyId, pico: charge } : null
    }
  }

  private settlement(r: SharedReservation, chargePico: bigint, debit: boolean, at: number): LimitSettlement {
    const s = r.shared
    return { requestId: s.requestId, keyId: r.keyId, chargePico, debit, at, dayStart: s.dayStart, monthStart: s.monthStart, sessionId: s.sessionId }
  }

  private async settleNow(r: SharedReservation, settlement: LimitSettlement): Promise<void> {
    const spent = await this.store.settle(settlement)
    r.shared.settled = true
    const s = r.shared
    if (spent === null || s.sessionId === null) return
    const alert = crossedThreshold(this.alerts.threshold(), spent - settlement.chargePico, spent, {
      at: settlement.at,
      key_id: r.keyId,
      key_name: s.keyName,
      session_id: s.sessionId,
      tool: s.tool,
    })
    if (alert) this.alerts.raise(alert)
  }
}
