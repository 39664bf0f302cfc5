import type { Sink } from '../../core/sink'
import type { Finished } from '../../core/wire'
import type { ApiError } from '../../errors'
import { upstreamIncomplete } from '../../upstream/upstreamErrors'
import type { ClientAbort } from '../../upstream/clientAbort'
import { costOf, gwExtension } from '../../pipeline/cost'
import type { RequestContext } from '../../pipeline/requestContext'
import { anthropicStreamError } from '../../providers/anthropic/errors'
import type { AnthropicUsage } from '../../providers/anthropic/types'
import { normalizeAnthropicUsage } from '../../providers/anthropic/usage'
import type { Redactor } from '../../secrets/redactor'
import type { UpstreamResponse } from '../../upstream/client'
import type { SseEvent } from '../../../shared/sse'
import { endStream, failStream, pumpSse } from '../pumpSse'

/** A later report replaces a field only with a number: message_delta may send nulls for what message_start told. */
function mergeUsage(into: AnthropicUsage, report: AnthropicUsage | undefined): AnthropicUsage {
  if (!report) return into
  const out: Record<string, unknown> = { ...into }
  for (const [k, v] of Object.entries(report)) if (v !== null && v !== undefined) out[k] = v
  return out as AnthropicUsage
}

/**
 * Relays an Anthropic stream event by event as the provider wrote it (no parse and no
 * re-encoding, except of the two events that carry usage). `message_stop` is held back until the
 * answer is priced and a prepaid charge is in the ledger, so that a `gw` event (routing and cost;
 * the Anthropic SDKs skip event types they do not know) can go just before it.
 */
export async function relayMessagesStream(ctx: RequestContext, sink: Sink, upstream: UpstreamResponse, signal: ClientAbort, redactor: Redactor): Promise<Finished> {
  const providerId = ctx.target!.provider.id
  sink.open()
  let usage: AnthropicUsage | null = null
  let stop: string | null = null
  // Only while body logging is on: the events as the client saw them, for the request detail.
  const logged: string[] | null = ctx.bodies ? [] : null

  /** A stream that did not finish is priced on the usage reported so far (the prompt, in message_start), as an estimate. */
  const price = (estimated: boolean) => {
    ctx.usage = usage ? normalizeAnthropicUsage(usage) : null
    ctx.cost = costOf(ctx, ctx.usage, estimated)
  }
  const partial = () => price(true)
  const fail = (error: ApiError): Finished => failStream(sink, [], error, partial)
  const handle = (events: SseEvent[]): Finished | null => {
    for (const ev of events) {
      const type = ev.event ?? 'message'
      if (type === 'error') return fail(anthropicStreamError(providerId, ev.data, redactor))
      if (type === 'message_start') usage = mergeUsage({}, JSON.parse(ev.data).message?.usage)
      else if (type === 'message_delta') usage = mergeUsage(usage ?? {}, JSON.parse(ev.data).usage)
      if (logged) logged.push(ev.data)
      if (type === 'message_stop') {
        stop = ev.data
        continue
      }
      ctx.markFirstByte()
      sink.event({ type }, ev.data)
    }
    return null
  }

  const ended = await pumpSse(upstream, sink, signal, providerId, { handle, fail, partial })
  if (ended) return ended
  const last = stop as string | null
  if (last === null) return fail(upstreamIncomplete(providerId))
  price(false)
  return endStream(ctx, sink, [{ type: 'gw', gw: gwExtension(ctx) }, JSON.parse(last)], logged && `[${logged.join(',')}]`, fail)
}
