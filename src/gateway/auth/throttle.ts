import { SlidingWindow } from '../slidingWindow'

/**
 * Sign-in attempts per user name and per client address: after `limit` failures within the
 * window, further attempts are refused until the oldest failure ages out.
 */
export class SignInThrottle {
  private readonly failures: SlidingWindow

  constructor(
    private readonly limit = 5,
    windowMs = 15 * 60_000,
  ) {
    this.failures = new SlidingWindow(windowMs)
  }

  /**
   * Milliseconds to wait, or 0 when the attempt may be made: then it is reserved, counted as a
   * failure from this moment until `succeed` clears it. Checking a password takes ~100 ms; were
   * an attempt counted only once checked, guesses sent in parallel would all pass the limit.
   */
  reserve(keys: string[], now = Date.now()): number {
    return this.failures.take(keys, this.limit, now)
  }

  succeed(keys: string[]): void {
    this.failures.clear(keys)
  }
}
