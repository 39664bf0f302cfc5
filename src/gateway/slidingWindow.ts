/**
 * Events per key over a sliding window, in memory: a key may have `limit` of them within the
 * window, and the next waits until the oldest ages out. Requests per minute count this way.
 */
export class SlidingWindow {
  private readonly events = new Map<string, number[]>()
  private sweptAt = -Infinity

  constructor(private readonly windowMs: number) {}

  /** Keys with an event still in the window (or not swept yet). */
  get size(): number {
    return this.events.size
  }

  /**
   * Milliseconds until every one of `keys` may have another event, or 0 when they may now: the
   * event is then counted for each of them.
   */
  take(keys: string[], limit: number, now = Date.now()): number {
    this.sweep(now)
    const recent = keys.map((k) => (this.events.get(k) ?? []).filter((t) => t > now - this.windowMs))
    const full = recent.filter((r) => r.length >= limit)
    if (full.length > 0) {
      keys.forEach((k, i) => this.events.set(k, recent[i]))
      return Math.max(...full.map((r) => r[0] + this.windowMs - now))
    }
    keys.forEach((k, i) => this.events.set(k, [...recent[i], now]))
    return 0
  }

  /**
   * Once a window, forgets keys whose events have all aged out: keys seen once would otherwise
   * grow the map for as long as the process runs.
   */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.windowMs) return
    this.sweptAt = now
    for (const [k, times] of this.events) if (times.length === 0 || times[times.length - 1] <= now - this.windowMs) this.events.delete(k)
  }
}
