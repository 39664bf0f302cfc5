import { OK, type Delivery, type Finished } from '../../core/wire'
import type { ApiError } from '../../errors'
import { partialUsage } from '../../pipeline/estimate'
import type { NormalizedUsage } from '../../pricing/types'
import { geminiSearchCalls, readGeminiUsage } from '../../providers/gemini/usage'
import { adapterFor } from '../../providers/kinds'
import type { SseEvent } from '../../../shared/sse'
import type { NativeEvents } from '../nativeStream'
import type { CutShort } from '../pumpSse'

type Chunk = Record<string, unknown> & { candidates?: Array<{ finishReason?: unknown }> }

/**
 * Whether `data` (a chunk's JSON) has `key` as an object key: the name in quotes, then (after any
 * whitespace) a colon. Text inside a string has its quotes escaped, and a string value equal to the
 * name is followed by `,`, `}` or `]`, so a chunk without it has no such key at any depth.
 */
function hasKey(data: string, key: string): boolean {
  for (let at = data.indexOf(key); at !== -1; at = data.indexOf(key, at + key.length)) {
    let i = at + key.length
    while (isSpace(data.charCodeAt(i))) i++
    if (data.charCodeAt(i) === COLON) return true
  }
  return false
}

/** JSON's whitespace: space, tab, \n, \r. */
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13
const COLON = 58
const QUOTE = 34
const BACKSLASH = 92
const TEXT = '"text"'

/**
 * Characters of text a chunk carries, for what a stream cut short is estimated to have generated,
 * found without parsing it: every `"text"` string, escapes counted as written.
 */
function textChars(data: string): number {
  let n = 0
  for (let at = data.indexOf(TEXT); at !== -1; at = data.indexOf(TEXT, at)) {
    let i = at + TEXT.length
    while (isSpace(data.charCodeAt(i))) i++
    if (data.charCodeAt(i) !== COLON) {
      at = i
      continue
    }
    i++
    while (isSpace(data.charCodeAt(i))) i++
    if (data.charCodeAt(i) !== QUOTE) {
      at = i
      continue
    }
    const from = i + 1
    let end = data.indexOf('"', from)
    // A quote after an odd run of backslashes is part of the text.
    while (end !== -1 && backslashesBefore(data, end) % 2 === 1) end = data.indexOf('"', end + 1)
    if (end === -1) return n + data.length - from
    n += end - from
    at = end + 1
  }
  return n
}

function backslashesBefore(data: string, at: number): number {
  let n = 0
  while (data.charCodeAt(at - 1 - n) === BACKSLASH) n++
  return n
}

/**
 * Google's chunks as it wrote them. Every chunk is a whole GenerateContentResponse with no event
 * name; the one carrying `finishReason` ends the answer (its usage is the stream's, on the last
 * chunk), so it and anything after it are held back and go out last, with `gw` (routing and cost)
 * as one more field of the last chunk: `@google/genai` reads the fields it knows and drops the rest.
 * A chunk that is Google's error body is the stream's error.
 *
 * A chunk is parsed only when it has a key the relay reads (`error`, `finishReason`,
 * `groundingMetadata`); the usage, which Google repeats on every chunk, is parsed once, from the
 * last chunk that had it, when the stream is priced.
 */
class GeminiEvents implements NativeEvents {
  /** The chunk being read, when typeOf parsed it. */
  private chunk: Chunk | null = null
  /** The last chunk with a usageMetadata, as sent: some models send a running one on every chunk, the last is the stream's. */
  private usageChunk: string | null = null
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
    const data = ev.data
    if (!hasKey(data, '"error"') && !hasKey(data, '"finishReason"') && !hasKey(data, '"groundingMetadata"')) {
      this.chunk = null
      return undefined
    }
    const chunk = JSON.parse(data) as Chunk
    this.chunk = chunk
    return 'error' in chunk && chunk.error !== null && typeof chunk.error === 'object' ? 'error' : undefined
  }

  error(data: string): ApiError {
    const { code } = (JSON.parse(data) as { error: { code?: unknown } }).error
    const provider = this.out.target.provider
    return adapterFor(provider.kind).httpError(provider.id, typeof code === 'number' ? code : 500, data, {}, this.out.redactor)
  }

  read(_type: string | undefined, ev: SseEvent): string | undefined {
    const chunk = this.chunk
    if (hasKey(ev.data, '"usageMetadata"')) this.usageChunk = ev.data
    this.generated += textChars(ev.data)
    if (chunk !== null) this.searches = Math.max(this.searches, geminiSearchCalls(chunk))
    if (this.held === null && chunk?.candidates?.some((c) => c.finishReason !== undefined && c.finishReason !== null) !== true) return undefined
    ;(this.held ??= []).push(ev.data)
    return ev.data
  }

  private usage = (): NormalizedUsage | null =>
    readGeminiUsage(this.usageChunk === null ? undefined : (JSON.parse(this.usageChunk) as Chunk).usageMetadata, this.searches)

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
