import type { Attempt } from '../store/requestsRepo'

/** Where routing notes what it tried: every attempt (sent, failed or passed over), and whether anything went out. */
export interface AttemptLog {
  readonly attempts: Attempt[]
  /** Whether any attempt went out to a provider (which may bill it even when it failed). */
  sent: boolean
}
