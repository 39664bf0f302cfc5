import { z } from 'zod'
import { op } from './op'
import { empty, ok, time } from './common'

/** At most this many `*` in a pattern: enough for `claude-*-4-*`, few enough to stay cheap to match. */
export const MAX_ALIAS_WILDCARDS = 3

/**
 * A model id or a glob over model ids: `*` matches any run of characters, nothing else is special.
 * Letters, digits and `. _ - : / @ *` (what model ids use).
 */
export const aliasPattern = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(200, 'at most 200 characters')
  .regex(/^[A-Za-z0-9._:/@*-]+$/, 'may hold only letters, digits and . _ - : / @ *')
  .refine((p) => p.split('*').length - 1 <= MAX_ALIAS_WILDCARDS, `at most ${MAX_ALIAS_WILDCARDS} * wildcards`)

export const alias = z.object({
  pattern: z.string(),
  /** `<provider>/<model>`, a bare catalog model, or a preset (`policy/<name>`, `@preset/<name>`). */
  target: z.string(),
  note: z.string().nullable(),
  created_at: time,
  updated_at: time,
})

export type Alias = z.infer<typeof alias>

export const aliasOps = {
  'aliases.list': op({
    summary: 'Model aliases: patterns over requested model ids and where each sends them',
    access: 'user',
    input: empty,
    output: z.array(alias),
  }),
  'aliases.set': op({
    summary: 'Create or replace the alias for a pattern; the target must be a known provider, preset or catalog model',
    access: 'admin',
    input: z
      .object({
        pattern: aliasPattern,
        to: z.string().trim().min(1, 'is required').max(300, 'at most 300 characters'),
        note: z.string().max(500).nullish(),
      })
      .strict(),
    output: alias,
  }),
  'aliases.remove': op({
    summary: 'Remove the alias for a pattern',
    access: 'admin',
    input: z.object({ pattern: z.string().trim().min(1, 'is required') }).strict(),
    output: ok,
  }),
}
