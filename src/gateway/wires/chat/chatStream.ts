import type { Delivered, Delivery } from '../../core/wire'
import type { ApiError } from '../../errors'
import { upstreamIncomplete } from '../../upstream/upstreamErrors'
import type { GwBlock } from '../../pipeline/cost'
import type { NormalizedUsage } from '../../pricing/types'
import { openAIUsage } from '../../pricing/usage'
import type { Chunk, StreamTranslator } from '../../providers/adapter'
import type { UpstreamResponse } from '../../upstream/client'
import type { SseEvent } from '../../../shared/sse'
import { endStream, failStream, pumpSse } from '../pumpSse'
import { partialUsage } from '../../pipeline/estimate'
import { without } from '../../jsonObject'

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

/** One choice of a streamed chunk. */
export type Choice = NonNullable<Chunk['choices']>[number]

/** One fragment of a streamed tool call. */
export type ToolFragment = NonNullable<NonNullable<Choice['delta']>['tool_calls']>[number]

/** What an encoder writing a chat stream as another wire's events reads of each chunk. */
export interface ChoiceReader {
  text(text: string): void
  toolFragment(fragment: ToolFragment): void
  finished(choice: Choice): void
}

/**
 * The first choice's part of a chunk, for a wire without `n` (its translated request asked for
 * one choice): its text (content and refusal), its tool-call fragments, then its finish.
 */
export function readFirstChoice(chunk: Chunk, reader: ChoiceReader): void {
  const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0)
  if (!choice) return
  const d = choice.delta
  for (const v of [d?.content, d?.refusal]) if (typeof v === 'string' && v !== '') reader.text(v)
  for (const call of d?.tool_calls ?? []) reader.toolFragment(call)
  if (choice.finish_reason) reader.finished(choice)
}

/**
 * How the chunks of a relayed chat stream reach the client: as OpenAI chunks (chat completions),
 * or re-encoded as another wire's events (Messages). The relay around it reads the provider,
 * tracks usage, prices the answer, finished or not, and ends the stream.
 */
export interface ChunkEncoder {
  /** One chunk with choices, in arrival order; `asSent` is its text when untouched, `usage` what was reported so far. */
  chunk(chunk: Chunk, asSent: string | undefined, usage: NormalizedUsage | null): void
  /**
   * A plain content delta as the provider's JSON text, unparsed (`StreamTranslator.plain`): true
   * when it went out as it came; false when this encoder needs the chunk itself, and it is parsed.
   */
  plain?(text: string): boolean
  /** The usage-only chunk (`choices: []`) providers send after the finish. */
  usage(chunk: Chunk): void
  /** The answer finished: a finish reason arrived, and nothing cut it after. */
  readonly complete: boolean
  /** The last events of a complete stream, the `gw` block (routing and cost) among them. */
  last(gw: GwBlock, usage: NormalizedUsage | null): object[]
  /** Events held back that still go out before an error ending the stream. */
  owed(): object[]
  /**
   * The events that end a stream failing after it began, where the wire ends one its own way
   * rather than with an error event (the Responses API's `response.failed`); null where not.
   */
  failed?(error: ApiError): object[] | null
  /** The answer as logged for the request detail: its text and how it ended. */
  logged(text: string): string
}

/**
 * OpenAI chunks as they came. Usage is always requested upstream; the usage-only chunk reaches
 * the client only if it asked for it. The finishing chunk is held back until the usage arrives,
 * so the last chunk before [DONE] can carry `gw` (routing and cost) without an extra
 * empty-choices chunk for clients that did not ask for one.
 */
export class OpenAIChunks implements ChunkEncoder {
  private held: Chunk | null = null
  private usageChunk: Chunk | null = null
  /** The last chunk relayed, or its text when it went out unparsed. */
  private lastChunk: Chunk | string | null = null

  constructor(
    private readonly out: Delivery,
    private readonly includeUsage: boolean,
  ) {}

  chunk(chunk: Chunk, asSent: string | undefined): void {
    if (!this.includeUsage) {
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
    this.lastChunk = chunk
    this.releaseHeld()
    if (chunk.choices?.some((c) => c.finish_reason)) {
      this.held = chunk
    } else {
      this.out.firstByte()
      this.out.sink.event(chunk, asSent)
    }
  }

  plain(text: string): boolean {
    const write = this.out.sink.eventText
    if (!write) return false
    if (!this.includeUsage && text.includes('"usage"')) {
      // OpenAI's `"usage":null` on every chunk, cut out as text; any other spelling is parsed.
      text = text.replace(',"usage":null', '')
      if (text.includes('"usage"')) return false
    }
    this.lastChunk = text
    this.releaseHeld()
    this.out.firstByte()
    write(text)
    return true
  }

  /** The last chunk relayed, parsed if it went out as text: read only when no usage chunk gives the envelope. */
  private lastParsed(): Chunk | null {
    return typeof this.lastChunk === 'string' ? (JSON.parse(this.lastChunk) as Chunk) : this.lastChunk
  }

  /** A finishing chunk held back is not the last after all: it goes out before what follows it. */
  private releaseHeld(): void {
    if (!this.held) return
    this.out.sink.event(this.held)
    this.held = null
  }

  usage(chunk: Chunk): void {
    if (chunk.usage) this.usageChunk = chunk
  }

  get complete(): boolean {
    return this.held !== null
  }

  owed(): object[] {
    return this.held ? [this.held] : []
  }

  last(gw: GwBlock, usage: NormalizedUsage | null): object[] {
    const finishChunk = this.held!
    if (!this.includeUsage) {
      // On the held chunk itself, the gateway's own parse that nothing reads after: a copy made by
      // a spread cost ~1 µs more with its serialisation (2026-11-26).
      ;(finishChunk as Chunk & { gw: GwBlock }).gw = gw
      return [finishChunk]
    }
    const reported = this.usageChunk
    const envelope = without(reported ?? this.lastParsed() ?? finishChunk, 'choices', 'usage')
    envelope.choices = []
    envelope.usage = reported?.usage ?? (usage ? openAIUsage(usage) : null)
    envelope.gw = gw
    return [finishChunk, envelope]
  }

  logged(text: string): string {
    return JSON.stringify({ content: text, finish_reason: this.held?.choices?.[0]?.finish_reason ?? null })
  }
}

/**
 * Relays a provider stream to the sink through `encoder` (the adapter's translator does the
 * provider's format, the encoder the client's). The end of the answer waits for the usage, so it
 * goes out priced; a stream that breaks off is charged for what was generated, estimated from
 * `prompt` and the output where the provider reported no usage.
 */
export async function relayChatStream(
  out: Delivery,
  upstream: UpstreamResponse,
  translator: StreamTranslator,
  encoder: ChunkEncoder,
  prompt: unknown,
): Promise<Delivered> {
  const sink = out.sink
  sink.open()

  let usage: NormalizedUsage | null = null
  let generated = 0
  // Only while body logging is on: the answer as the client saw it, for the request detail.
  const text: string[] | null = out.logging ? [] : null

  /** A stream that did not finish pays for what was generated (partialUsage); an estimate is flagged. */
  const partial = () => partialUsage(usage, prompt, generated)

  /** Ends the stream the wire's way, or with `error` after the events still owed, unless the answer must stay unfinished. */
  const fail = (error: ApiError, owed = true): Delivered => {
    const ending = owed ? encoder.failed?.(error) : null
    return ending ? failStream(sink, ending, error, partial(), true) : failStream(sink, owed ? encoder.owed() : [], error, partial())
  }

  const relay = (chunk: Chunk, asSent?: string) => {
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return encoder.usage(chunk)
    generated += generatedChars(chunk)
    if (text) for (const c of chunk.choices ?? []) if (typeof c.delta?.content === 'string') text.push(c.delta.content)
    encoder.chunk(chunk, asSent, usage)
  }

  // Plain content deltas go on as they came, unparsed, unless body logging needs their text.
  const plain = text === null && encoder.plain && translator.plain ? translator.plain.bind(translator) : null

  /** Relays what one read of the upstream held; what ended the stream when an error event ends it. */
  const handle = (events: SseEvent[]): Delivered | null => {
    for (const ev of events) {
      if (plain) {
        const chars = plain(ev.data)
        if (chars !== null && encoder.plain!(ev.data)) {
          generated += chars
          continue
        }
      }
      const step = translator.event(ev)
      if (step.usage) usage = step.usage
      for (const c of step.chunks) relay(c, step.untouched ? ev.data : undefined)
      if (step.error) return fail(step.error)
    }
    return null
  }

  const ended = await pumpSse(upstream, out, { handle, fail: (error) => fail(error), partial })
  if (ended) return ended
  if (!encoder.complete) return fail(upstreamIncomplete(out.target.provider.id))
  const final = usage
  // A refused charge: nothing of the finishing events is owed.
  return endStream(
    out,
    final,
    (gw) => encoder.last(gw, final),
    () => encoder.logged((text ?? []).join('')),
    (error) => fail(error, false),
  )
}
