import type { Sink } from '../core/sink'
import type { Delivered, Delivery } from '../core/wire'
import type { ApiError } from '../errors'
import type { GwBlock } from '../pipeline/cost'
import type { NormalizedUsage } from '../pricing/types'
import type { UpstreamResponse } from '../upstream/client'
import { SseParser, type SseEvent } from '../../shared/sse'
import { upstreamStreamError } from '../upstream/upstreamErrors'

/** What a stream that did not finish is charged for, and whether that is an estimate. */
export interface CutShort {
  usage: NormalizedUsage | null
  estimated: boolean
}

/** What a stream relay does with the provider's events, whatever its wire. */
export interface SseHandler {
  /** Relays what one read held; what ended the stream when an event ends it early. */
  handle(events: SseEvent[]): Delivered | null
  /** Ends the stream with an error event, charged for what was generated. */
  fail(error: ApiError): Delivered
  /** What was generated when the client went away. */
  partial(): CutShort
}

/**
 * Reads a provider's event stream into `h`, read by read. Resolves to what ended it early, or to
 * null when the body ended. Events rather than `for await`: no promise per read, and the client's
 * backpressure pauses the upstream as a pipe does. A client that leaves aborts the call
 * (ClientAbort), which ends the body with an error, paused or not.
 */
export function pumpSse(upstream: UpstreamResponse, out: Delivery, h: SseHandler): Promise<Delivered | null> {
  const { sink, signal } = out
  const providerId = out.target.provider.id
  const parser = new SseParser()
  const body = upstream.body
  return new Promise<Delivered | null>((resolve) => {
    let settled = false
    const settle = (result: Delivered | null) => {
      if (settled) return
      settled = true
      body.removeListener('data', onData)
      resolve(result)
    }
    const failed = (err: unknown) => {
      // The body destroyed after an error event ends the stream errors too: the answer has ended.
      if (settled) return
      if (signal.aborted) return settle({ status: 200, outcome: 'aborted', ...h.partial() })
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
 * The end of a complete stream, the same for every wire: the core prices `usage`, and what must be
 * stored (a kept answer, a prepaid charge) is stored before the last events leave, in one write
 * with the stream's end; a charge the store refuses leaves the answer unfinished, ended by `fail` instead. `logged`
 * is the answer as body logging keeps it.
 */
export async function endStream(
  out: Delivery,
  usage: NormalizedUsage | null,
  last: (gw: GwBlock) => object[],
  logged: () => string | null,
  fail: (error: ApiError) => Delivered,
): Promise<Delivered> {
  const events = last(out.close(usage))
  const ready = out.ready()
  if (ready) {
    try {
      await ready
    } catch (err) {
      return fail(err as ApiError)
    }
  }
  // A stream whose every event is its last (Google's one-chunk function call) sends its first byte here.
  out.firstByte()
  out.sink.end(events, null)
  return { status: 200, outcome: 'ok', usage, logged: out.logging ? logged() : null }
}

/**
 * A stream that began ends with `error` after `owed` (what the client is owed before it), or with
 * `owed` alone when those events already tell the failure (`told`); charged for what was generated.
 */
export function failStream(sink: Sink, owed: object[], error: ApiError, cut: CutShort, told = false): Delivered {
  sink.end(owed, told ? null : error)
  return { status: 200, outcome: 'error', error, usage: cut.usage, estimated: cut.estimated }
}
