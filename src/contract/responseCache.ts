import { z } from 'zod'
import { op } from './op'
import { empty, usd } from './common'

/** The response cache as it is now, and what it did, as the records tell it. */
export const responseCacheStats = z.object({
  /** Answers kept now, expired ones not yet pruned included. */
  entries: z.number().int().nonnegative(),
  /** What they hold, in bytes. */
  bytes: z.number().int().nonnegative(),
  /** What they may hold in all (`--response-cache-mb`); the oldest go first past it. */
  max_bytes: z.number().int().positive(),
  /** Requests the cache answered, from the records (clearing the cache leaves them). */
  hits: z.number().int().nonnegative(),
  /** What those answers would have cost from their providers, summed from the records. */
  saved_usd: usd,
})

export const responseCacheOps = {
  'cache.stats': op({
    summary: 'The response cache: what it holds, its hits and the money they saved',
    access: 'admin',
    input: empty,
    output: responseCacheStats,
  }),
  'cache.clear': op({
    summary: 'Delete every answer the response cache keeps; answers how many there were',
    access: 'admin',
    input: empty,
    output: z.object({ deleted: z.number().int().nonnegative() }),
  }),
}
