import type { NormalizedUsage } from '../../pricing/types'
import { TokenCounts, withExtras } from '../../pricing/usage'
import { isObj } from '../../jsonObject'

const COUNTS = ['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount']

/**
 * A native answer's `usageMetadata` in OpenAI's convention (wire-format §8). Google's prompt count
 * already holds the cached tokens; the tokens a tool's use added to the prompt (grounding, code
 * execution) are input beside it. Its candidates count leaves out the thoughts, which are billed
 * as output: OpenAI's completion_tokens holds both. Null when it reports no count at all. A count
 * that cannot be one (negative, fractional, not a number) is 0 and named in `anomaly`.
 */
export function normalizeGeminiUsage(usageMetadata: unknown): NormalizedUsage | null {
  if (!isObj(usageMetadata) || !COUNTS.some((k) => usageMetadata[k] != null)) return null
  const counts = new TokenCounts()
  const prompt = counts.read(usageMetadata, 'promptTokenCount') + counts.read(usageMetadata, 'toolUsePromptTokenCount')
  const thoughts = counts.read(usageMetadata, 'thoughtsTokenCount')
  const completion = counts.read(usageMetadata, 'candidatesTokenCount') + thoughts
  const total = usageMetadata.totalTokenCount == null ? prompt + completion : counts.read(usageMetadata, 'totalTokenCount')
  return counts.flag({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    cached_tokens: counts.read(usageMetadata, 'cachedContentTokenCount'),
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: thoughts,
  })
}

/**
 * Google Search queries a native answer ran for grounding, as Gemini 3 bills them: per query, not
 * per grounded request (`call_fees.web_search`, $14 per 1,000). Each candidate reports its own in
 * `groundingMetadata.webSearchQueries`; a stream reports them on the chunk that carries them.
 */
export function geminiSearchCalls(response: unknown): number {
  const candidates = isObj(response) ? response.candidates : undefined
  if (!Array.isArray(candidates)) return 0
  let n = 0
  for (const c of candidates) {
    const queries = isObj(c) && isObj(c.groundingMetadata) ? c.groundingMetadata.webSearchQueries : undefined
    if (Array.isArray(queries)) n += queries.length
  }
  return n
}

/** A `usageMetadata` with the Google Search queries billed beside it; null when it reports no count. */
export function readGeminiUsage(usageMetadata: unknown, searches: number): NormalizedUsage | null {
  const usage = normalizeGeminiUsage(usageMetadata)
  return usage && withExtras(usage, null, null, searches)
}

/** A native answer's usage with the searches it ran. */
export const geminiUsageOf = (response: Record<string, unknown>): NormalizedUsage | null => readGeminiUsage(response.usageMetadata, geminiSearchCalls(response))
