import type { FastifyReply } from 'fastify'
import type { Sink } from '../core/sink'
import type { ApiError } from '../errors'

/** What Fastify would send for an object; answers serialised by the gateway itself say the same. */
const JSON_TYPE = 'application/json; charset=utf-8'

/** The stream's last events leave in one write with its end: one syscall, not four. */
const DONE = 'data: [DONE]\n\n'

const frame = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`

const ignore = () => {}

/**
 * An answer on a Fastify reply in OpenAI's grammar: JSON, or server-sent events ending in
 * `data: [DONE]` (or in an error event), and errors in OpenAI's shape with their headers.
 */
export class ReplySink implements Sink {
  constructor(private readonly reply: FastifyReply) {}

  async json(text: string): Promise<void> {
    await this.reply.type(JSON_TYPE).send(text)
  }

  open(): void {
    const reply = this.reply
    reply.hijack()
    reply.raw.on('error', ignore)
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
  }

  /**
   * An event nobody changed leaves as the provider's own text (no second serialisation, numbers
   * and key order untouched); one whose `data` spanned lines is framed anew.
   */
  event(data: object, text?: string): void {
    this.reply.raw.write(text !== undefined && !text.includes('\n') ? `data: ${text}\n\n` : frame(data))
  }

  wait(resume: () => void): boolean {
    const out = this.reply.raw
    if (!out.writableNeedDrain) return false
    out.once('drain', resume)
    return true
  }

  end(last: object[], error: ApiError | null): void {
    let text = ''
    for (const event of last) text += frame(event)
    this.reply.raw.end(error ? text + frame(error.toBody()) : text + DONE)
  }

  error(error: ApiError): void {
    if (!this.reply.sent) this.reply.code(error.status).headers(error.headers).send(error.toBody())
  }

  abandon(): void {
    if (!this.reply.sent) this.reply.hijack()
  }
}
