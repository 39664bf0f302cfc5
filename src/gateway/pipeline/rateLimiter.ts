import { ApiError } from '../errors'

const WINDOW_MS = 60_000

/** Requests per minute per key over a sliding window, in memory. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>()

  check(keyId: string, keyName: string, rpm: number | undefined, now = Date.now()): void {
    if (rpm === undefined) return
    const recent = (this.hits.get(keyId) ?? []).filter((t) => t > now - WINDOW_MS)
    if (recent.length >= rpm) {
      const retryAfter = Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000))
      this.hits.set(keyId, recent)
      throw new ApiError(
        429,
        'requests',
        `Rate limit reached for key "${keyName}": ${rpm} requests per minute [rule: rpm]. Please try again in ${retryAfter}s.`,
        'rate_limit_exceeded',
        null,
        { 'retry-after': String(retryAfter) },
      )
    }
    recent.push(now)
    this.hits.set(keyId, recent)
  }
}
