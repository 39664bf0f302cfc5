/**
 * Sign-in attempts per user name and per client address: after `limit` failures within the
 * window, further attempts are refused until the oldest failure ages out.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly limit = 5,
    private readonly windowMs = 15 * 60_000,
  ) {}

  /**
   * Milliseconds to wait, or 0 when the attempt may be made: then it is reserved, counted as a
   * failure from this moment until `succeed` clears it. Checking a password takes ~100 ms; were
   * an attempt counted only once checked, guesses sent in parallel would all pass the limit.
   */
  reserve(keys: string[], now = Date.now()): number {
    const recent = keys.map((k) => (this.failures.get(k) ?? []).filter((t) => t > now - this.windowMs))
    const full = recent.filter((r) => r.length >= this.limit)
    if (full.length > 0) return Math.max(...full.map((r) => r[0] + this.windowMs - now))
    keys.forEach((k, i) => this.failures.set(k, [...recent[i], now]))
    return 0
  }

  succeed(keys: string[]): void {
    for (const k of keys) this.failures.delete(k)
  }
}
