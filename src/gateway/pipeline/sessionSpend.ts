import type { KeyRow } from '../store/keysRepo'
import type { RecordSink } from '../store/store'
import { costPico, isTokenCount, type RequestRecord } from '../store/requestsRepo'
import { capsSessions, type Key, type SoftRules } from './keyRules'
import { crossedThreshold, type SessionAlertSink } from './sessionAlerts'
import { sessionRequestsReached, sessionRequestTooDear, sessionSpendReached } from './refusals'

/** What the store holds of one session on one key: its recorded cost and its requests (token counts aside). */
export interface SessionTotals {
  pico: bigint
  requests: number
}

interface Session {
  keyName: string
  spentPico: bigint
  requests: number
  reservedPico: bigint
  inFlight: number
  /** The store's part still being read; admissions wait for it. */
  loading: Promise<void> | null
}

/** What an admitted request holds of its session until it is recorded. */
export interface SessionHold {
  session: Session
  pico: bigint
}

/** Sessions kept in memory; beyond this, idle ones are dropped and read from the store again when they return. */
const MAX_SESSIONS = 10_000

const keyOf = (keyId: string, sessionId: string) => `${keyId}\n${sessionId}`

/**
 * Each session's spend and request count per key, in memory, for the keys' per-session limits
 * and the settings' session alert. A session is read from the store once (`loading`, after the
 * record writer committed what it held), and from then on every record of it is added as it is queued, so memory and store
 * agree. Admission works as a prepaid balance's does: a request is admitted only when the
 * session's recorded cost, what its requests in flight reserved and this request's expected cost
 * stay within the limit (and its recorded and in-flight requests below the request limit), so
 * parallel requests of one session cannot pass a limit together.
 */
export class SessionSpend {
  private sessions = new Map<string, Session>()

  constructor(
    private readonly totalsOf: (keyId: string, sessionId: string) => Promise<SessionTotals>,
    private readonly records: Pick<RecordSink, 'flushed' | 'unwritten'>,
    private readonly alerts: SessionAlertSink,
  ) {}

  /** Whether a request of this session is held against it: its key limits sessions, or sessions raise alerts. */
  private watches(key: Key, sessionId: string | null): sessionId is string {
    return sessionId !== null && (capsSessions(key.rules) || this.alerts.threshold() !== null)
  }

  /**
   * Null when this request's session is not watched or is in memory; otherwise a promise that
   * reads it from the store once the record writer has committed what it held (awaited, never
   * blocked on), counting the session's records still in the writer. A record the thread commits
   * in between is counted twice, which errs towards refusing, never towards passing a limit.
   */
  loading(key: Key, sessionId: string | null): Promise<void> | null {
    if (!this.watches(key, sessionId)) return null
    const s = this.sessions.get(keyOf(key.id, sessionId))
    if (s) return s.loading
    return this.records.flushed().then(() => this.read(key, sessionId))
  }

  /**
   * Admits one request of a session or refuses it (`policy_violation`, naming the rule), and
   * holds its expected cost and its place until it is recorded. Null when the session is not watched.
   */
  admit(key: Key, sessionId: string | null, expectedPico: bigint, endpoint: RequestRecord['endpoint']): SessionHold | null {
    if (!this.watches(key, sessionId)) return null
    const s = this.session(key, sessionId)
    const rules = key.rules
    const maxRequests = rules.policy.max_session_requests
    if (maxRequests !== undefined && s.requests + s.inFlight >= maxRequests)
      throw sessionRequestsReached(endpoint, key.name, maxRequests, s.requests, s.inFlight)
    const limit = rules.sessionPico
    if (limit !== null) {
      const held = s.spentPico + s.reservedPico
      if (held >= limit) throw sessionSpendReached(endpoint, key.name, limit, s.spentPico, s.reservedPico)
      if (held + expectedPico > limit) throw sessionRequestTooDear(endpoint, key.name, limit, s.spentPico, s.reservedPico, expectedPico)
    }
    s.inFlight++
    s.reservedPico += expectedPico
    return { session: s, pico: expectedPico }
  }

  /**
   * Whether the key's soft cap has reached this session: what it spent plus what its requests in
   * flight reserved is at or past the cap's share of the session's limit, or this request's
   * expected cost on the model it asked for would take it past the limit itself (the cheaper
   * model may still fit). Asked in the same turn as `admit`, after `loading`.
   */
  softReached(key: Key, soft: SoftRules, sessionId: string | null, expectedPico: bigint): boolean {
    const limit = key.rules.sessionPico
    if (soft.sessionPico === null || limit === null || !this.watches(key, sessionId)) return false
    const s = this.session(key, sessionId)
    const held = s.spentPico + s.reservedPico
    return held >= soft.sessionPico || held + expectedPico > limit
  }

  /**
   * A request ended and its record was queued: its hold is released and, when its session is in
   * memory, its cost and count added; crossing the alert threshold raises an alert.
   */
  recorded(hold: SessionHold | null, record: RequestRecord | null): void {
    if (hold) {
      hold.session.inFlight--
      hold.session.reservedPico -= hold.pico
    }
    const sessionId = record?.attribution.session_id
    if (!record || !sessionId || !record.key_id || isTokenCount(record)) return
    const s = this.sessions.get(keyOf(record.key_id, sessionId))
    if (!s) return
    const before = s.spentPico
    s.requests++
    s.spentPico += costPico(record)
    const alert = crossedThreshold(this.alerts.threshold(), before, s.spentPico, {
      at: Date.parse(record.created_at),
      key_id: record.key_id,
      key_name: s.keyName,
      session_id: sessionId,
      // The tool as the attribution stage derives it, where it does.
      tool: record.source_tool ?? null,
    })
    if (alert) this.alerts.raise(alert)
  }

  /** The session `loading` read: the core admits in the same turn as the check that it is in memory. */
  private session(key: KeyRow, sessionId: string): Session {
    const s = this.sessions.get(keyOf(key.id, sessionId))
    if (!s || s.loading) throw new Error(`session ${sessionId} of key ${key.id} was admitted before it was read`)
    s.keyName = key.name
    return s
  }

  /**
   * A session as the store has it, plus its records still in the writer, listed before the store
   * is read, plus what is recorded while it is read (the session is in memory from the start).
   */
  private read(key: KeyRow, sessionId: string): Promise<void> {
    const id = keyOf(key.id, sessionId)
    const have = this.sessions.get(id)
    if (have) return have.loading ?? Promise.resolve()
    const pending = this.records.unwritten(key.id).filter((r) => r.attribution.session_id === sessionId && !isTokenCount(r))
    const pendingPico = pending.reduce((sum, r) => sum + costPico(r), 0n)
    const s: Session = { keyName: key.name, spentPico: pendingPico, requests: pending.length, reservedPico: 0n, inFlight: 0, loading: null }
    this.evictIdle()
    this.sessions.set(id, s)
    s.loading = this.totalsOf(key.id, sessionId).then(
      (totals) => {
        s.spentPico += totals.pico
        s.requests += totals.requests
        s.loading = null
      },
      (err: unknown) => {
        if (this.sessions.get(id) === s) this.sessions.delete(id)
        throw err
      },
    )
    return s.loading
  }

  /** Dropping a session loses nothing: the store has all of it once its records are written. */
  private evictIdle(): void {
    if (this.sessions.size < MAX_SESSIONS) return
    for (const [id, s] of this.sessions) {
      if (this.sessions.size < MAX_SESSIONS * 0.9) break
      if (s.inFlight === 0 && !s.loading) this.sessions.delete(id)
    }
  }
}
