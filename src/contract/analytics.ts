import { z } from 'zod'
import { op } from './op'
import { time, usd } from './common'
import { requestFilter } from './requests'

const range = z.object({ from: time, to: time, filter: requestFilter.default({}) }).strict()

export const seriesPoint = z.object({
  t: time,
  requests: z.number().int(),
  errors: z.number().int(),
  cost_usd: usd,
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
})

/** `cost_usd` sums the priced requests only; `unpriced` counts those whose cost is unknown. */
export const group = z.object({
  value: z.string().nullable(),
  requests: z.number().int(),
  cost_usd: usd,
  unpriced: z.number().int(),
  tokens: z.number().int(),
  errors: z.number().int(),
})

/**
 * What caching did over a range. `prompt` is the provider's prompt cache, counted as the cache
 * doctor counts a session's turns: `prompt_tokens` is the cacheable input (prompt tokens of the
 * requests a provider answered with usage, response-cache replays aside), `cached_tokens` what of
 * it was read from the cache, `saved_usd` what those reads saved against the input rate, and
 * `wasted_usd` what the writes no later request read cost: a write is unread when no later request
 * of its session (or, without a session, of its key) on the same provider and upstream model
 * read more of the cache than it did within the write's TTL (5 minutes, 1 hour for 1-hour
 * writes), counted once the TTL has ended. `response` is the response cache: the requests it
 * answered and what they would have cost again.
 */
export const cacheFigures = z.object({
  prompt: z.object({
    prompt_tokens: z.number().int(),
    cached_tokens: z.number().int(),
    hit_rate: z.number().nullable(),
    saved_usd: usd,
    wasted_usd: usd,
    wasted_tokens: z.number().int(),
    unread_writes: z.number().int(),
  }),
  response: z.object({ hits: z.number().int(), saved_usd: usd }),
})

export const analyticsOps = {
  'analytics.overview': op({
    summary: 'Totals, error rate, latency percentiles, what caching saved and wasted, and a time series over a range',
    access: 'user',
    input: range.extend({ bucket: z.enum(['hour', 'day']).default('hour') }),
    output: z.object({
      totals: z.object({
        requests: z.number().int(),
        errors: z.number().int(),
        error_rate: z.number(),
        cost_usd: usd,
        unpriced_requests: z.number().int(),
        prompt_tokens: z.number().int(),
        completion_tokens: z.number().int(),
        p50_ms: z.number().nullable(),
        p95_ms: z.number().nullable(),
        p99_ms: z.number().nullable(),
      }),
      series: z.array(seriesPoint),
      cache: cacheFigures,
    }),
  }),
  'analytics.groupBy': op({
    summary:
      'Requests, cost and tokens grouped by model (requested or served), key, user, tag, provider, preset, session, trace, tool, gateway instance or a dimension',
    access: 'user',
    input: range.extend({
      by: z.union([
        z.enum(['model', 'served_model', 'key', 'user', 'tag', 'provider', 'preset', 'session', 'trace', 'tool', 'instance']),
        z.string().regex(/^dimension:[a-z0-9_-]{1,64}$/),
      ]),
      limit: z.number().int().min(1).max(100).default(10),
    }),
    output: z.array(group),
  }),
}
