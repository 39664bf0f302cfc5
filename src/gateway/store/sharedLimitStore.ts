import type { SoftLimit } from '../../contract/keys'
/**
 * Limits several gateways hold together in their one database (PostgreSQL): each admission of a
 * limited key is checked and reserved there in one round trip, and settled there when it ends.
 * A store only one process serves (SQLite) has none: that process holds them in memory.
 */
export interface SharedLimitStore {
  /** Admits one request, reserving what it asks (on the soft cap's model when it switched there), or says which limit refused it. */
  admit(a: LimitAdmission): Promise<LimitAnswer>
  /** Releases a request's hold and books its charge; the session's spend after it when the session is held, else null. */
  settle(s: LimitSettlement): Promise<bigint | null>
  /** This gateway is alive: its holds stay held. */
  heartbeat(instanceId: string, name: string): Promise<void>
  /** This gateway shuts down: its holds are released and it is forgotten. */
  leave(instanceId: string): Promise<void>
  /** Releases the holds of gateways not seen for `silentMs`, and forgets old rate events and idle sessions; how many holds were released. */
  reap(silentMs: number, sessionIdleMs: number): Promise<number>
}

export interface LimitAdmission {
  requestId: string
  instanceId: string
  keyId: string
  rpm: number | null
  prepaid: boolean
  expectedPico: bigint
  dayStart: number | null
  dayLimitPico: bigint | null
  monthStart: number | null
  monthLimitPico: bigint | null
  /** The session when the key limits sessions, else null. */
  sessionId: string | null
  sessionRequests: number | null
  sessionLimitPico: bigint | null
  /**
   * The key's soft cap, when it has one that may serve this request: what the request is expected
   * to cost on its model, and the share of each limit checked here (null: not checked) from which
   * the request goes there. It goes there too when its expected cost on the model it asked for
   * would take its session past the session's limit.
   */
  soft: { expectedPico: bigint; dayPico: bigint | null; monthPico: bigint | null; sessionPico: bigint | null } | null
  /**
   * What this gateway's record writer still holds of the key, counted when a counter starts from
   * the records (a new session, period or limit): the session's cost and requests, the period's
   * cost. Not `counted` (zeros): a counter that must start is not started, and the admission
   * answers `unstarted`.
   */
  unwritten: { counted: boolean; dayPico: bigint; monthPico: bigint; sessionPico: bigint; sessionRequests: number }
}

/** Which limit refused, with its figures (see `gw_admit`). */
export interface LimitRefusal {
  refusal: 'rpm' | 'session_requests' | 'session_usd' | 'session_usd_request' | 'balance' | 'daily' | 'monthly' | 'unstarted'
  a: bigint
  b: bigint
}

/**
 * An admission's answer: a refusal, or none (admitted); either way the limit near which the soft
 * cap sent it to its model, once that was decided (a refusal after it was of the soft cap's model).
 */
export type LimitAnswer = (LimitRefusal | { refusal: null; a: bigint; b: bigint }) & { soft: SoftLimit | null }

export interface LimitSettlement {
  requestId: string
  keyId: string
  chargePico: bigint
  /** Write the charge to the ledger too (a prepaid key's debit). */
  debit: boolean
  /** The request's time, the debit's. */
  at: number
  dayStart: number | null
  monthStart: number | null
  sessionId: string | null
}
