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

  /** Milliseconds to wait, or 0 when an attempt may be made. */
  waitMs(keys: string[], now = Date.now()): number {
    let wait = 0
    for (const k of keys) {
      const recent = (this.failures.get(k) ?? []).filter((t) => t > now - this.windowMs)
      this.failures.set(k, recent)
      if (recent.length >= this.limit) wait = Math.max(wait, recent[0] + this.windowMs - now)
    }
    return wait
  }

  fail(keys: string[], now = Date.now()): void {
    for (const k of keys) this.failures.set(k, [...(this.failures.get(k) ?? []), now])
  }

  succeed(keys: string[]): void {
    for (const k of keys) this.failures.delete(k)
  }
}
