import type { NormalizedUsage } from '../../pricing/types'
import { TokenCounts, withExtras } from '../../pricing/usage'
import type { AnthropicUsage } from './types'

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; OpenAI's convention, which
 * pricing and the client's usage object follow, has both inside `prompt_tokens`. Thinking tokens
 * are billed as output and are already inside `output_tokens`. The tier, region and web searches
 * it reports are priced too.
 */
export function normalizeAnthropicUsage(u: AnthropicUsage): NormalizedUsage {
  const counts = new TokenCounts()
  const written = counts.read(u, 'cache_creation_input_tokens')
  const read = counts.read(u, 'cache_read_input_tokens')
  const prompt = counts.read(u, 'input_tokens') + written + read
  const completion = counts.read(u, 'output_tokens')
  const usage: NormalizedUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cached_tokens: read,
    cache_write_tokens: written,
    cache_write_1h_tokens: counts.read(u.cache_creation, 'ephemeral_1h_input_tokens'),
    reasoning_tokens: counts.read(u.output_tokens_details, 'thinking_tokens'),
  }
  // Fast mode (`speed: "fast"`) is a tier of its own; web fetches are free, searches billed per call.
  const searches = counts.read(u.server_tool_use, 'web_search_requests')
  return withExtras(counts.flag(usage), u.speed === 'fast' ? 'fast' : u.service_tier, u.inference_geo, searches)
}
