import { EventEmitter } from 'node:events'

/**
 * A request's end in the shape undici accepts as its `signal` beside an AbortSignal: `aborted`,
 * `reason` and an 'abort' event, fired once.
 *
 * Not an AbortSignal because on Node 20 every AbortSignal is tenured: a loop that only makes
 * signals promotes megabytes per scavenge and runs a mark-compact every few hundred milliseconds
 * (a plain EventTarget or EventEmitter promotes nothing), and young objects its listeners held
 * were dragged along. One signal per request made most of the gateway's old-generation garbage
 * under load, and with it the major GC pauses in its tail latency and its peak RSS.
 */
export class AbortEmitter extends EventEmitter {
  aborted = false
  reason: Error | undefined = undefined

  abort(reason: Error): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.emit('abort')
  }
}

/**
 * Says that the client of one request went away. A real AbortSignal is made only for the rare
 * wait whose API takes nothing else (a retry's back-off).
 */
export class ClientAbort extends AbortEmitter {
  private controller: AbortController | null = null

  override abort(reason: Error = new DOMException('The client closed the connection', 'AbortError')): void {
    super.abort(reason)
    this.controller?.abort(this.reason)
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
