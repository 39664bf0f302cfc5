import type { Sink } from '../../core/sink'
import { OK, type Finished } from '../../core/wire'
import type { ApiError } from '../../errors'
import { upstreamIncomplete } from '../../upstream/upstreamErrors'
import { costOf, gwExtension } from '../../pipeline/cost'
import type { ClientAbort } from '../../pipeline/clientAbort'
import type { RequestContext } from '../../pipeline/requestContext'
import type { NormalizedUsage } from '../../pricing/types'
import { openAIUsage } from '../../pricing/usage'
import type { Chunk, StreamTranslator } from '../../providers/adapter'
import type { UpstreamResponse } from '../../upstream/client'
import type { SseEvent } from '../../upstream/sse'
import { pumpSse } from '../pumpSse'
import { partialUsage } from '../../pipeline/estimate'

/** Characters of output a chunk carries: content, refusal and tool-call arguments. */
function generatedChars(chunk: Chunk): number {
  let n = 0
  for (const c of chunk.choices ?? []) {
    const d = c.delta
    if (!d) continue
    if (typeof d.content === 'string') n += d.content.length
    if (typeof d.refusal === 'string') n += d.refusal.length
    for (const t of d.tool_calls ?? []) if (typeof t.function?.arguments === 'string') n += t.function.arguments.length
  }
  return n
}

/**
 * Relays a provider stream as OpenAI chunks to the sink (the adapter's translator does the
 * provider's format). Usage is always requested upstream; the usage-only chunk reaches the client
 * only if it asked for it. The finishing chunk is held back until the usage arrives, so the last
 * chunk before [DONE] can carry `gw` (routing and cost) without an extra empty-choices chunk for
 * clients that did not ask for one.
 */
export async function relayChatStream(
  ctx: RequestContext,
  sink: Sink,
  upstream: UpstreamResponse,
  translator: StreamTranslator,
  opts: { includeUsage: boolean; prompt: unknown; signal: ClientAbort },
): Promise<Finished> {
  const { includeUsage, signal } = opts
  const providerId = ctx.target!.provider.id
  sink.open()

  let held: Chunk | null = null
  let usageChunk: Chunk | null = null
  let last: Chunk | null = null
  let usage: NormalizedUsage | null = null
  let finished = false
  let generated = 0
  // Only while body logging is on: the answer as the client saw it, for the request detail.
  const text: string[] | null = ctx.bodies ? [] : null

  /** A stream that did not finish pays for what was generated (partialUsage); an estimate is flagged. */
  const partial = () => {
    const { usage: u, estimated } = partialUsage(usage, opts.prompt, generated)
    ctx.usage = u
    ctx.cost = costOf(ctx, u, estimated)
  }

  const fail = (error: ApiError): Finished => {
    sink.end(held ? [held] : [], error)
    partial()
    return { status: 200, outcome: 'error', error }
  }

  const relay = (chunk: Chunk, asSent?: string) => {
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) {
      if (chunk.usage) usageChunk = chunk
      return
    }
    if (!includeUsage) {
      // OpenAI puts `usage: null` on every chunk once usage is asked for, as the gateway always does.
      if ('usage' in chunk) {
        delete chunk.usage
        asSent = undefined
      }
      // Groq's usage rides in x_groq; a client that did not ask for usage gets none.
      if (chunk.x_groq && typeof chunk.x_groq === 'object' && 'usage' in chunk.x_groq) {
        delete (chunk.x_groq as { usage?: unknown }).usage
        asSent = undefined
      }
    }
    generated += generatedChars(chunk)
    if (text) for (const c of chunk.choices ?? []) if (typeof c.delta?.content === 'string') text.push(c.delta.content)
    last = chunk
    if (held) {
      sink.event(held)
      held = null
    }
    if (chunk.choices?.some((c) => c.finish_reason)) {
      held = chunk
      finished = true
    } else {
      ctx.markFirstByte()
      sink.event(chunk, asSent)
    }
  }

  /** Relays what one read of the upstream held; a Finished when an error event ends the stream. */
  const handle = (events: SseEvent[]): Finished | null => {
    for (const ev of events) {
      const step = translator.event(ev)
      if (step.usage) usage = step.usage
      for (const c of step.chunks) relay(c, step.untouched ? ev.data : undefined)
      if (step.error) return fail(step.error)
    }
    return null
  }

  const ended = await pumpSse(upstream, sink, signal, providerId, { handle, fail, partial })
  if (ended) return ended
  const finishChunk = held as Chunk | null
  if (!finished || !finishChunk) {
    return fail(upstreamIncomplete(providerId))
  }
  ctx.usage = usage
  ctx.cost = costOf(ctx, usage)
  try {
    ctx.beforeDelivery?.()
  } catch (err) {
    // The answer stays unfinished: no finishing chunk, no [DONE].
    held = null
    return fail(err as ApiError)
  }
  if (ctx.bodies && text) ctx.bodies.response = JSON.stringify({ content: text.join(''), finish_reason: finishChunk.choices?.[0]?.finish_reason ?? null })
  const gw = gwExtension(ctx)
  if (includeUsage) {
    const reported = usageChunk as Chunk | null
    const { choices: _c, usage: _u, ...envelope } = reported ?? (last as Chunk | null) ?? finishChunk
    sink.end([finishChunk, { ...envelope, choices: [], usage: reported?.usage ?? (usage ? openAIUsage(usage) : null), gw }], null)
  } else {
    sink.end([{ ...finishChunk, gw }], null)
  }
  return OK
}
