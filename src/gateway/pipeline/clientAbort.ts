import { EventEmitter } from 'node:events'

/**
 * Says that the client of one request went away: `aborted`, `reason` and an 'abort' event, the
 * shape undici accepts as a request's `signal` beside an AbortSignal.
 *
 * Not an AbortSignal because on Node 20 every AbortSignal is tenured: a loop that only makes
 * signals promotes megabytes per scavenge and runs a mark-compact every few hundred milliseconds
 * (a plain EventTarget or EventEmitter promotes nothing), and young objects its listeners held
 * were dragged along. One signal per request made most of the gateway's old-generation garbage
 * under load, and with it the major GC pauses in its tail latency and its peak RSS. A real
 * AbortSignal is made only for the rare waits whose APIs take nothing else (a retry's back-off, a
 * slow client's drain).
 */
export class ClientAbort extends EventEmitter {
  aborted = false
  reason: Error | undefined = undefined
  private controller: AbortController | null = null

  abort(): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = new DOMException('The client closed the connection', 'AbortError')
    this.controller?.abort(this.reason)
    this.emit('abort')
  }

  /** An AbortSignal that follows this one, for APIs that take nothing else. */
  get abortSignal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.aborted) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }
}
