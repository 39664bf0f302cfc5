import type { UpstreamRequest } from '../providers/adapter'
import { escapesAreStringifys, readJsonText, type JsonText, type Span } from '../jsonText'
import { isObj } from '../jsonObject'

/** A request's body as it came: its text, and the value JSON.parse made of it. */
export interface SentBody {
  text: string
  json: unknown
}

/**
 * Below this many characters the body's text is not read: serialising a small body again costs
 * what reading its text does, and noting its fields more (chat completions' bench turn, 249
 * characters: 9.8 µs read against 5.2 serialised; 4,734: 19.4 against 23.9; microbenchmarks with
 * the parse included).
 */
const READ_FROM_CHARS = 4096

/**
 * What the gateway can take from the client's own text instead of serialising a value the client
 * sent again: ~0.75 ms of the event loop for the body and ~1 ms for the prompt's digests on a
 * Claude Code turn of 190 KB (bench/README.md).
 *
 * - The body upstream: where the body built for a provider is the client's (the same fields with
 *   the same values), it goes as the client's text. A native wire builds it so when nothing
 *   steered the request: Claude Code's turn to Anthropic is `{ ...body, model }` with its model as
 *   sent, Google's body goes as written.
 * - A part of the prompt (a message, a tool), for its digest: the text it was read from, where
 *   that text is what JSON.stringify writes of it.
 *
 * The body's fields are noted as the request is read, before any stage runs: admission may set a
 * missing token limit on the body itself. Stages change the body only at its top (a copy, a field
 * set or replaced; estimate.ts's `setLimit` copies a parent it writes into), never inside a value
 * the client sent, so a change anywhere shows among the fields and a value inside is as it came.
 * The text is used only where it means to the provider what it meant to the gateway
 * (`readJsonText`), read once a request and only when first needed.
 */
export class ClientText {
  private readonly fields: Map<string, unknown>
  private read: JsonText | null | undefined
  /** The text of each top-level field's value and array element the client sent, by the value: made on the first look-up. */
  private spans: Map<unknown, Span> | null | undefined

  private constructor(private readonly sent: SentBody) {
    this.fields = new Map(Object.entries(sent.json as object))
  }

  /** None for a body that is not a JSON object (no wire builds from one), a small one, or none at all. */
  static of(sent: SentBody | null): ClientText | null {
    return sent !== null && sent.text.length >= READ_FROM_CHARS && isObj(sent.json) ? new ClientText(sent) : null
  }

  /** `request`, its body's text the client's where the body is the client's own. */
  forRequest(request: UpstreamRequest): UpstreamRequest {
    return this.isSent(request.body) && this.reading() !== null ? { ...request, text: this.sent.text } : request
  }

  /** The client's text of `value`, an object the client sent at the top of its body or in an array there, where it is what JSON.stringify would write; null otherwise. */
  readonly textOf = (value: unknown): string | null => {
    if (typeof value !== 'object' || value === null) return null
    const span = this.spansByValue()?.get(value)
    return span ? this.sent.text.slice(span.start, span.end) : null
  }

  private reading(): JsonText | null {
    if (this.read === undefined) this.read = readJsonText(this.sent.text)
    return this.read
  }

  private spansByValue(): Map<unknown, Span> | null {
    if (this.spans !== undefined) return this.spans
    const read = this.reading()
    if (!read?.plain || !escapesAreStringifys(this.sent.text)) return (this.spans = null)
    const spans = new Map<unknown, Span>()
    for (const [key, span] of read.fields) {
      const value = this.fields.get(key)
      if (typeof value !== 'object' || value === null) continue
      spans.set(value, span)
      if (!span.items || !Array.isArray(value)) continue
      for (let i = 0; i < span.items.length; i++) if (typeof value[i] === 'object' && value[i] !== null) spans.set(value[i], span.items[i])
    }
    return (this.spans = spans)
  }

  private isSent(body: unknown): boolean {
    if (!isObj(body)) return false
    let count = 0
    for (const key in body) {
      if (!Object.hasOwn(body, key)) continue
      const value = body[key]
      if (this.fields.get(key) !== value || (value === undefined && !this.fields.has(key))) return false
      count++
    }
    return count === this.fields.size
  }
}
