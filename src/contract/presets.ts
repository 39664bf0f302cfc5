import { z } from 'zod'
import { op } from './op'
import { empty, ok } from './common'
import { MAX_CACHE_TTL_S, softCap, type SoftCap } from './keys'

export const presetName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a slug: lower-case letters, digits, - and _, at most 64 characters')

/** What a caller may set on a preset; the gateway adds model resolution and output-limit checks. */
export const presetInput = z
  .object({
    name: presetName,
    model: z.string().trim().min(1, 'is required'),
    system_prompt: z.string().max(100_000).nullish(),
    temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').nullish(),
    max_tokens: z.number().int('must be a whole number').positive('must be a positive integer').nullish(),
    top_p: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').nullish(),
    fallbacks: z.array(z.string().trim().min(1)).max(5, 'at most 5 fallback models').default([]),
    description: z.string().max(500).nullish(),
    /** Turns the response cache on for the preset's deterministic requests, keeping answers this many seconds. */
    response_cache_ttl_s: z
      .number({ error: 'must be a duration such as 30m, 1h or 7d' })
      .int('must be a whole number of seconds')
      .min(1, 'must be at least 1 second')
      .max(MAX_CACHE_TTL_S, 'must be at most 30 days')
      .nullish(),
    /** The preset's cached answers serve every key that uses it, not only the key that asked first. */
    response_cache_shared: z.boolean().default(false),
    /**
     * A cheaper model for the preset's requests once a spend limit of the key using it is near
     * (a key's own soft cap wins); the key's limits still refuse at 100 %.
     */
    soft_cap: softCap.nullish(),
    /**
     * The model and its fallbacks are equals (the same model on several providers, or models
     * treated alike): requests without a session take them in turn, and a session keeps to the
     * one that holds its prompt cache while it works.
     */
    equal_candidates: z.boolean().default(false),
  })
  .strict()

export type PresetInput = z.input<typeof presetInput>

export interface Preset {
  name: string
  version: number
  model: string
  system_prompt: string | null
  temperature: number | null
  max_tokens: number | null
  top_p: number | null
  fallbacks: string[]
  description: string | null
  /** Seconds the response cache keeps the preset's deterministic answers; null: the preset turns no cache on. */
  response_cache_ttl_s: number | null
  /** Cached answers of requests under this preset are shared by every key (otherwise each key has its own). */
  response_cache_shared: boolean
  soft_cap: SoftCap | null
  /** The model and its fallbacks are equal candidates, not an order of preference. */
  equal_candidates: boolean
  created_at: number
  created_by: string | null
}

/** "field: message; field: message", for CLI errors and API error bodies alike. */
export const describeIssues = (error: z.ZodError) => error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ')

export const preset = z.object({
  name: z.string(),
  version: z.number().int(),
  model: z.string(),
  system_prompt: z.string().nullable(),
  temperature: z.number().nullable(),
  max_tokens: z.number().int().nullable(),
  top_p: z.number().nullable(),
  fallbacks: z.array(z.string()),
  description: z.string().nullable(),
  response_cache_ttl_s: z.number().int().nullable(),
  response_cache_shared: z.boolean(),
  soft_cap: softCap.nullable(),
  equal_candidates: z.boolean(),
  created_at: z.number().int(),
  created_by: z.string().nullable(),
})

const keyRef = z.object({ id: z.string(), name: z.string() })

export const presetOps = {
  'presets.list': op({
    summary: 'Current version of every preset, with the keys using it as default',
    access: 'user',
    input: empty,
    output: z.array(preset.extend({ default_of_keys: z.array(keyRef) })),
  }),
  'presets.get': op({
    summary: 'A preset with its whole version history (newest first)',
    access: 'user',
    input: z.object({ name: presetName }).strict(),
    output: z.object({ preset, versions: z.array(preset), default_of_keys: z.array(keyRef) }),
  }),
  'presets.save': op({
    summary: 'Create or replace a preset: the input is the whole new version',
    access: 'admin',
    input: presetInput,
    output: preset,
  }),
  'presets.restore': op({
    summary: 'Save an earlier version again as the newest',
    access: 'admin',
    input: z.object({ name: presetName, version: z.number().int().positive() }).strict(),
    output: preset,
  }),
  'presets.delete': op({
    summary: 'Delete a preset; refused while a key has it as default',
    access: 'admin',
    input: z.object({ name: presetName }).strict(),
    output: ok,
  }),
  'presets.preview': op({
    summary: 'The upstream request body a caller message turns into under a preset (saved or draft)',
    access: 'user',
    input: z
      .object({
        preset: presetInput,
        request: z.object({ messages: z.array(z.object({ role: z.string(), content: z.string() })).min(1) }).passthrough(),
      })
      .strict(),
    output: z.object({ provider: z.string(), upstream_model: z.string(), body: z.record(z.string(), z.unknown()) }),
  }),
}
