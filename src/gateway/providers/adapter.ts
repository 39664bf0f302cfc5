import type { ApiError } from '../errors'
import type { NormalizedUsage } from '../pricing/types'
import type { Redactor } from '../secrets/redactor'
import type { Provider } from './registry'
import type { SseEvent } from '../../shared/sse'

/** An OpenAI `chat.completion.chunk`, as the client receives it. */
export type Chunk = Record<string, unknown> & {
  choices?: Array<{
    index?: number
    finish_reason?: unknown
    delta?: { content?: unknown; refusal?: unknown; tool_calls?: Array<{ index?: number; id?: unknown; function?: { name?: unknown; arguments?: unknown } }> }
  }>
  usage?: unknown
}

/** Where and what to send; the base URL always comes from the provider's configuration. */
export interface UpstreamRequest {
  path: string
  body: unknown
  /** `body`'s JSON text where the gateway has it already: the client's own, for a body that is the client's (core/clientText.ts). */
  text?: string
  /** Headers the caller sent for the provider (a wire's pass-through ones); they win over the adapter's. */
  headers?: Record<string, string>
}

/** An UpstreamRequest with its body as the JSON text that goes on the wire. */
export interface SerialisedRequest {
  path: string
  body: string
  headers?: Record<string, string>
}

/** What one upstream stream event turns into. */
export interface StreamStep {
  /** OpenAI chunks to relay, in order; a usage-only chunk has `choices: []`. */
  chunks: Chunk[]
  /** Usage reported so far, in OpenAI's convention (the latest report wins). */
  usage?: NormalizedUsage | null
  /** The provider reported an error inside the stream. */
  error?: ApiError
  /** The provider said the stream is complete ([DONE], message_stop). */
  done?: boolean
  /** The event's one chunk is the provider's as parsed, so its text can go out as it came. */
  untouched?: boolean
}

export interface StreamTranslator {
  event(ev: SseEvent): StreamStep
  /**
   * Where the provider's events are OpenAI chunks: the characters of content an event carries
   * when it is a plain content delta that needs no reading (no usage, finish, tool call, refusal
   * or error), so it can be relayed as it came without a parse; null when it must be parsed.
   */
  plain?(data: string): number | null
}

/** What an answer's reading needs of the provider that sent it: its id for messages, what it is for its quirks (`quirksOf`). */
export type Answering = Pick<Provider, 'id' | 'kind' | 'baseUrl' | 'dialect'>

export interface ChatRequestOptions {
  stream: boolean
  /** `gw.auto_cache`: add prompt-cache breakpoints where the provider needs them. */
  autoCache: boolean
}

/**
 * A provider kind: how to speak to it. Requests arrive in OpenAI's shape (model already set to
 * the upstream id, usage always requested on streams) and answers leave in OpenAI's shape, so
 * the pipeline, pricing and records never see a provider's own format. Its errors, before the
 * first byte or in the stream, are read with the registry's redactor (`parseUpstreamError`).
 */
export interface ProviderAdapter {
  readonly kind: string
  /** Credential and protocol headers for a call to `path` (under the base URL): a kind serving two APIs authenticates each its own way. */
  headers(credential: string | null, path: string): Record<string, string>
  /** Throws a 400 ApiError naming the field for input the provider cannot take. */
  chatRequest(body: Record<string, unknown>, opts: ChatRequestOptions): UpstreamRequest
  /** `untouched`: the completion is the provider's answer as parsed, so its text can go out as it came. */
  chatResponse(json: Record<string, unknown>, provider: Answering): { completion: Record<string, unknown>; usage: NormalizedUsage | null; untouched?: boolean }
  streamTranslator(provider: Answering, redactor: Redactor): StreamTranslator
  /** Null when the kind has no embeddings endpoint. */
  embeddingsRequest(body: Record<string, unknown>): UpstreamRequest | null
  /** An error answered before the first byte, in OpenAI's shape and status family. */
  httpError(providerId: string, status: number, text: string, headers: Record<string, string | string[] | undefined>, redactor: Redactor): ApiError
  /** The model list: also the cheapest real call that proves the credential and endpoint. */
  readonly modelsPath: string
  parseModels(body: unknown): Array<{ id: string; created: number | null }>
}
