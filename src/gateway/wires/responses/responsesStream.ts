import { OK, type Delivery, type Finished } from '../../core/wire'
import { ApiError } from '../../errors'
import type { NormalizedUsage } from '../../pricing/types'
import { normalizeResponsesUsage } from '../../pricing/usage'
import type { Redactor } from '../../secrets/redactor'
import type { SseEvent } from '../../../shared/sse'
import { parseUpstreamError } from '../../upstream/upstreamErrors'
import { partialUsage } from '../../pipeline/estimate'
import type { NativeEvents } from '../nativeStream'

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
 * OpenAI's Responses events. The event that ends the stream (`response.completed`,
 * `response.incomplete` or `response.failed`) carries the usage and is the one parsed: held back,
 * it goes out with `gw` (routing and cost) on its `response`, where the SDKs' accumulators keep it
 * on the final response object. Usage arrives only with it: a stream cut short pays for its prompt
 * and what was sent, estimated.
 */
class ResponsesNativeEvents implements NativeEvents {
  private terminal: ResponseEvent | null = null
  private usage: NormalizedUsage | null = null
  private generated = 0

  private readonly providerId: string
  private readonly redactor: Redactor

  constructor(
    out: Delivery,
    private readonly opts: ResponsesStreamOptions,
  ) {
    this.providerId = out.target.provider.id
    this.redactor = out.redactor
  }

  // OpenAI names each event twice (`event:` and the data's `type`); a server that sends only the data has it read there.
  typeOf = (ev: SseEvent) => ev.event ?? (JSON.parse(ev.data) as { type?: string }).type

  error = (data: string) => streamFailure(this.providerId, data, this.redactor)

  read(type: string | undefined, ev: SseEvent): string | undefined {
    if (type !== undefined && TERMINAL.has(type)) {
      // The one event parsed and sent again. A failure's is the provider's own error text: any echo
      // of a credential in it goes no further. The others carry the answer the deltas already
      // relayed as they came; scrubbing them (a set lookup at every character of the whole
      // response) cost 26 µs on the bench's 525-character event and 1.1 ms on a 20 KB answer.
      const text = type === 'response.failed' ? this.redactor.scrub(ev.data) : ev.data
      this.terminal = JSON.parse(text) as ResponseEvent
      this.usage = normalizeResponsesUsage(this.terminal.response)
      return text
    }
    if (type !== undefined && type.endsWith('.delta')) this.generated += deltaChars(ev.data)
    return undefined
  }

  final = () => (this.terminal?.response ? { usage: this.usage } : null)

  partial = () => partialUsage(this.usage, this.opts.prompt, this.generated)

  last(gw: object): object[] {
    this.terminal!.response!.gw = gw
    return [this.terminal!]
  }

  upstreamId(): string | null {
    const id = this.terminal?.response?.id
    return this.opts.stored && typeof id === 'string' ? id : null
  }

  /** A relayed `response.failed` ended the stream: the record says error, with the provider's. */
  outcome(): Finished {
    const last = this.terminal!
    if (last.type !== 'response.failed') return OK
    return { status: 200, outcome: 'error', error: streamFailure(this.providerId, JSON.stringify(last.response?.error ?? {}), this.redactor) }
  }
}

/** What a Responses stream relay is told of its request. */
export interface ResponsesStreamOptions {
  /** The provider stores the answer: its id goes into the record. */
  stored: boolean
  /** What the prompt is estimated from when the stream ends without its usage. */
  prompt: unknown
}

/** The events of one Responses stream, relayed as the provider wrote them (no parse and no re-encoding, but of its last event). */
export const responsesEvents = (out: Delivery, opts: ResponsesStreamOptions): NativeEvents => new ResponsesNativeEvents(out, opts)
