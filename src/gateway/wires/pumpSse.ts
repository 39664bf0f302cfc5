import type { Sink } from '../core/sink'
import { OK, type Finished } from '../core/wire'
import type { ApiError } from '../errors'
import type { ClientAbort } from '../upstream/clientAbort'
import type { RequestContext } from '../pipeline/requestContext'
import type { UpstreamResponse } from '../upstream/client'
import { SseParser, type SseEvent } from '../../shared/sse'
import { upstreamStreamError } from '../upstream/upstreamErrors'

/** What a stream relay does with the provider's events, whatever its wire. */
export interface SseHandler {
  /** Relays what one read held; a Finished when an event ends the stream early. */
  handle(events: SseEvent[]): Finished | null
  /** Ends the stream with an error event and prices what was generated. */
  fail(error: ApiError): Finished
  /** Prices what was generated when the client went away. */
  partial(): void
}

/**
 * Reads a provider's event stream into `h`, read by read. Resolves to what ended it early, or to
 * null when the body ended. Events rather than `for await`: no promise per read, and the client's
 * backpressure pauses the upstream as a pipe does. A client that leaves aborts the call
 * (ClientAbort), which ends the body with an error, paused or not.
 */
export function pumpSse(upstream: UpstreamResponse, sink: Sink, signal: ClientAbort, providerId: string, h: SseHandler): Promise<Finished | null> {
  const parser = new SseParser()
  const body = upstream.body
  return new Promise<Finished | null>((resolve) => {
    let settled = false
    const settle = (result: Finished | null) => {
      if (settled) return
      settled = true
      body.removeListener('data', onData)
      resolve(result)
    }
    const failed = (err: unknown) => {
      // The body destroyed after an error event ends the stream errors too: the answer has ended.
      if (settled) return
      if (signal.aborted) {
        h.partial()
        return settle({ status: 200, outcome: 'aborted' })
      }
      settle(h.fail(upstreamStreamError(providerId, err)))
    }
    const resume = () => body.resume()
    const onData = (bytes: Buffer) => {
      try {
        upstream.heard()
        const early = h.handle(parser.push(bytes))
        if (early) {
          body.destroy()
          return settle(early)
        }
        if (sink.wait(resume)) body.pause()
      } catch (err) {
        body.destroy()
        failed(err)
      }
    }
    body.on('data', onData)
    body.on('end', () => {
      try {
        settle(h.handle(parser.end()))
      } catch (err) {
        failed(err)
      }
    })
    // Stays attached once settled: a body that errors with no listener would take the process down.
    body.on('error', failed)
  })
}

/**
 * The end of a complete, priced stream, the same for every wire: a prepaid charge goes into the
 * ledger before the last events leave, in one write with the stream's end; a charge the store
 * refuses leaves the answer unfinished, ended by `fail` instead. `logged` is the answer as body
 * logging keeps it (null when logging is off).
 */
export async function endStream(
  ctx: RequestContext,
  sink: Sink,
  last: object[],
  logged: string | null,
  fail: (error: ApiError) => Finished,
): Promise<Finished> {
  const ready = ctx.readyToDeliver()
  if (ready) {
    try {
      await ready
    } catch (err) {
      return fail(err as ApiError)
    }
  }
  if (ctx.bodies && logged !== null) ctx.bodies.response = logged
  sink.end(last, null)
  return OK
}

/**
 * A stream that began ends with `error` after `owed` (what the client is owed before it), or with
 * `owed` alone when those events already tell the failure (`told`); priced on what was generated.
 */
export function failStream(sink: Sink, owed: object[], error: ApiError, partial: () => void, told = false): Finished {
  sink.end(owed, told ? null : error)
  partial()
  return { status: 200, outcome: 'error', error }
}
