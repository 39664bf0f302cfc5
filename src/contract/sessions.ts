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
      /** Oldest first. */
      requests: z.array(timelineRow),
    }),
  }),
}
