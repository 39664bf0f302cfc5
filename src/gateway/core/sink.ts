import type { ApiError } from '../errors'

/**
 * Where the core delivers one answer: an HTTP reply, the Playground's event stream, a test. The
 * wire decides what the events are (OpenAI chunks on chat completions); the sink decides how they
 * travel (SSE framing, Playground events). Events are passed as the wire built them, with their
 * JSON text when the provider's text can go out as it came, so a sink that writes text never
 * serialises an untouched event again and one that reads objects never parses.
 */
export interface Sink {
  /** A whole answer, as the JSON text that goes out, with the gateway's headers (request id, cost). */
  json(text: string, headers: Record<string, string>): Promise<void>
  /** The answer is a stream from here on: its status is sent, and a later error travels inside it. */
  open(): void
  /** One event of the stream; `text` is its JSON when untouched since the provider sent it. */
  event(data: object, text?: string): void
  /**
   * One event given as its JSON text alone, where the sink frames text and nothing else (a reply
   * on chat completions): absent on a sink that reads the events as objects.
   */
  readonly eventText?: (text: string) => void
  /**
   * Called once the events of one read of the provider are all given: a sink that gathers them
   * writes them here, together. True when the reader is behind: `resume` is called once it caught
   * up, and the caller stops reading upstream until then (the client's backpressure reaches the
   * provider).
   */
  wait(resume: () => void): boolean
  /** The stream's last events and its end, in one write: complete, or ended by `error`. */
  end(last: object[], error: ApiError | null): void
  /** The call failed: answers with the error, unless the answer already began (a stream tells it inside). */
  error(error: ApiError): void
  /** The client went away: nothing more is sent. */
  abandon(): void
}
