import { type Delivered, type Delivery, type Finished } from '../core/wire'
import type { ApiError } from '../errors'
import type { GwBlock } from '../pipeline/cost'
import type { NormalizedUsage } from '../pricing/types'
import type { UpstreamResponse } from '../upstream/client'
import type { SseEvent } from '../../shared/sse'
import { upstreamIncomplete } from '../upstream/upstreamErrors'
import { endStream, failStream, pumpSse, type CutShort } from './pumpSse'

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
  partial(): CutShort
  /** The last events of a complete, priced stream, `gw` (routing and cost) among them. */
  last(gw: GwBlock): object[]
  /** How a complete stream ended for the record: OK, or the failure its last event told. */
  outcome(): Finished
  /** The provider's id of the answer it keeps, once the stream completed; null when it keeps none. */
  upstreamId?(): string | null
}

/**
 * Relays a provider's stream in its own wire event by event as the provider wrote it (no parse
 * and no re-encoding, except of what `events` reads). The event that ends it is held back until
 * the answer is priced and a prepaid charge is in the ledger; a stream that ends without it ends
 * with the wire's `error` event, charged for what was generated.
 */
export async function relayNativeStream(out: Delivery, upstream: UpstreamResponse, events: NativeEvents): Promise<Delivered> {
  const sink = out.sink
  sink.open()
  // Only while body logging is on: the events as the client saw them, for the request detail.
  const logged: string[] | null = out.logging ? [] : null

  const fail = (error: ApiError): Delivered => failStream(sink, [], error, events.partial())
  const handle = (evs: SseEvent[]): Delivered | null => {
    for (const ev of evs) {
      const type = events.typeOf(ev)
      if (type === 'error') return fail(events.error(ev.data))
      const held = events.read(type, ev)
      if (logged) logged.push(held ?? ev.data)
      if (held !== undefined) continue
      out.firstByte()
      sink.event({ type }, ev.data)
    }
    return null
  }

  const ended = await pumpSse(upstream, out, { handle, fail, partial: () => events.partial() })
  if (ended) return ended
  const final = events.final()
  if (final === null) return fail(upstreamIncomplete(out.target.provider.id))
  const done = await endStream(
    out,
    final.usage,
    (gw) => events.last(gw),
    () => logged && `[${logged.join(',')}]`,
    fail,
  )
  if (done.outcome !== 'ok') return done
  const how = events.outcome()
  return { status: how.status, outcome: how.outcome, error: how.error, usage: done.usage, logged: done.logged, upstreamId: events.upstreamId?.() ?? null }
}
