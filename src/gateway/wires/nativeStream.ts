import type { Sink } from '../core/sink'
import { OK, type Finished } from '../core/wire'
import type { ApiError } from '../errors'
import type { ClientAbort } from '../upstream/clientAbort'
import { costOf, gwExtension } from '../pipeline/cost'
import type { RequestContext } from '../pipeline/requestContext'
import type { NormalizedUsage } from '../pricing/types'
import type { UpstreamResponse } from '../upstream/client'
import type { SseEvent } from '../../shared/sse'
import { upstreamIncomplete } from '../upstream/upstreamErrors'
import { endStream, failStream, pumpSse } from './pumpSse'

/**
 * What one wire's native stream relay knows of its events (Anthropic's Messages, OpenAI's
 * Responses): their types, where usage is reported, the event that ends the stream and the
 * wire's error event. The relay around it is the same for every wire.
 */
export interface NativeEvents {
  /** The event's type: its `event:` name, or where the wire also writes it. */
  typeOf(ev: SseEvent): string | undefined
  /** The gateway's error for the provider's `error` event. */
  error(data: string): ApiError
  /**
   * Reads one event for what the relay needs (usage, text generated). The event that ends the
   * stream is held back: its text (as logged) is returned, and it goes out later, with `gw`.
   */
  read(type: string | undefined, ev: SseEvent): string | undefined
  /** The usage of a complete stream; null when the ending event never came. */
  final(): { usage: NormalizedUsage | null } | null
  /** What a stream cut short is charged for, and whether it is an estimate. */
  partial(): { usage: NormalizedUsage | null; estimated: boolean }
  /** The last events of a complete, priced stream, `gw` (routing and cost) among them. */
  last(gw: ReturnType<typeof gwExtension>): object[]
  /** How a complete stream ended for the record: OK, or the failure its last event told. */
  outcome(): Finished
}

/**
 * Relays a provider's stream in its own wire event by event as the provider wrote it (no parse
 * and no re-encoding, except of what `events` reads). The event that ends it is held back until
 * the answer is priced and a prepaid charge is in the ledger; a stream that ends without it ends
 * with the wire's `error` event, priced on what was generated.
 */
export async function relayNativeStream(
  ctx: RequestContext,
  sink: Sink,
  upstream: UpstreamResponse,
  signal: ClientAbort,
  events: NativeEvents,
): Promise<Finished> {
  const providerId = ctx.target!.provider.id
  sink.open()
  // Only while body logging is on: the events as the client saw them, for the request detail.
  const logged: string[] | null = ctx.bodies ? [] : null

  const partial = () => {
    const { usage, estimated } = events.partial()
    ctx.usage = usage
    ctx.cost = costOf(ctx, usage, estimated)
  }
  const fail = (error: ApiError): Finished => failStream(sink, [], error, partial)
  const handle = (evs: SseEvent[]): Finished | null => {
    for (const ev of evs) {
      const type = events.typeOf(ev)
      if (type === 'error') return fail(events.error(ev.data))
      const held = events.read(type, ev)
      if (logged) logged.push(held ?? ev.data)
      if (held !== undefined) continue
      ctx.markFirstByte()
      sink.event({ type }, ev.data)
    }
    return null
  }

  const ended = await pumpSse(upstream, sink, signal, providerId, { handle, fail, partial })
  if (ended) return ended
  const final = events.final()
  if (final === null) return fail(upstreamIncomplete(providerId))
  ctx.usage = final.usage
  ctx.cost = costOf(ctx, final.usage)
  const done = await endStream(ctx, sink, events.last(gwExtension(ctx)), logged && `[${logged.join(',')}]`, fail)
  return done === OK ? events.outcome() : done
}
