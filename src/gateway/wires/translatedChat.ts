import { createHash } from 'node:crypto'
import type { Dropped, RequestContext } from '../pipeline/requestContext'
import type { Target } from '../pipeline/resolveModel'
import type { UpstreamRequest } from '../providers/adapter'
import { quirksOf } from '../providers/quirks'
import type { ChatBody } from './chat/chatBody'
import { chatRequestFor } from './chat/chatWire'

export type { Dropped }

/** What a translation to chat completions needs to know of the model it is for. */
export interface ChatTarget {
  /** The model's output limit, where the catalog knows it. */
  maxOutputTokens?: number
  /** The field the provider takes the token limit in (default `max_tokens`, which every compatible server knows). */
  limitField?: 'max_tokens' | 'max_completion_tokens'
  /**
   * The provider is Gemini's OpenAI layer (`quirks.geminiBody`): it maps `reasoning_effort` onto
   * every Gemini model's thinking and reads thought signatures on replayed tool calls, which other
   * providers refuse (OpenAI's non-reasoning models, xAI's) or do not know.
   */
  geminiLayer?: boolean
  /** The provider reads `prompt_cache_key` (OpenAI's API): a caller's own key may be carried. */
  promptCacheKey?: boolean
}

/** OpenAI's longest `prompt_cache_key`; a longer session id is sent as its SHA-256 (64 hex digits). */
const MAX_CACHE_KEY = 64

const cacheKeyOf = (session: string) => (session.length <= MAX_CACHE_KEY ? session : createHash('sha256').update(session).digest('hex'))

/**
 * A translated path's request (Messages or Responses to a provider of another wire): chat
 * completions through the provider kind's adapter, so every quirk the chat path handles applies.
 * What the translation dropped joins the record's `ignored`. A request of a session going to
 * OpenAI's API carries the session id as `prompt_cache_key` unless the caller's own key was
 * carried, so the session's turns meet the same cache there.
 */
export function translatedChatRequest(
  ctx: RequestContext,
  target: Target,
  translate: (t: ChatTarget) => { chat: ChatBody; dropped: Dropped[] },
): UpstreamRequest {
  const quirks = quirksOf(target.provider)
  const { chat, dropped } = translate({
    maxOutputTokens: target.priced?.entry.max_output_tokens,
    limitField: quirks.limitField,
    geminiLayer: quirks.geminiBody,
    promptCacheKey: quirks.promptCacheKey,
  })
  for (const d of dropped) ctx.ignore(d)
  const session = ctx.attribution.attribution.session_id
  if (quirks.promptCacheKey && session !== null && chat.prompt_cache_key === undefined) chat.prompt_cache_key = cacheKeyOf(session)
  return chatRequestFor(ctx, chat, target)
}

/**
 * The token limit, within the target model's output limit where the catalog knows it: Claude Code
 * asks for 32,000, which gpt-4o (16,384) refuses outright, and a cap above what the model can
 * write changes nothing else. `name` is the caller's field, for the record.
 */
export function limitedMaxTokens(requested: unknown, name: string, target: ChatTarget, drop: (d: Dropped) => void): object {
  if (typeof requested !== 'number') return {}
  const field = target.limitField ?? 'max_tokens'
  const limit = target.maxOutputTokens
  if (limit === undefined || requested <= limit) return { [field]: requested }
  drop({ name, reason: `${requested} is above the model's output limit of ${limit}; ${limit} was sent` })
  return { [field]: limit }
}

/** A user message's content part in chat completions. */
export type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } }

/** Text parts alone become a string: several providers (DeepSeek among them) take nothing else. */
export function userContent(parts: Part[]): string | Part[] {
  return parts.every((p) => p.type === 'text') ? parts.map((p) => (p as { text: string }).text).join('\n\n') : parts
}
