import type { SignInFailuresRepo } from '../store/signInFailuresRepo'

/**
 * Sign-in attempts per user name and per client address: after `limit` failures within the
 * window, further attempts are refused until the oldest failure ages out. Failures are counted
 * in the store, so every gateway on one database counts the same ones (a guesser spreading
 * attempts over a load balancer's gateways gets `limit`, not `limit` per gateway).
 */
export class SignInThrottle {
  /** When this process last deleted failures no window counts any more. */
  private prunedAt = -Infinity

  constructor(
    private readonly failures: SignInFailuresRepo,
    private readonly limit = 5,
    private readonly windowMs = 15 * 60_000,
  ) {}

  /**
   * Milliseconds to wait, or 0 when the attempt may be made: then it is reserved, counted as a
   * failure from this moment until `succeed` clears it. Checking a password takes ~100 ms; were
   * an attempt counted only once checked, guesses sent in parallel would all pass the limit.
   */
  async reserve(keys: string[], now = Date.now()): Promise<number> {
    // Once a window: failures under made-up user names would otherwise stay for ever.
    if (now - this.prunedAt >= this.windowMs) {
      this.prunedAt = now
      await this.failures.prune(now - this.windowMs)
    }
    return this.failures.reserve(keys, this.limit, this.windowMs, now)
  }

  succeed(keys: string[]): Promise<void> {
    return this.failures.clear(keys)
  }
}
