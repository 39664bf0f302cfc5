import type { AttemptTrace } from '../pipeline/attemptLog'
import type { Bodies } from '../store/recordBatch'
import type { RequestRecord } from '../store/requestsRepo'

/**
 * Who learns of each recorded request besides the store and the log (metrics; a trace, begun
 * with its request, hears of its record through its RequestTrace). Called on
 * the request's own turn, after its record is queued: an observer must be cheap, keep no
 * reference it does not need, and never throw into the request.
 */
export interface RequestObserver {
  recorded(record: RequestRecord): void
}

/**
 * One request's trace, begun when the request is and ended with its record: the spans of its
 * attempts as they go out (AttemptTrace), then its own, from what the record says.
 */
export interface RequestTrace extends AttemptTrace {
  /** The request is recorded: its span gets the record's attributes (and the bodies, when content capture is on) and ends. */
  recorded(record: RequestRecord, bodies: Bodies | null): void
}

/** Tracing, when it is on (only then does anything of it touch a request). */
export interface RequestTracer {
  /** A request begins: its trace, continuing the client's `traceparent` when it sent one. */
  begin(rawHeaders: readonly string[]): RequestTrace
  /** Exports what is left and stops. */
  shutdown(): Promise<void>
}
