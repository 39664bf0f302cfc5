import { SlidingWindow } from '../slidingWindow'
import { rateLimited } from './refusals'

const WINDOW_MS = 60_000

/** Requests per minute per key over a sliding window, in memory. */
export class RateLimiter {
  private readonly window = new SlidingWindow(WINDOW_MS)

  check(keyId: string, keyName: string, rpm: number | undefined, now = Date.now()): void {
    if (rpm === undefined) return
    const waitMs = this.window.take([keyId], rpm, now)
    if (waitMs > 0) throw rateLimited(keyName, rpm, waitMs)
  }
}
