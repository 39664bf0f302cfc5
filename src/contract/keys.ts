import { z } from 'zod'

const glob = z.string().trim().min(1).max(200)

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
  })
  .strict()

export type KeyPolicy = z.infer<typeof keyPolicy>
