import { OK, type Delivery, type Finished } from '../../core/wire'
import type { ApiError } from '../../errors'
import { partialUsage } from '../../pipeline/estimate'
import type { NormalizedUsage } from '../../pricing/types'
import { geminiSearchCalls, readGeminiUsage } from '../../providers/gemini/usage'
import { adapterFor } from '../../providers/kinds'
import type { SseEvent } from '../../../shared/sse'
import type { NativeEvents } from '../nativeStream'
import type { CutShort } from '../pumpSse'

type Chunk = Record<string, unknown> & { candidates?: Array<{ finishReason?: unknown; content?: { parts?: Array<{ text?: unknown }> } }> }

/** Characters of text a chunk carries, for what a stream cut short is estimated to have generated. */
function textChars(chunk: Chunk): number {
  let n = 0
  for (const part of chunk.candidates?.[0]?.content?.parts ?? []) if (typeof part.text === 'string') n += part.text.length
  return n
}

/**
 * Google's chunks as it wrote them. Every chunk is a whole GenerateContentResponse with no event
 * name; the one carrying `finishReason` ends the answer (its usage is the stream's, on the last
 * chunk), so it and anything after it are held back and go out last, with `gw` (routing and cost)
 * as one more field of the last chunk: `@google/genai` reads the fields it knows and drops the rest.
 * A chunk that is Google's error body is the stream's error.
 */
class GeminiEvents implements NativeEvents {
  /** The chunk being read: typeOf parses it once for read. */
  private chunk: Chunk | null = null
  /** The latest usageMetadata: some models send a running one on every chunk, the last is the stream's. */
  private usageMetadata: unknown = undefined
  /** Grounding queries: reported on the chunk that ran them, or repeated on later ones, so the most any chunk reported. */
  private searches = 0
  private generated = 0
  /** The finishing chunk and any after it, as sent. */
  private held: string[] | null = null

  constructor(
    private readonly out: Delivery,
    private readonly prompt: unknown,
  ) {}

  typeOf(ev: SseEvent): string | undefined {
    const chunk = JSON.parse(ev.data) as Chunk
    this.chunk = chunk
    return 'error' in chunk && chunk.error !== null && typeof chunk.error === 'object' ? 'error' : undefined
  }

  error(data: string): ApiError {
    const { code } = (JSON.parse(data) as { error: { code?: unknown } }).error
    const provider = this.out.target.provider
    return adapterFor(provider.kind).httpError(provider.id, typeof code === 'number' ? code : 500, data, {}, this.out.redactor)
  }

  read(_type: string | undefined, ev: SseEvent): string | undefined {
    const chunk = this.chunk!
    if (chunk.usageMetadata !== undefined) this.usageMetadata = chunk.usageMetadata
    this.searches = Math.max(this.searches, geminiSearchCalls(chunk))
    this.generated += textChars(chunk)
    if (this.held === null && chunk.candidates?.some((c) => c.finishReason !== undefined && c.finishReason !== null) !== true) return undefined
    ;(this.held ??= []).push(ev.data)
    return ev.data
  }

  private usage = (): NormalizedUsage | null => readGeminiUsage(this.usageMetadata, this.searches)

  final = () => (this.held === null ? null : { usage: this.usage() })

  partial = (): CutShort => partialUsage(this.usage(), this.prompt, this.generated)

  last(gw: object): object[] {
    const chunks = this.held!.map((text) => JSON.parse(text) as Chunk)
    chunks[chunks.length - 1].gw = gw
    return chunks
  }

  outcome = (): Finished => OK
}

/** Google's chunks of one stream, relayed as the provider wrote them. */
export const geminiEvents = (out: Delivery, prompt: unknown): NativeEvents => new GeminiEvents(out, prompt)
