import { z } from 'zod'

export const ok = z.object({ ok: z.literal(true) })
export const empty = z.object({}).strict()
export const usd = z.number().finite()
/** Unix milliseconds. */
export const time = z.number().int()
export const id = z.string().min(1).max(200)
