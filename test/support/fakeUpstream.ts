import { PassThrough } from 'node:stream'
import type { UpstreamResponse } from '../../src/gateway/upstream/client'
import type { ClientAbort } from '../../src/gateway/upstream/clientAbort'

/** One server-sent event as a provider writes it. */
export const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`

/**
 * A provider's 200 answer as a delivery reads it (what `callUpstream` returns), its body written
 * by the test: each `send` piece is one read, so a test splits events across reads where it
 * chooses. As the call's guard does, a client that leaves (`signal`) ends the body with an error.
 */
export class FakeUpstream {
  readonly body = new PassThrough()
  /** Reads the delivery told the idle timeout of (`heard`). */
  heard = 0
  readonly response: UpstreamResponse

  constructor(signal?: ClientAbort) {
    this.response = {
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream' },
      trailers: {},
      opaque: null,
      context: {},
      body: this.body,
      heard: () => void this.heard++,
    } as unknown as UpstreamResponse
    signal?.once('abort', () => this.body.destroy(signal.reason))
  }

  /** Writes each piece as a read of its own. */
  send(...pieces: Array<string | Uint8Array>): void {
    for (const piece of pieces) this.body.write(piece)
  }

  /** Writes `text` in reads of `size` bytes, cutting through lines, names and multi-byte characters alike. */
  trickle(text: string, size: number): void {
    const bytes = Buffer.from(text)
    for (let i = 0; i < bytes.length; i += size) this.body.write(bytes.subarray(i, i + size))
  }

  /** The provider ends the body cleanly. */
  end(): void {
    this.body.end()
  }

  /** The connection breaks. */
  cut(err: Error = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })): void {
    this.body.destroy(err)
  }
}
