import type { NormalizedUsage } from '../../pricing/types'
import type { AnthropicUsage } from './types'

/** A token count; anything but a finite positive number counts as 0. */
const tokens = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0)

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; OpenAI's convention, which
 * pricing and the client's usage object follow, has both inside `prompt_tokens`. Thinking tokens
 * are billed as output and are already inside `output_tokens`.
 */
export function normalizeAnthropicUsage(u: AnthropicUsage): NormalizedUsage {
  const written = tokens(u.cache_creation_input_tokens)
  const read = tokens(u.cache_read_input_tokens)
  const prompt = tokens(u.input_tokens) + written + read
  const completion = tokens(u.output_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cached_tokens: read,
    cache_write_tokens: written,
    cache_write_1h_tokens: tokens(u.cache_creation?.ephemeral_1h_input_tokens),
    reasoning_tokens: tokens(u.output_tokens_details?.thinking_tokens),
  }
}
