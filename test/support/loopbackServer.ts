import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fake provider's HTTP server on 127.0.0.1 with a random port. A handler that throws answers
 * 500 with `crashBody` (or drops the socket once a response has started), so a broken fake
 * shows up as a failing test rather than a hang.
 */
export async function listenOnLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onCrash: (res: ServerResponse, err: unknown) => void,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) onCrash(res, err)
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())))
      server.closeAllConnections()
      await closed
    },
  }
}

/** A request as a fake provider received it, kept for the test to read. */
export interface ReceivedRequest {
  method: string
  /** As received: percent-encoding and query (Google's key, `alt`) included. */
  path: string
  headers: IncomingHttpHeaders
  body: any
  /** The body's text, as its bytes came. */
  text: string
}

/** A request's body as JSON; `malformed` when it is not JSON (the fakes answer that like the real API). */
export async function readBody(req: IncomingMessage): Promise<{ body: any; text: string; malformed: boolean }> {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  const text = Buffer.concat(parts).toString('utf8')
  if (text === '') return { body: null, text, malformed: false }
  try {
    return { body: JSON.parse(text), text, malformed: false }
  } catch {
    return { body: text, text, malformed: true }
  }
}
