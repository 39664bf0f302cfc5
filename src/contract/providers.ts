import { z } from 'zod'
import { op } from './op'
import { empty, ok, time } from './common'

const timeouts = z
  .object({
    connect_ms: z.number().int().positive().optional(),
    first_byte_ms: z.number().int().positive().optional(),
    idle_ms: z.number().int().positive().optional(),
  })
  .strict()

/**
 * The OpenAI wires a provider of kind openai serves: chat completions, the Responses API, or both.
 * Other kinds speak their own (anthropic: the Messages API; gemini: Google's native API, and chat
 * completions through its OpenAI layer).
 */
export const providerWire = z.enum(['chat', 'responses', 'both'])
export type ProviderWire = z.infer<typeof providerWire>

/**
 * Whose variant of OpenAI's chat completions a provider of kind openai speaks, for the quirks that
 * follow from it: `openai` (OpenAI's API, Azure OpenAI or a proxy in front of them: the token limit
 * as max_completion_tokens), `gemini` (Gemini's OpenAI layer: tool schemas and thought signatures
 * as it takes them, reasoning tokens outside completion_tokens), `xai` (reasoning tokens outside
 * completion_tokens), `generic` (none of these). Unset, it follows from the base URL's host.
 */
export const providerDialect = z.enum(['openai', 'gemini', 'xai', 'generic'])
export type ProviderDialect = z.infer<typeof providerDialect>

export const providerInfo = z.object({
  id: z.string(),
  kind: z.string(),
  label: z.string(),
  base_url: z.string(),
  local: z.boolean(),
  /** Never the secret: where it comes from and its last four characters. */
  credential: z.object({ source: z.enum(['env', 'keychain', 'database']), last4: z.string() }).nullable(),
  /** Where a key saved for it is kept, in words: the OS keychain, or the database encrypted under GW_SECRET_KEY. */
  key_store: z.string(),
  timeouts,
  /** Null for kinds other than openai. */
  wire: providerWire.nullable(),
  /** The dialect its quirks follow: the one set for it, else its base URL's; null for kinds other than openai. */
  dialect: providerDialect.nullable(),
  stored: z.boolean(),
})

export const providerStatus = z.union([
  z.object({ ok: z.literal(true), latency_ms: z.number(), models: z.number().int(), checked_at: time }),
  z.object({
    ok: z.literal(false),
    /** What went wrong, in words for any reader: no advice on how a particular tool fixes it. */
    reason: z.string(),
    /** What fixes it, for each transport to say in its own terms: the provider needs an API key. */
    fix: z.literal('api_key').optional(),
    checked_at: time,
  }),
])

export const modelEntry = z.object({
  id: z.string(),
  provider: z.string(),
  upstream_model: z.string(),
  kind: z.enum(['chat', 'embedding']).nullable(),
  context_length: z.number().int().nullable(),
  max_output_tokens: z.number().int().nullable(),
  pricing: z.record(z.string(), z.unknown()).nullable(),
  status: z.string().nullable(),
  availability: z.object({ available: z.boolean(), reason: z.string().nullable() }),
})

export const providerOps = {
  'providers.list': op({ summary: 'Built-in and added providers with credential state', access: 'admin', input: empty, output: z.array(providerInfo) }),
  'providers.set': op({
    summary: 'Add or change a provider; an api_key goes to the OS keychain (or, on PostgreSQL, the database encrypted) and is never shown again',
    access: 'admin',
    input: z
      .object({
        id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, - and _'),
        kind: z.string().optional(),
        base_url: z.string().url().nullable().optional(),
        api_key: z.string().trim().min(1).max(1000).optional(),
        timeouts: timeouts.optional(),
        /** Kind openai only; unset keeps the stored setting, or the provider's default (chat for an added one). */
        wire: providerWire.optional(),
        /** Kind openai only; unset keeps the stored setting, or the one its base URL's host implies. */
        dialect: providerDialect.optional(),
      })
      .strict(),
    output: providerInfo,
  }),
  'providers.remove': op({ summary: 'Remove an added provider and its stored key', access: 'admin', input: z.object({ id: z.string() }).strict(), output: ok }),
  'providers.test': op({
    summary: 'Test connection: the provider’s cheapest real call',
    access: 'admin',
    input: z.object({ id: z.string(), timeout_ms: z.number().int().positive().max(600_000).default(10_000) }).strict(),
    output: providerStatus,
  }),
  'models.list': op({ summary: 'Catalog and provider models with prices, limits and availability', access: 'user', input: empty, output: z.array(modelEntry) }),
}
