import type { FastifyReply } from 'fastify'
import type { Sink } from '../core/sink'
import type { ApiError } from '../errors'

/** What Fastify would send for an object; answers serialised by the gateway itself say the same. */
const JSON_TYPE = 'application/json; charset=utf-8'

/** An error answered before the stream began: its status, headers and body in the wire's shape. */
export interface ErrorReply {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** How one wire frames its events and tells its errors on HTTP. */
export interface Grammar {
  /** The header the wire's SDKs send the key in rather than `Authorization` (Anthropic's `x-api-key`, Google's `x-goog-api-key`). */
  readonly apiKeyHeader?: string
  /** The wire also takes the key as `?key=` (Google's). */
  readonly queryKey?: boolean
  /** A stream's content type, where it is not server-sent events (Google's streamed JSON array). */
  readonly contentType?: string
  /** One event; `text` is its JSON when untouched since the provider sent it. */
  frame(event: object, text?: string): string
  /** One event from its JSON text alone (one line), where the grammar frames nothing else of it. */
  readonly frameText?: (text: string) => string
  /** What follows the last event of a complete stream. */
  readonly done: string
  /** An error inside a stream that already began. */
  streamError(error: ApiError): string
  /** An error before anything was sent. */
  errorReply(error: ApiError): ErrorReply
}

const dataFrame = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`

/**
 * A named event (`event: <type>`, then its data) as the Messages and Responses APIs send them; the
 * type is the event object's. A relayed event is `{type}` and the provider's text, and text that
 * spanned lines keeps them, each its own data line; an event that came without a name goes without.
 */
export function namedFrame(event: object, text?: string): string {
  const type = (event as { type?: unknown }).type
  const data = text === undefined ? JSON.stringify(event) : text.includes('\n') ? text.replace(/\n/g, '\ndata: ') : text
  return `${typeof type === 'string' ? `event: ${type}\n` : ''}data: ${data}\n\n`
}

/** OpenAI's: `data:` lines ending in `data: [DONE]`, errors in OpenAI's shape with their own status. */
export const openAIGrammar: Grammar = {
  // An event whose `data` spanned lines is framed anew.
  frame: (event, text) => (text !== undefined && !text.includes('\n') ? `data: ${text}\n\n` : dataFrame(event)),
  frameText: (text) => `data: ${text}\n\n`,
  done: 'data: [DONE]\n\n',
  streamError: (error) => dataFrame(error.toBody()),
  errorReply: (error) => ({ status: error.status, headers: error.headers, body: error.toBody() }),
}

const ignore = () => {}

/**
 * An answer on a Fastify reply in a wire's grammar: JSON, or server-sent events ending with the
 * grammar's end (or its error event), and errors in the wire's shape with their headers.
 */
export class ReplySink implements Sink {
  readonly eventText?: (text: string) => void
  /** The frames of the read being relayed, written together once it is all given (`wait`) or with the end. */
  private pending = ''

  constructor(
    private readonly reply: FastifyReply,
    private readonly grammar: Grammar = openAIGrammar,
  ) {
    const frameText = grammar.frameText
    if (frameText)
      this.eventText = (text) => {
        this.pending += frameText(text)
      }
  }

  async json(text: string, headers: Record<string, string>): Promise<void> {
    await this.reply.type(JSON_TYPE).headers(headers).send(text)
  }

  open(): void {
    const reply = this.reply
    reply.hijack()
    reply.raw.on('error', ignore)
    // Set on the fresh object Fastify returns rather than spread into a literal: copying that
    // object (a copy of one without a prototype) cost ~3.3 µs a stream, this ~0.13 (2026-11-26).
    const headers = reply.getHeaders() as Record<string, string>
    // As on a whole answer; a stream's cost is known only at its end, in its `gw` block.
    headers['x-gw-request-id'] = reply.request.id
    headers['content-type'] = this.grammar.contentType ?? 'text/event-stream; charset=utf-8'
    headers['cache-control'] = 'no-cache'
    headers.connection = 'keep-alive'
    headers['x-accel-buffering'] = 'no'
    reply.raw.writeHead(200, headers)
  }

  /**
   * An event nobody changed leaves as the provider's own text (no second serialisation, numbers and
   * key order untouched). The events of one read of the provider leave in one write, at `wait`, as
   * one chunk of the chunked body. A write each left in one send too (Node corks a response's
   * socket for a tick), but each went through Node's write path and made its own chunk, its
   * length line and end included: 27 on a Responses stream read at once.
   */
  event(data: object, text?: string): void {
    this.pending += this.grammar.frame(data, text)
  }

  wait(resume: () => void): boolean {
    const out = this.reply.raw
    if (this.pending.length > 0) {
      out.write(this.pending)
      this.pending = ''
    }
    if (!out.writableNeedDrain) return false
    out.once('drain', resume)
    return true
  }

  /** The stream's last events leave in one write with its end (and those of the read before them not yet written): one syscall, not four. */
  end(last: object[], error: ApiError | null): void {
    let text = this.pending
    this.pending = ''
    for (const event of last) text += this.grammar.frame(event)
    this.reply.raw.end(text + (error ? this.grammar.streamError(error) : this.grammar.done))
  }

  error(error: ApiError): void {
    if (this.reply.sent) return
    const { status, headers, body } = this.grammar.errorReply(error)
    this.reply.code(status).headers(headers).send(body)
  }

  abandon(): void {
    if (!this.reply.sent) this.reply.hijack()
  }
}
