import { z } from 'zod'
import { op } from './op'
import { time, usd } from './common'
import { requestFilter, requestRow } from './requests'

/**
 * A session: the requests that carry one session id (set by the caller, or the tool's own, which
 * the gateway recognises). `cost_usd` sums the priced requests only; `unpriced` counts those
 * whose cost is unknown, never counted as $0.
 */
export const sessionRow = z.object({
  session_id: z.string(),
  /** The tools that sent its requests (`claude-code 2.1.330`); empty when none said. */
  tools: z.array(z.string()),
  keys: z.array(z.object({ id: z.string(), name: z.string().nullable() })),
  models: z.array(z.string()),
  first_at: time,
  last_at: time,
  requests: z.number().int(),
  errors: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cost_usd: usd,
  unpriced: z.number().int(),
})

/** One request of a session's timeline, with what the session had cost up to and including it. */
export const timelineRow = requestRow.extend({
  /** The sum of the priced requests so far. */
  cumulative_usd: usd,
  /** How many requests so far are unpriced (their cost is not in `cumulative_usd`). */
  cumulative_unpriced: z.number().int(),
})

/**
 * A session's turn that routing sent elsewhere than its previous turn under the same preset: from
 * and to (`<provider>/<model>`), why (the target it left failed, was cooling down, was refused by
 * the key's policy; a soft cap; the preset no longer names it), and what the move cost in prompt
 * cache written again: this turn's cache-write tokens and their price (null without usage or price).
 */
export const sessionMove = z.object({
  from: z.string(),
  to: z.string(),
  reason: z.enum(['failed', 'cooled_down', 'policy', 'soft_cap', 'preset_changed']),
  cache_write_tokens: z.number().int().nullable(),
  cache_write_usd: usd.nullable(),
})

/** Each reason for a move as a sentence ends it: "moved … because it failed". */
export const MOVED_BECAUSE: Record<z.output<typeof sessionMove>['reason'], string> = {
  failed: 'it failed',
  cooled_down: 'it was cooling down',
  policy: "the key's policy refused it",
  soft_cap: 'of a soft cap',
  preset_changed: 'the preset no longer names it',
}

/** Why a turn missed the prompt cache: the first block that differs from the previous turn's, or what else kept it from being read. */
export const cacheCause = z.object({
  /**
   * `tools`, `tools_reordered`, `system`, `message` (`index` says which, from 0): that block differs
   * from the previous turn's; `expired`: the previous turn's cache outlived its TTL; `no_markers`:
   * the client sent no cache_control; `markers_dropped`: a translation dropped them; `unexplained`:
   * the prefix and markers were the same and within the TTL; `unknown`: a turn has no fingerprint;
   * `moved`: routing moved the session to another provider or model, whose cache it wrote anew.
   */
  kind: z.enum(['tools', 'tools_reordered', 'system', 'message', 'expired', 'no_markers', 'markers_dropped', 'unexplained', 'unknown', 'moved']),
  index: z.number().int().nullable(),
  /** The previous turn of the same model it was compared with (for a move, the turn on the model it moved from). */
  previous_id: z.string(),
  /** One sentence: "the system prompt changed at turn 7: 2,140 tokens re-written". */
  text: z.string(),
})

/** One request of a session as the prompt-cache doctor sees it. */
export const cacheTurn = z.object({
  request_id: z.string(),
  /** Its place in the session, from 1, as in the timeline. */
  turn: z.number().int(),
  /** `provider/upstream_model`: turns are compared only with turns of the same model. */
  model: z.string().nullable(),
  prompt_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  cache_write_1h_tokens: z.number().int(),
  /** `read`: it read the cache; `write`: it wrote without reading; `miss`: it read less than the previous turn had cached; `none`: neither, or no usage. */
  state: z.enum(['read', 'write', 'miss', 'none']),
  /** The cache_control markers the client sent; null when the record has no fingerprint. */
  markers: z.number().int().nullable(),
  /** Why the markers did not reach the provider (a translation dropped them), as the record's `ignored` says. */
  markers_dropped: z.string().nullable(),
  cause: cacheCause.nullable(),
  /** Its write was never read (see `sessionCache.wasted_usd`). */
  unread_write: z.boolean(),
  /** Routing moved the session on this turn; null when it stayed. */
  moved: sessionMove.nullable(),
})

/**
 * The prompt-cache doctor's view of a session, derived from its records at read time. Token sums
 * are over requests with usage; money sums are exact (whole pico-dollars of each record's cost).
 */
export const sessionCache = z.object({
  /** `healthy`: it read the cache and no turn missed; `missing`: some turn missed; `unused`: nothing was read or written. */
  verdict: z.enum(['healthy', 'missing', 'unused']),
  prompt_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  /** cached_tokens / prompt_tokens; null when no prompt tokens. */
  hit_rate: z.number().nullable(),
  /**
   * What the cache saved, net: the records' `cache_savings_usd` (what cached reads saved against
   * the input rate, less what writes cost above it); negative when writes were paid for and not read.
   */
  saved_usd: usd,
  /** What every write cost: the records' `cache_write_usd`. */
  written_usd: usd,
  /**
   * What the writes never read cost: a write is read when a later request of the session to the
   * same provider and upstream model, made within the write's TTL (5 minutes; 1 hour for 1-hour
   * writes), read more cache tokens than the writing request did. A write still within its TTL is not counted.
   */
  wasted_usd: usd,
  wasted_tokens: z.number().int(),
  misses: z.number().int(),
  /** Every request of the session, oldest first. */
  turns: z.array(cacheTurn),
})

export const sessionOps = {
  'sessions.list': op({
    summary: 'Sessions with requests in a range: tool, key, first and last request, requests, tokens, cost, models, errors',
    access: 'user',
    input: z
      .object({
        /** Which requests count: a session is listed when any of its requests match; its figures sum those that do. */
        filter: requestFilter.default({}),
        sort: z.enum(['last_at', 'first_at', 'cost_usd', 'requests', 'tokens']).default('last_at'),
        order: z.enum(['asc', 'desc']).default('desc'),
        limit: z.number().int().min(1).max(200).default(50),
        offset: z.number().int().min(0).default(0),
      })
      .strict(),
    output: z.object({ items: z.array(sessionRow), total: z.number().int() }),
  }),
  'sessions.get': op({
    summary: "One session's totals and its requests in order, with the cost accumulating",
    access: 'user',
    input: z
      .object({
        id: z.string().min(1).max(128),
        limit: z.number().int().min(1).max(1000).default(500),
        offset: z.number().int().min(0).default(0),
      })
      .strict(),
    output: z.object({
      session: sessionRow.extend({ derived: z.boolean() }),
      /** The prompt-cache doctor's view of the whole session (every page carries it). */
      cache: sessionCache,
      /** Oldest first. */
      requests: z.array(timelineRow),
    }),
  }),
}
