import type { NormalizedUsage } from './types'
import { isObj } from '../jsonObject'

type Obj = Record<string, unknown>

const has = (o: Obj, key: string) => typeof o[key] === 'number' && Number.isFinite(o[key])

/**
 * Over a thousand times the largest context window any model has: a count above it is a provider's
 * fault, not usage. It also keeps every cost well inside exact integer pico-dollars.
 */
export const MAX_TOKENS_PER_REQUEST = 1_000_000_000

/**
 * Reads token counts from a provider's usage block, which is untrusted input. A missing count is
 * 0; a count that is not a whole number from 0 to MAX_TOKENS_PER_REQUEST is 0 too, and is named
 * in `anomaly()`, so the request is recorded with the reason instead of billed from a wild number.
 */
export class TokenCounts {
  private bad: string[] | null = null

  read(o: unknown, key: string): number {
    if (!isObj(o)) return 0
    const v = o[key]
    if (v === undefined || v === null) return 0
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS_PER_REQUEST) return v
    ;(this.bad ??= []).push(`${key} = ${String(JSON.stringify(v)).slice(0, 40)}`)
    return 0
  }

  /** Sets `anomaly` on the usage when a count was refused; otherwise leaves it absent. */
  flag(usage: NormalizedUsage): NormalizedUsage {
    if (this.bad) {
      usage.anomaly = `the provider reported ${this.bad.join(', ')}; a token count is a whole number from 0 to ${MAX_TOKENS_PER_REQUEST.toLocaleString('en-US')}`
    }
    return usage
  }
}

/**
 * Where a provider counts reasoning tokens. `inside` (OpenAI, DeepSeek, Groq, Mistral and most
 * others): `completion_tokens` already holds them. `outside` (xAI): `completion_tokens` is the
 * visible answer only and reasoning is added on top, inside `total_tokens`; it is billed as
 * output all the same.
 */
export type ReasoningConvention = 'inside' | 'outside'

/**
 * Output tokens to add under the `outside` convention: the reasoning count, bounded by what
 * `total_tokens` holds beyond prompt and completion (for xAI the two are equal). The bound keeps a
 * usage block that does count reasoning inside (total = prompt + completion) from billing it
 * twice; without a reasoning count, the gap itself is the reasoning.
 */
function outsideReasoning(prompt: number, completion: number, total: number | null, reasoning: number): number {
  if (total === null) return reasoning
  const gap = Math.max(0, total - prompt - completion)
  return reasoning > 0 ? Math.min(reasoning, gap) : gap
}

/**
 * Reads an OpenAI-convention usage block (also what DeepSeek, xAI, Groq, Mistral and Gemini's
 * OpenAI-compatible endpoints send). Either token count may be absent (embedding responses carry
 * no completion_tokens); with neither, there is no usage to price. `completion_tokens` of the
 * result always includes reasoning, whatever the provider's convention.
 */
export function normalizeUsage(raw: unknown, reasoning: ReasoningConvention = 'inside'): NormalizedUsage | null {
  if (!isObj(raw) || (!has(raw, 'prompt_tokens') && !has(raw, 'completion_tokens'))) return null
  const counts = new TokenCounts()
  const prompt = counts.read(raw, 'prompt_tokens')
  const reported = counts.read(raw, 'completion_tokens')
  const total = has(raw, 'total_tokens') ? counts.read(raw, 'total_tokens') : null
  const thought = counts.read(raw.completion_tokens_details, 'reasoning_tokens')
  const completion = reasoning === 'outside' ? reported + outsideReasoning(prompt, reported, total, thought) : reported
  const details = raw.prompt_tokens_details
  // DeepSeek reports cache hits at the top level instead of in prompt_tokens_details.
  const cached = isObj(details) && has(details, 'cached_tokens') ? counts.read(details, 'cached_tokens') : counts.read(raw, 'prompt_cache_hit_tokens')
  return counts.flag({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total ?? prompt + completion,
    cached_tokens: cached,
    cache_write_tokens: counts.read(details, 'cache_write_tokens'),
    cache_write_1h_tokens: 0,
    reasoning_tokens: thought,
  })
}

const label = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, 40) : null)

/**
 * The service tier an OpenAI-shaped answer says served it: the response's (or a chunk's)
 * `service_tier` beside `usage`, not the one asked for (`auto` resolves to what ran).
 */
export const withServedTier = (usage: NormalizedUsage | null, tier: unknown): NormalizedUsage | null => usage && withExtras(usage, tier, null, 0)

/** Sets the tier, region and per-call count a provider reported; leaves out what it did not. */
export function withExtras(usage: NormalizedUsage, tier: unknown, geo: unknown, webSearches: number): NormalizedUsage {
  const served = label(tier)
  const region = label(geo)
  if (served !== null) usage.service_tier = served
  if (region !== null) usage.inference_geo = region
  if (webSearches > 0) usage.web_search_calls = webSearches
  return usage
}

/** No tokens at all: what an estimate of a stream cut short starts from. */
export const ZERO_USAGE: Readonly<NormalizedUsage> = {
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cached_tokens: 0,
  cache_write_tokens: 0,
  cache_write_1h_tokens: 0,
  reasoning_tokens: 0,
}

/** Web search calls among a Responses answer's output items: each one is billed per call. */
function webSearchCalls(output: unknown): number {
  if (!Array.isArray(output)) return 0
  let n = 0
  for (const item of output) if (isObj(item) && item.type === 'web_search_call') n++
  return n
}

/**
 * Reads a Responses API answer's usage block (`input_tokens`, `output_tokens` and their details):
 * cached tokens are part of the input, reasoning tokens part of the output, as on chat completions.
 * The tier served is the response's `service_tier`; web searches are its `web_search_call` items.
 */
export function normalizeResponsesUsage(response: unknown): NormalizedUsage | null {
  const raw = isObj(response) ? response.usage : undefined
  if (!isObj(raw) || (!has(raw, 'input_tokens') && !has(raw, 'output_tokens'))) return null
  const counts = new TokenCounts()
  const input = counts.read(raw, 'input_tokens')
  const output = counts.read(raw, 'output_tokens')
  const details = raw.input_tokens_details
  const usage = counts.flag({
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: has(raw, 'total_tokens') ? counts.read(raw, 'total_tokens') : input + output,
    cached_tokens: counts.read(details, 'cached_tokens'),
    // As on chat completions, where a model bills cache writes (GPT-5.6 and later).
    cache_write_tokens: counts.read(details, 'cache_write_tokens'),
    cache_write_1h_tokens: 0,
    reasoning_tokens: counts.read(raw.output_tokens_details, 'reasoning_tokens'),
  })
  const r = response as Obj
  return withExtras(usage, r.service_tier, null, webSearchCalls(r.output))
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
