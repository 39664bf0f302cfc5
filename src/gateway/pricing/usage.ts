import type { NormalizedUsage } from './types'

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

const has = (o: Obj, key: string) => typeof o[key] === 'number' && Number.isFinite(o[key])

/** A token count; anything that is not a finite non-negative number counts as 0. */
function count(o: unknown, key: string): number {
  if (!isObj(o)) return 0
  const v = o[key]
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0
}

/**
 * Reads an OpenAI-convention usage block (also what DeepSeek, xAI, Groq, Mistral and Gemini's
 * OpenAI-compatible endpoints send). Either token count may be absent (embedding responses carry
 * no completion_tokens); with neither, there is no usage to price.
 */
export function normalizeUsage(raw: unknown): NormalizedUsage | null {
  if (!isObj(raw) || (!has(raw, 'prompt_tokens') && !has(raw, 'completion_tokens'))) return null
  const prompt = count(raw, 'prompt_tokens')
  const completion = count(raw, 'completion_tokens')
  const details = raw.prompt_tokens_details
  // DeepSeek reports cache hits at the top level instead of in prompt_tokens_details.
  const cached = isObj(details) && has(details, 'cached_tokens') ? count(details, 'cached_tokens') : count(raw, 'prompt_cache_hit_tokens')
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: has(raw, 'total_tokens') ? count(raw, 'total_tokens') : prompt + completion,
    cached_tokens: cached,
    cache_write_tokens: count(details, 'cache_write_tokens'),
    cache_write_1h_tokens: 0,
    reasoning_tokens: count(raw.completion_tokens_details, 'reasoning_tokens'),
  }
}

/** OpenAI's usage object for a usage chunk the gateway has to write itself. */
export function openAIUsage(u: NormalizedUsage) {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    prompt_tokens_details: { cached_tokens: u.cached_tokens, cache_write_tokens: u.cache_write_tokens },
    completion_tokens_details: { reasoning_tokens: u.reasoning_tokens },
  }
}
