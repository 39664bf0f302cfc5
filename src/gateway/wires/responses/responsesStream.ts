import type { Sink } from '../../core/sink'
import { OK, type Finished } from '../../core/wire'
import { ApiError } from '../../errors'
import type { ClientAbort } from '../../pipeline/clientAbort'
import { costOf, gwExtension } from '../../pipeline/cost'
import type { RequestContext } from '../../pipeline/requestContext'
import type { NormalizedUsage } from '../../pricing/types'
import { normalizeResponsesUsage } from '../../pricing/usage'
import type { Redactor } from '../../secrets/redactor'
import type { UpstreamResponse } from '../../upstream/client'
import type { SseEvent } from '../../upstream/sse'
import { parseUpstreamError, upstreamIncomplete } from '../../upstream/upstreamErrors'
import { partialUsage } from '../../pipeline/estimate'
import { endStream, failStream, pumpSse } from '../pumpSse'

/** The events a Responses stream ends with; each carries the whole response, usage included. */
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed'])

type ResponseEvent = { type: string; response?: Record<string, unknown> & { usage?: unknown; error?: unknown } }

/** An `error` event, or a `response.failed` one's `response.error`, as the gateway's error for the record and the client. */
function streamFailure(providerId: string, text: string, redactor: Redactor): ApiError {
  const e = parseUpstreamError(text, redactor)
  return new ApiError(502, 'server_error', `${providerId} failed mid-stream (${e.code ?? e.type ?? 'error'}): ${e.message}`, 'upstream_error')
}

const DELTA = '"delta":"'

/**
 * The length of a delta event's `delta` text, found without parsing the event (it is read for
 * every delta, and used only to estimate a stream that ends without its usage): up to the next
 * `",` or the end; escapes count as the characters they are written with.
 */
function deltaChars(data: string): number {
  const at = data.indexOf(DELTA)
  if (at === -1) return 0
  const end = data.indexOf('",', at + DELTA.length)
  return (end === -1 ? data.length : end) - at - DELTA.length
}

/**
 * Relays a Responses stream event by event as the provider wrote it (no parse and no
 * re-encoding, except of the event that ends it). That event (`response.completed`,
 * `response.incomplete` or `response.failed`) carries the usage, and is held back until the answer
 * is priced and a prepaid charge is in the ledger; it then goes out with `gw` (routing and cost)
 * on its `response`, where the SDKs' accumulators keep it on the final response object. A stream
 * that ends without one ends with an `error` event, as OpenAI's do.
 */
export async function relayResponsesStream(
  ctx: RequestContext,
  sink: Sink,
  upstream: UpstreamResponse,
  opts: {
    signal: ClientAbort
    redactor: Redactor
    /** The provider stores the answer: its id goes into the record. */
    stored: boolean
    /** What the prompt is estimated from when the stream ends without its usage. */
    prompt: unknown
  },
): Promise<Finished> {
  const { signal, redactor } = opts
  const providerId = ctx.target!.provider.id
  sink.open()
  let terminal: ResponseEvent | null = null
  let usage: NormalizedUsage | null = null
  let generated = 0
  // Only while body logging is on: the events as the client saw them, for the request detail.
  const logged: string[] | null = ctx.bodies ? [] : null

  const price = (estimated: boolean) => {
    ctx.usage = usage
    ctx.cost = costOf(ctx, usage, estimated)
  }
  /** Usage arrives only with the last event: a stream cut short pays for its prompt and what was sent, estimated. */
  const partial = () => {
    const { usage: u, estimated } = partialUsage(usage, opts.prompt, generated)
    usage = u
    price(estimated)
  }
  const fail = (error: ApiError): Finished => failStream(sink, [], error, partial)
  const handle = (events: SseEvent[]): Finished | null => {
    for (const ev of events) {
      // OpenAI names each event twice (`event:` and the data's `type`); a server that sends only the data has it read there.
      const type = ev.event ?? (JSON.parse(ev.data) as { type?: string }).type
      if (type === 'error') return fail(streamFailure(providerId, ev.data, redactor))
      if (type !== undefined && TERMINAL.has(type)) {
        // The one event parsed and sent again: any echo of a credential in its error goes no further.
        const text = redactor.scrub(ev.data)
        terminal = JSON.parse(text) as ResponseEvent
        usage = normalizeResponsesUsage(terminal.response)
        if (logged) logged.push(text)
        continue
      }
      if (type !== undefined && type.endsWith('.delta')) generated += deltaChars(ev.data)
      if (logged) logged.push(ev.data)
      ctx.markFirstByte()
      sink.event({ type }, ev.data)
    }
    return null
  }

  const ended = await pumpSse(upstream, sink, signal, providerId, { handle, fail, partial })
  if (ended) return ended
  const last = terminal as ResponseEvent | null
  if (last === null || !last.response) return fail(upstreamIncomplete(providerId))
  if (opts.stored && typeof last.response.id === 'string') ctx.upstreamId = last.response.id
  price(false)
  last.response.gw = gwExtension(ctx)
  const done = endStream(ctx, sink, [last], logged && `[${logged.join(',')}]`, fail)
  if (done !== OK || last.type !== 'response.failed') return done
  return { status: 200, outcome: 'error', error: streamFailure(providerId, JSON.stringify(last.response.error ?? {}), redactor) }
}
