import { z } from 'zod'
import { op } from './op'
import { time, usd } from './common'
import { softLimit } from './keys'

export const requestFilter = z
  .object({
    from: time.optional(),
    to: time.optional(),
    key_id: z.string().optional(),
    model: z.string().optional(),
    preset: z.string().optional(),
    provider: z.string().optional(),
    /** HTTP status, or a class: '2xx', '4xx', '5xx'. */
    status: z.union([z.number().int(), z.enum(['2xx', '4xx', '5xx'])]).optional(),
    outcome: z.enum(['ok', 'error', 'aborted']).optional(),
    user_id: z.string().optional(),
    trace_id: z.string().optional(),
    session_id: z.string().optional(),
    /** The tool that sent the request, as recorded (`claude-code 2.1.330`). */
    source_tool: z.string().optional(),
    /** The gateway that served it, by its instance name (`gw serve --instance-name`). */
    instance: z.string().optional(),
    tag: z.string().optional(),
    /** Dimension filters, name → value. */
    dimensions: z.record(z.string(), z.string()).optional(),
    source: z.enum(['api', 'playground']).optional(),
  })
  .strict()
export type RequestFilter = z.infer<typeof requestFilter>

export const requestRow = z.object({
  id: z.string(),
  created_at: time,
  endpoint: z.string(),
  status: z.number().int(),
  outcome: z.enum(['ok', 'error', 'aborted']),
  key_id: z.string().nullable(),
  model: z.string().nullable(),
  preset: z.string().nullable(),
  provider: z.string().nullable(),
  upstream_model: z.string().nullable(),
  user_id: z.string().nullable(),
  prompt_tokens: z.number().int().nullable(),
  completion_tokens: z.number().int().nullable(),
  cost_usd: usd.nullable(),
  priced: z.boolean(),
  latency_ms: z.number().int().nullable(),
  source: z.enum(['api', 'playground']),
  source_tool: z.string().nullable(),
  /** The gateway that served it; null for records made before gateways were named. */
  instance: z.string().nullable(),
  /** The spend limit near which the key's soft cap sent it to the cap's cheaper model; null when it did not. */
  soft_cap: softLimit.nullable(),
  /** The request whose answer the response cache replayed for this one; null when it did not. */
  cache_hit_of: z.string().nullable(),
  /** What that replay saved (its first answer's cost again); null without a hit, or when that answer was unpriced. */
  cache_saved_usd: usd.nullable(),
})

/** Which requests, in which order: the list and the export take the same. */
const selection = z.object({
  filter: requestFilter.default({}),
  sort: z.enum(['created_at', 'latency_ms', 'cost_usd', 'total_tokens', 'status']).default('created_at'),
  order: z.enum(['asc', 'desc']).default('desc'),
})

export const requestOps = {
  'requests.list': op({
    summary: 'Request records, filtered, sorted and paginated on the server',
    access: 'user',
    input: selection
      .extend({
        limit: z.number().int().min(1).max(500).default(50),
        offset: z.number().int().min(0).default(0),
      })
      .strict(),
    output: z.object({ items: z.array(requestRow), total: z.number().int() }),
  }),
  'requests.export': op({
    summary: 'Every request a filter matches, in the list order, as CSV (at most 100,000 rows; larger selections say truncated)',
    access: 'user',
    input: selection.strict(),
    output: z.object({ csv: z.string(), rows: z.number().int(), truncated: z.boolean() }),
  }),
  'requests.get': op({
    summary: 'One record: attribution, dimensions, ignored attribution, attempts, cost, timings, bodies when logged',
    access: 'user',
    input: z.object({ id: z.string() }).strict(),
    output: z.object({
      record: z.record(z.string(), z.unknown()),
      bodies: z.object({ request: z.unknown(), response: z.unknown() }).nullable(),
      /** Figures the record's cost had before each repricing, oldest first (null: it was unpriced). */
      cost_history: z.array(z.object({ repriced_at: time, old_usd: z.number().nullable(), new_usd: z.number().nullable(), actor: z.string() })),
    }),
  }),
}
