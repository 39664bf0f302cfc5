import { z } from 'zod'

export const presetName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a slug: lower-case letters, digits, - and _, at most 64 characters')

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
  created_at: number
  created_by: string | null
}

/** "field: message; field: message", for CLI errors and API error bodies alike. */
export const describeIssues = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ')
