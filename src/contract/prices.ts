import { z } from 'zod'
import { op } from './op'
import { ok, time } from './common'

/**
 * One schema for a price row, used by the built-in catalog (checked by a test), by stored
 * overrides, the `prices.*` operations, `gw prices set --file` and the dashboard's editor: an
 * override can say everything the catalog can. Prices are USD per 1M tokens.
 */

const usdPer1M = z.number().finite().nonnegative()

/** A UTC calendar date (YYYY-MM-DD) that exists. */
export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .refine((d) => {
    const t = Date.parse(`${d}T00:00:00Z`)
    return Number.isFinite(t) && new Date(t).toISOString().startsWith(d)
  }, 'not a calendar date')

const rateFields = {
  input: usdPer1M,
  output: usdPer1M.optional(),
  /** Cache read / cache hit rate. Absent: cached tokens bill at `input`. */
  cached_input: usdPer1M.optional(),
  /** Cache write rate (OpenAI GPT-5.6+ 30-minute write; Anthropic 5-minute write). */
  cache_write: usdPer1M.optional(),
  /** Anthropic 1-hour cache write. Absent: 1-hour writes bill at `cache_write`. */
  cache_write_1h: usdPer1M.optional(),
}

export const tokenRates = z.object(rateFields).strict()

const tierName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, - and _')
const multiplier = z.number().finite().positive().max(100)

/**
 * What the provider's service tiers and data-residency settings cost, as multipliers of every
 * token rate (cache reads and writes included): `service_tiers` by the tier name the provider
 * reports serving (OpenAI `flex`, `priority`/`fast`; Anthropic fast mode as `fast`),
 * `inference_geo` by region (Anthropic `us`). A tier the row does not list is not priced; the
 * standard tier (`default`, `standard`, `auto`) always bills at 1x.
 */
const tierFields = {
  service_tiers: z.record(tierName, multiplier).optional(),
  inference_geo: z.record(tierName, multiplier).optional(),
  /** Per-call fees in USD per 1,000 calls, by what the provider reports: web searches (Gemini: grounded queries). */
  call_fees: z.object({ web_search: z.number().finite().nonnegative().optional() }).strict().optional(),
}

/** Whole-request long-context tier: when the prompt crosses the line, every token bills at these rates. */
export const longContextTier = z
  .object({
    ...rateFields,
    /** The tier applies when prompt tokens (input + cache reads + cache writes) are greater than this. */
    above_prompt_tokens: z.number().int().nonnegative(),
  })
  .strict()

/**
 * Rates in force for a span of time: from `from` (UTC midnight, inclusive) until `until` (UTC
 * midnight, exclusive); an open end runs on. A price cut or rise is a row with `from`; a past price
 * is a row with `until` (the row's own rates being today's); a promotion has both. Where rows
 * overlap, the one that started last wins. A row replaces the rates and the long-context tier
 * together; tier multipliers and call fees it leaves out stay the model's.
 */
export const scheduledRates = z
  .object({ ...rateFields, ...tierFields, from: isoDate.optional(), until: isoDate.optional(), long_context: longContextTier.optional() })
  .strict()
  .refine((r) => r.from !== undefined || r.until !== undefined, 'a dated row needs from, until or both')
  .refine((r) => r.from === undefined || r.until === undefined || r.from < r.until, { message: 'until must be after from', path: ['until'] })

const hour = z.number().int().min(0).max(24)

/** Time-of-day pricing (DeepSeek): `rates` apply inside the windows on working days, the list rates outside. */
export const peakPricing = z
  .object({
    /** UTC hour ranges [start, end) during which peak rates apply. */
    windows_utc: z.array(z.tuple([hour, hour]).refine(([s, e]) => s < e, 'a window ends after it starts')).min(1),
    /** Saturdays and Sundays (in the calendar's time zone, UTC without one) are off-peak all day. */
    weekdays_only: z.boolean(),
    /** A holiday calendar (by name) whose holidays are off-peak all day. */
    calendar: z.string().min(1).optional(),
    rates: tokenRates,
  })
  .strict()

const rowFields = {
  ...rateFields,
  ...tierFields,
  context_length: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  long_context: longContextTier.optional(),
  schedule: z.array(scheduledRates).optional(),
  peak: peakPricing.optional(),
}

/**
 * What a user's override holds: the catalog row's prices and limits. `kind` may be left out when
 * the catalog knows the model (or there is an output price: a chat model).
 */
export const priceRow = z.object({ ...rowFields, kind: z.enum(['chat', 'embedding']).optional() }).strict()

/** A row of the built-in catalog. */
export const catalogModel = z
  .object({
    ...rowFields,
    kind: z.enum(['chat', 'embedding']),
    /** Provider id as used in `<provider-id>/<model>`. */
    provider: z.string().min(1),
    /** Model id as the provider names it upstream. */
    model: z.string().min(1),
    /** Lifecycle note shown in the model list (deprecated, shutdown date, promotion). */
    status: z.string().optional(),
    /** True when a figure is flagged UNCONFIRMED or CONFLICT in the source table. */
    unconfirmed: z.boolean().optional(),
    /**
     * Other ids billed at this row: dated snapshots, legacy names, and retired slugs the provider
     * still bills at this model's rates. A trailing `*` matches any rest (`grok-3*`).
     */
    aliases: z.array(z.string().min(1)).optional(),
  })
  .strict()

/**
 * Days a provider's calendar treats apart: `holidays` are off-peak all day; `workdays` are
 * weekend days worked in their place (China's make-up working days), peak like a weekday.
 */
export const holidayCalendar = z
  .object({
    /** Offset of the calendar's time zone from UTC, in minutes (Beijing: 480). */
    utc_offset_minutes: z.number().int().min(-720).max(840),
    holidays: z.array(isoDate),
    workdays: z.array(isoDate),
    /** Date the table was compiled, and where it comes from. */
    as_of: isoDate,
    source: z.string().max(500),
  })
  .strict()

const modelRef = z.string().regex(/^[^/\s]+\/\S+$/, 'use provider/model')
const calendarName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, - and _')

export const priceOverride = z.object({
  model: z.string(),
  row: priceRow,
  /** The date the price was set or published. */
  as_of: isoDate,
  note: z.string().nullable(),
  updated_at: time,
})

export const repriceResult = z.object({
  /** Records looked at, and those whose cost changed (or became priced). */
  examined: z.number().int(),
  changed: z.number().int(),
  /** Sum of new costs minus old costs over the changed records. */
  delta_usd: z.number(),
  /** Prepaid-key ledger adjustments written (none on a dry run). */
  adjustments: z.number().int(),
  /** More records remain after `next_cursor`: call again with it. */
  next_cursor: z.string().nullable(),
  dry_run: z.boolean(),
  sample: z.array(
    z.object({
      id: z.string(),
      model: z.string().nullable(),
      old_usd: z.number().nullable(),
      new_usd: z.number().nullable(),
      price_source: z.string().nullable(),
    }),
  ),
})

const listedRates = z.object({
  input: z.number(),
  output: z.number().optional(),
  cached_input: z.number().optional(),
  cache_write: z.number().optional(),
})

export const refreshResult = z.object({
  /** The listing's address (the `price_source_url` setting). */
  source: z.string(),
  /** The built-in catalog's date, which stands for every model the refresh leaves alone. */
  catalog_as_of: z.string(),
  /** True when the rows were saved as overrides dated today. */
  applied: z.boolean(),
  counts: z.object({
    /** Models the price book lacks, of providers the gateway knows. */
    new: z.number().int(),
    /** Models whose listed rates differ from the ones billed now. */
    changed: z.number().int(),
    unchanged: z.number().int(),
    /** Listed models of other vendors, free variants, or without a usable price. */
    skipped: z.number().int(),
  }),
  rows: z.array(z.object({ model: z.string(), status: z.enum(['new', 'changed']), current: listedRates.nullable(), listed: listedRates })),
})

export const priceOps = {
  'prices.list': op({
    summary: 'Price overrides (full rows) and holiday calendars in force',
    access: 'user',
    input: z.object({}).strict(),
    output: z.object({
      overrides: z.array(priceOverride),
      calendars: z.array(z.object({ name: z.string(), calendar: holidayCalendar, source: z.enum(['catalog', 'override']) })),
    }),
  }),
  'prices.get': op({
    summary: 'The whole price row a model is billed at now (override or catalog), to edit',
    access: 'user',
    input: z.object({ model: modelRef }).strict(),
    output: z.object({ row: priceRow, source: z.string(), note: z.string().nullable() }).nullable(),
  }),
  'prices.set': op({
    summary: 'Override a model’s price with a full price row (USD per 1M tokens)',
    access: 'admin',
    input: z
      .object({
        model: modelRef,
        row: priceRow,
        /** Defaults to today (UTC). */
        as_of: isoDate.optional(),
        note: z.string().max(500).nullable().default(null),
      })
      .strict(),
    output: ok,
  }),
  'prices.remove': op({ summary: 'Remove a price override', access: 'admin', input: z.object({ model: z.string() }).strict(), output: ok }),
  'prices.setCalendar': op({
    summary: 'Override a holiday calendar (DeepSeek off-peak days follow the `cn` one)',
    access: 'admin',
    input: z.object({ name: calendarName, calendar: holidayCalendar }).strict(),
    output: ok,
  }),
  'prices.removeCalendar': op({
    summary: 'Remove a holiday calendar override; the catalog’s table applies again',
    access: 'admin',
    input: z.object({ name: z.string() }).strict(),
    output: ok,
  }),
  'prices.refresh': op({
    summary: 'Compare the price listing at the `price_source_url` setting with the price book; with `apply`, save the differences as dated overrides',
    access: 'admin',
    input: z.object({ apply: z.boolean().default(false) }).strict(),
    output: refreshResult,
  }),
  'prices.reprice': op({
    summary: 'Recompute stored costs from stored usage with the current price book (one batch per call)',
    access: 'admin',
    input: z
      .object({
        since: isoDate,
        model: z.string().min(1).optional(),
        dry_run: z.boolean().default(false),
        /** Where the previous call stopped (its `next_cursor`). */
        cursor: z.string().optional(),
        limit: z.number().int().min(1).max(5000).default(500),
      })
      .strict(),
    output: repriceResult,
  }),
}
