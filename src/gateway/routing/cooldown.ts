import { ApiError } from '../errors'
import type { RoutingConfig } from './routingConfig'

/**
 * Whether a failed call says the provider itself is failing, and so counts toward its cool-down:
 * no answer (connection error, timeout), 429 or a 5xx. Its refusals of one request do not, and a
 * provider with no key was never called: cooling it would keep it unavailable for a while after
 * its key is saved.
 */
export const coolsDown = (f: { error: { code: string | null }; upstreamStatus: number | null }): boolean =>
  f.error.code !== 'provider_not_configured' && (f.upstreamStatus === null || f.upstreamStatus >= 500 || f.upstreamStatus === 429)

/** What a call to a provider that is cooling down gets: a 503 saying why, and when to try again. */
export function coolingError(providerId: string, cooling: { until: number; lastError: string }, now: number): ApiError {
  return new ApiError(503, 'server_error', `${providerId} is cooling down after repeated failures: ${cooling.lastError}`, 'provider_unavailable', null, {
    'retry-after': String(Math.max(1, Math.ceil((cooling.until - now) / 1000))),
  })
}

interface State {
  failures: number
  lastError: string
  until: number
}

/**
 * A provider that keeps failing is skipped for a while, so requests go straight to a fallback
 * (or fail fast) instead of waiting on it. One success clears its record.
 */
export class Cooldown {
  private readonly states = new Map<string, State>()
  /** Cool-downs begun since start (a failure that extends one under way begins none). */
  started = 0

  /** `now`: the gateway's clock. */
  constructor(
    private readonly config: RoutingConfig,
    private readonly now: () => number,
  ) {}

  failure(providerId: string, error: string): void {
    const s = this.states.get(providerId) ?? { failures: 0, lastError: '', until: 0 }
    s.failures++
    s.lastError = error
    if (s.failures >= this.config.cooldownAfterFailures) {
      const now = this.now()
      if (s.until <= now) this.started++
      s.until = now + this.config.cooldownMs
    }
    this.states.set(providerId, s)
  }

  /** After a success, or once the provider's settings or key changed: its failures so far no longer say anything. */
  clear(providerId: string): void {
    this.states.delete(providerId)
  }

  /** How many providers are being skipped now. */
  coolingCount(): number {
    const now = this.now()
    let n = 0
    for (const s of this.states.values()) if (s.until > now) n++
    return n
  }

  /** Why the provider is being skipped, or null when it may be tried. */
  cooling(providerId: string): { until: number; failures: number; lastError: string } | null {
    const s = this.states.get(providerId)
    if (!s || s.until <= this.now()) return null
    return { until: s.until, failures: s.failures, lastError: s.lastError }
  }
}
