import { errors } from 'undici'
import type { AbortEmitter } from './clientAbort'

/** The two kinds of signal a call carries: a request's own (undici-shaped) or a caller's AbortSignal. */
type CallSignal = AbortEmitter | AbortSignal

interface Waiter {
  grant(): void
}

interface Origin {
  busy: number
  /** In arrival order; a Set so that a waiter who leaves is taken out at once, wherever it stands. */
  waiting: Set<Waiter>
}

function onAbort(signal: CallSignal, fn: () => void): () => void {
  if ('addEventListener' in signal) {
    signal.addEventListener('abort', fn, { once: true })
    return () => signal.removeEventListener('abort', fn)
  }
  signal.once('abort', fn)
  return () => signal.removeListener('abort', fn)
}

const reasonOf = (signal: CallSignal): unknown => signal.reason ?? new errors.RequestAbortedError()

/**
 * At most `limit` calls in flight to each origin; the others wait here, in arrival order.
 *
 * The line is the gateway's own rather than the connection pool's because undici looks at a
 * queued request's signal only when a connection frees up for it: a call whose client had left
 * stayed queued (its record waiting with it) until then, and its late abort destroyed the freed
 * keep-alive connection. A call that leaves this line is gone at once and never reaches a
 * connection, so nothing is ever sent for a client that is not there.
 */
export class OriginSlots {
  private readonly origins = new Map<string, Origin>()
  /** Calls holding or waiting for a slot, over all origins. */
  private calls = 0
  private idleWaiters: Array<() => void> = []

  constructor(readonly limit: number) {}

  /**
   * Takes a slot for a call to `origin`: null when it is taken at once, otherwise a promise that
   * settles when a slot is handed over, or rejects with the signal's reason if it fires first.
   * Every slot taken must be given back with `give`.
   */
  take(origin: string, signal: CallSignal | undefined): Promise<void> | null {
    if (signal?.aborted) return Promise.reject(reasonOf(signal))
    let o = this.origins.get(origin)
    if (!o) this.origins.set(origin, (o = { busy: 0, waiting: new Set() }))
    this.calls++
    if (o.busy < this.limit) {
      o.busy++
      return null
    }
    const line = o.waiting
    return new Promise<void>((resolve, reject) => {
      const stop = signal
        ? onAbort(signal, () => {
            line.delete(waiter)
            this.left()
            reject(reasonOf(signal))
          })
        : null
      const waiter: Waiter = {
        grant: () => {
          stop?.()
          resolve()
        },
      }
      line.add(waiter)
    })
  }

  /** Frees a slot: the first call waiting gets it. */
  give(origin: string): void {
    const o = this.origins.get(origin)!
    const next = o.waiting.values().next()
    if (next.done) o.busy--
    else {
      o.waiting.delete(next.value)
      next.value.grant()
    }
    this.left()
  }

  /** Resolves once no call holds or waits for a slot, so a pool being replaced can close without refusing one. */
  idle(): Promise<void> {
    if (this.calls === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  private left(): void {
    if (--this.calls > 0 || this.idleWaiters.length === 0) return
    for (const resolve of this.idleWaiters) resolve()
    this.idleWaiters = []
  }

  /** Calls waiting for a slot to `origin`. */
  waiting(origin: string): number {
    return this.origins.get(origin)?.waiting.size ?? 0
  }
}
