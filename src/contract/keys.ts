import { z } from 'zod'
import { op } from './op'
import { empty, time, usd } from './common'

const glob = z.string().trim().min(1).max(200)

export const softCap = z
  .object({
    /** A priced chat model the key's policy allows: `<provider>/<model>` or a bare catalog id. */
    model: z.string().trim().min(1, 'is required').max(200),
    /** The share of a spend limit from which requests go to `model`. */
    at_percent: z.number().int('must be a whole number').min(1, 'must be between 1 and 99').max(99, 'must be between 1 and 99'),
  })
  .strict()

export type SoftCap = z.infer<typeof softCap>

/** The spend limit near which a soft cap sent a request to its model. */
export const softLimit = z.enum(['daily', 'monthly', 'session'])
export type SoftLimit = z.infer<typeof softLimit>

/** Rules checked before anything reaches a provider; a breach is a 403 policy_violation (429 for rpm). */
export const keyPolicy = z
  .object({
    /** Globs over the requested model and the resolved `provider/model` (`gpt-4o*`, `openai/*`). */
    allowed_models: z.array(glob).max(50).optional(),
    /** Globs over provider ids. */
    allowed_providers: z.array(glob).max(50).optional(),
    /** Only presets (named or the key's default) may be used. */
    preset_only: z.boolean().optional(),
    /** Ceiling on max_tokens / max_completion_tokens; injected when the caller sends none. */
    max_tokens: z.number().int().positive().optional(),
    /** Worst-case cost of one request, from its prompt and max_tokens at list price. */
    max_cost_per_request_usd: z.number().positive().optional(),
    /** Requests per minute, sliding window. */
    rpm: z.number().int().positive().optional(),
    /** What one session (its session id) may spend on this key: recorded cost plus what its requests in flight reserved. */
    max_session_usd: z.number().positive().optional(),
    /** Requests one session may make on this key, those in flight included (token counts aside). */
    max_session_requests: z.number().int().positive().optional(),
    /**
     * The softer cap: once what the key spent (and its requests in flight reserved) reaches
     * `at_percent` of a spend limit (daily, monthly, a session's), requests go to `model` instead
     * of the model they asked for; the limit itself still refuses at 100 %.
     */
    soft_cap: softCap.optional(),
  })
  .strict()

export type KeyPolicy = z.infer<typeof keyPolicy>

export const keySummary = z.object({
  id: z.string(),
  name: z.string(),
  /** gw-<8 characters>…<last 4>: the secret is never shown again after creation. */
  masked: z.string(),
  owner: z.object({ id: z.string(), username: z.string() }).nullable(),
  created_at: time,
  revoked_at: time.nullable(),
  last_used_at: time.nullable(),
  default_preset: z.string().nullable(),
  policy: keyPolicy,
  prepaid: z.boolean(),
  /** Null for an unlimited key. */
  balance_usd: usd.nullable(),
  daily_limit_usd: usd.nullable(),
  monthly_limit_usd: usd.nullable(),
  /** How long the response cache keeps this key's deterministic answers, in seconds; null: off. */
  response_cache_ttl_s: z.number().int().nullable(),
})
export type KeySummary = z.infer<typeof keySummary>

export const ledgerEntry = z.object({
  id: z.number().int(),
  created_at: time,
  amount_usd: usd,
  kind: z.enum(['top_up', 'adjustment', 'usage']),
  request_id: z.string().nullable(),
  actor: z.string(),
  note: z.string().nullable(),
})

/**
 * The largest amount a balance, limit or top-up takes. Amounts are stored as pico-dollars in
 * 64-bit integers, which end at $9,223,372; a million leaves a key's ledger room for several
 * such top-ups, and past it an amount is a typo.
 */
const MAX_USD = 1_000_000
const amount = usd.max(MAX_USD, 'must be at most 1,000,000')

/** The longest a cached answer is kept: a month, past which a development loop's answer is history. */
export const MAX_CACHE_TTL_S = 30 * 86_400

const settings = z.object({
  default_preset: z.string().nullable().optional(),
  policy: keyPolicy.optional(),
  daily_limit_usd: amount.nonnegative().nullable().optional(),
  monthly_limit_usd: amount.nonnegative().nullable().optional(),
  /** Turns the response cache on for the key's deterministic requests, keeping answers this many seconds (at most 30 days); null turns it off. */
  response_cache_ttl_s: z
    .number()
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1 second')
    .max(MAX_CACHE_TTL_S, 'must be at most 30 days (2592000 seconds)')
    .nullable()
    .optional(),
})

const money = amount.min(-MAX_USD, 'must be at least -1,000,000').refine((n) => n !== 0, 'must not be zero')

export const keyOps = {
  'keys.list': op({ summary: 'Keys (a member sees their own)', access: 'user', input: empty, output: z.array(keySummary) }),
  'keys.find': op({
    summary: 'The key a person named: its id, its exact name, or the gw- prefix copied from a listing',
    access: 'user',
    input: z.object({ ref: z.string().trim().min(1, 'is required') }).strict(),
    output: keySummary,
  }),
  'keys.get': op({
    summary: 'One key with its ledger (newest first) and what it spent in the current UTC day and month (what its limits count)',
    access: 'user',
    input: z.object({ id: z.string(), ledger_limit: z.number().int().min(1).max(10_000).default(200) }).strict(),
    output: z.object({
      key: keySummary,
      ledger: z.array(ledgerEntry),
      spent: z.object({ today_usd: usd, month_usd: usd }),
      /** Responses the gateway keeps for this key (answered through a provider of another wire), not yet expired. */
      stored_responses: z.number().int().nonnegative(),
    }),
  }),
  'keys.create': op({
    summary: 'Create a key; the secret is in this answer only',
    access: 'user',
    input: settings
      .extend({
        name: z.string().trim().min(1, 'is required').max(100),
        /** Prepaid opening balance; absent means unlimited. */
        balance_usd: amount.nonnegative().optional(),
        /** Admins may create keys for another user. */
        owner_id: z.string().optional(),
      })
      .strict(),
    output: z.object({ secret: z.string(), key: keySummary }),
  }),
  'keys.update': op({
    summary: 'Change a key’s default preset, policy or spend limits (null clears)',
    access: 'user',
    input: settings.extend({ id: z.string() }).strict(),
    output: keySummary,
  }),
  'keys.revoke': op({
    summary: 'Revoke a key; its next request gets 401 (409 if it already was)',
    access: 'user',
    input: z.object({ id: z.string() }).strict(),
    output: keySummary,
  }),
  'keys.deleteResponses': op({
    summary: 'Delete the Responses the gateway keeps for a key; answers how many were there (clients can no longer continue them)',
    access: 'user',
    input: z.object({ id: z.string() }).strict(),
    output: z.object({ deleted: z.number().int().nonnegative() }),
  }),
  'keys.topUp': op({
    summary: 'Add to a key’s prepaid balance (makes an unlimited key prepaid)',
    access: 'admin',
    input: z.object({ id: z.string(), amount_usd: amount.positive('must be positive'), note: z.string().max(500).optional() }).strict(),
    output: keySummary,
  }),
  'keys.adjust': op({
    summary: 'Correct a prepaid balance up or down, saying why',
    access: 'admin',
    input: z.object({ id: z.string(), amount_usd: money, note: z.string().trim().min(1, 'say why').max(500) }).strict(),
    output: keySummary,
  }),
}
