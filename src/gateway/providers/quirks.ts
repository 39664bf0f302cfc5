import type { ProviderDialect } from '../../contract/providers'
import type { ReasoningConvention } from '../pricing/usage'
import type { Provider } from './registry'

/** How the gateway speaks to a provider, beyond what its kind's adapter does for every provider of that kind. */
export interface Quirks {
  /**
   * The field a translated request (Messages, Responses) carries the token limit in. OpenAI's API
   * takes max_completion_tokens on every model and refuses max_tokens on its reasoning models
   * (o-series, gpt-5); other compatible servers know max_tokens, some (Ollama) nothing else.
   */
  limitField: 'max_tokens' | 'max_completion_tokens'
  /** Where its usage counts reasoning tokens: inside completion_tokens (OpenAI's way), or outside them but inside total_tokens. */
  reasoning: ReasoningConvention
  /** Chat requests get Gemini's tool schemas and thought signatures (`forGemini`). */
  geminiBody: boolean
  /**
   * It reads `prompt_cache_key` (OpenAI's API: requests with the same key go to the same cache),
   * so a translated request may carry one; other compatible servers may refuse a field they do not know.
   */
  promptCacheKey: boolean
}

const QUIRKS: Record<ProviderDialect, Quirks> = {
  openai: { limitField: 'max_completion_tokens', reasoning: 'inside', geminiBody: false, promptCacheKey: true },
  // Gemini's native usage keeps thoughts apart from the answer; where its OpenAI layer folds them
  // into completion_tokens, total_tokens says so and nothing is added (`normalizeUsage`).
  gemini: { limitField: 'max_tokens', reasoning: 'outside', geminiBody: true, promptCacheKey: false },
  // By xAI's documentation, and matched against its own cost_in_usd_ticks (wire-format §6.15).
  xai: { limitField: 'max_tokens', reasoning: 'outside', geminiBody: false, promptCacheKey: false },
  generic: { limitField: 'max_tokens', reasoning: 'inside', geminiBody: false, promptCacheKey: false },
}

/**
 * Hosts whose dialect is known: OpenAI's API (with its regional hosts, `eu.api.openai.com`) and
 * Azure OpenAI's resources (`<name>.openai.azure.com`: OpenAI's models with OpenAI's parameters),
 * Gemini's OpenAI layer, xAI.
 */
function hostDialect(host: string): ProviderDialect {
  if (host === 'api.openai.com' || host.endsWith('.api.openai.com') || host.endsWith('.openai.azure.com')) return 'openai'
  if (host === 'generativelanguage.googleapis.com') return 'gemini'
  if (host === 'api.x.ai') return 'xai'
  return 'generic'
}

/** Base URLs come from configuration, so there are few: each host's dialect is worked out once, not per request. */
const byBaseUrl = new Map<string, ProviderDialect>()

function baseUrlDialect(baseUrl: string): ProviderDialect {
  let d = byBaseUrl.get(baseUrl)
  if (d === undefined) {
    d = URL.canParse(baseUrl) ? hostDialect(new URL(baseUrl).hostname.toLowerCase()) : 'generic'
    if (byBaseUrl.size >= 256) byBaseUrl.clear()
    byBaseUrl.set(baseUrl, d)
  }
  return d
}

/** What a provider's quirks follow from: what it is, never what it is called. */
type QuirkSource = Pick<Provider, 'kind' | 'baseUrl' | 'dialect'>

/**
 * The dialect a provider's quirks follow: kind gemini's is gemini (its chat goes to Google's
 * OpenAI layer, wherever its base URL points); other kinds but openai have none (their adapter
 * speaks their own API); else the one set for it (`gw providers set ID --dialect`, or a built-in
 * provider's own), which wins because only the user knows what is behind a proxy's address; else
 * the one its base URL's host implies. Never its id: an OpenAI added as `openai-eu` is OpenAI.
 */
export function dialectOf(p: QuirkSource): ProviderDialect | null {
  if (p.kind === 'gemini') return 'gemini'
  if (p.kind !== 'openai') return null
  return p.dialect ?? baseUrlDialect(p.baseUrl)
}

/** The quirks that apply to a provider (kinds other than openai and gemini have none of these). */
export const quirksOf = (p: QuirkSource): Quirks => QUIRKS[dialectOf(p) ?? 'generic']
