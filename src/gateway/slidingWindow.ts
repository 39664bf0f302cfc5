/** One key's events in the order they came, those before `head` aged out. */
interface Events {
  at: number[]
  head: number
}

/**
 * Events per key over a sliding window, in memory: a key may have `limit` of them within the
 * window, and the next waits until the oldest ages out. Requests per minute count this way.
 * Events age out from the front of each key's queue, so an event costs the same however many
 * the window holds (a key at 60,000 a minute filtered its whole minute on every request before).
 */
export class SlidingWindow {
  private readonly events = new Map<string, Events>()
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
  take(keys: string[], limit: number, now: number): number {
    this.sweep(now)
    const events = keys.map((k) => this.inWindow(k, now))
    const full = events.filter((e) => e.at.length - e.head >= limit)
    if (full.length > 0) return Math.max(...full.map((e) => e.at[e.head] + this.windowMs - now))
    for (const e of events) e.at.push(now)
    return 0
  }

  /** The key's events, those aged out by `now` dropped from the front (the array is compacted once half of it is dropped). */
  private inWindow(key: string, now: number): Events {
    let e = this.events.get(key)
    if (!e) {
      e = { at: [], head: 0 }
      this.events.set(key, e)
    }
    while (e.head < e.at.length && e.at[e.head] <= now - this.windowMs) e.head++
    if (e.head > 32 && e.head * 2 >= e.at.length) {
      e.at = e.at.slice(e.head)
      e.head = 0
    }
    return e
  }

  /**
   * Once a window, forgets keys whose events have all aged out: keys seen once would otherwise
   * grow the map for as long as the process runs.
   */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.windowMs) return
    this.sweptAt = now
    for (const [k, e] of this.events) if (e.at.length === e.head || e.at[e.at.length - 1] <= now - this.windowMs) this.events.delete(k)
  }
}
