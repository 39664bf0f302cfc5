import { SlidingWindow } from '../slidingWindow'
import { rateLimited } from './refusals'

const WINDOW_MS = 60_000

/** Requests per minute per key over a sliding window, in memory, timed by the gateway's clock. */
export class RateLimiter {
  private readonly window = new SlidingWindow(WINDOW_MS)

  constructor(private readonly clock: () => number) {}

  check(keyId: string, keyName: string, rpm: number | undefined): void {
    if (rpm === undefined) return
    const waitMs = this.window.take([keyId], rpm, this.clock())
    if (waitMs > 0) throw rateLimited(keyName, rpm, waitMs)
  }
}
