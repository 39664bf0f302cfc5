import { OK, type Delivery, type Finished } from '../../core/wire'
import { anthropicStreamError } from '../../providers/anthropic/errors'
import type { AnthropicUsage } from '../../providers/anthropic/types'
import { normalizeAnthropicUsage } from '../../providers/anthropic/usage'
import type { Redactor } from '../../secrets/redactor'
import type { SseEvent } from '../../../shared/sse'
import type { NativeEvents } from '../nativeStream'

/** A later report replaces a field only with a number: message_delta may send nulls for what message_start told. */
function mergeUsage(into: AnthropicUsage, report: AnthropicUsage | undefined): AnthropicUsage {
  if (!report) return into
  const out: Record<string, unknown> = { ...into }
  for (const [k, v] of Object.entries(report)) if (v !== null && v !== undefined) out[k] = v
  return out as AnthropicUsage
}

/**
 * Anthropic's events: usage in `message_start` and `message_delta` (the only two parsed), and
 * `message_stop` held back so that a `gw` event (routing and cost; the Anthropic SDKs skip event
 * types they do not know) can go just before it. A stream that did not finish is priced on the
 * usage reported so far (the prompt, in message_start), as an estimate.
 */
class AnthropicEvents implements NativeEvents {
  private usage: AnthropicUsage | null = null
  private stop: string | null = null

  constructor(
    private readonly providerId: string,
    private readonly redactor: Redactor,
  ) {}

  typeOf = (ev: SseEvent) => ev.event ?? 'message'

  error = (data: string) => anthropicStreamError(this.providerId, data, this.redactor)

  read(type: string | undefined, ev: SseEvent): string | undefined {
    if (type === 'message_start') this.usage = mergeUsage({}, JSON.parse(ev.data).message?.usage)
    else if (type === 'message_delta') this.usage = mergeUsage(this.usage ?? {}, JSON.parse(ev.data).usage)
    else if (type === 'message_stop') return (this.stop = ev.data)
    return undefined
  }

  private normalized = () => (this.usage ? normalizeAnthropicUsage(this.usage) : null)

  final = () => (this.stop === null ? null : { usage: this.normalized() })

  partial = () => ({ usage: this.normalized(), estimated: true })

  last = (gw: object) => [{ type: 'gw', gw }, JSON.parse(this.stop!)]

  outcome = (): Finished => OK
}

/** Anthropic's events of one stream, relayed as the provider wrote them. */
export const anthropicEvents = (out: Delivery): NativeEvents => new AnthropicEvents(out.target.provider.id, out.redactor)
