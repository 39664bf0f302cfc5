import type { Attempt } from '../store/requestsRepo'

/** Where routing notes what it tried: every attempt (sent, failed or passed over), and whether anything went out. */
export interface AttemptLog {
  readonly attempts: Attempt[]
  /** Whether any attempt went out to a provider (which may bill it even when it failed). */
  sent: boolean
  /** The request's trace, when tracing is on: told of each attempt as it goes out. */
  readonly trace?: AttemptTrace | null
}

/** A traced request's side of its attempts: a span for each, and what carries that span to the provider. */
export interface AttemptTrace {
  /**
   * An attempt goes out now and will be `attempts[index]`, started at `startedAt`
   * (`performance.now()`): the headers that continue the trace at the provider (`traceparent`,
   * `tracestate`), or null when the gateway is not to send them.
   */
  attempt(index: number, startedAt: number): Record<string, string> | null
}
