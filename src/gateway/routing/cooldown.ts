import type { RoutingConfig } from './routingConfig'

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

  /** `now`: the gateway's clock. */
  constructor(
    private readonly config: RoutingConfig,
    private readonly now: () => number,
  ) {}

  failure(providerId: string, error: string): void {
    const s = this.states.get(providerId) ?? { failures: 0, lastError: '', until: 0 }
    s.failures++
    s.lastError = error
    if (s.failures >= this.config.cooldownAfterFailures) s.until = this.now() + this.config.cooldownMs
    this.states.set(providerId, s)
  }

  success(providerId: string): void {
    this.states.delete(providerId)
  }

  /** Why the provider is being skipped, or null when it may be tried. */
  cooling(providerId: string): { until: number; failures: number; lastError: string } | null {
    const s = this.states.get(providerId)
    if (!s || s.until <= this.now()) return null
    return { until: s.until, failures: s.failures, lastError: s.lastError }
  }
}
