import { ApiError } from '../errors'
import { SlidingWindow } from '../slidingWindow'

const WINDOW_MS = 60_000

/** Requests per minute per key over a sliding window, in memory. */
export class RateLimiter {
  private readonly window = new SlidingWindow(WINDOW_MS)

  check(keyId: string, keyName: string, rpm: number | undefined, now = Date.now()): void {
    if (rpm === undefined) return
    const waitMs = this.window.take([keyId], rpm, now)
    if (waitMs > 0) {
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1000))
      throw new ApiError(
        429,
        'requests',
        `Rate limit reached for key "${keyName}": ${rpm} requests per minute [rule: rpm]. Please try again in ${retryAfter}s.`,
        'rate_limit_exceeded',
        null,
        { 'retry-after': String(retryAfter) },
      )
    }
  }
}
