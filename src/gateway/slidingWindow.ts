/**
 * Events per key over a sliding window, in memory: a key may have `limit` of them within the
 * window, and the next waits until the oldest ages out. Requests per minute and sign-in failures
 * both count this way.
 */
export class SlidingWindow {
  private readonly events = new Map<string, number[]>()

  constructor(private readonly windowMs: number) {}

  /**
   * Milliseconds until every one of `keys` may have another event, or 0 when they may now: the
   * event is then counted for each of them.
   */
  take(keys: string[], limit: number, now = Date.now()): number {
    const recent = keys.map((k) => (this.events.get(k) ?? []).filter((t) => t > now - this.windowMs))
    const full = recent.filter((r) => r.length >= limit)
    if (full.length > 0) {
      keys.forEach((k, i) => this.events.set(k, recent[i]))
      return Math.max(...full.map((r) => r[0] + this.windowMs - now))
    }
    keys.forEach((k, i) => this.events.set(k, [...recent[i], now]))
    return 0
  }

  /** Forgets the keys' events. */
  clear(keys: string[]): void {
    for (const k of keys) this.events.delete(k)
  }
}
