import type { z } from 'zod'

/** Field errors from a zod schema, keyed by the dotted path the server would name in ContractError.field. */
export function validate(schema: z.ZodType, value: unknown): Record<string, string> {
  const r = schema.safeParse(value)
  if (r.success) return {}
  const out: Record<string, string> = {}
  for (const issue of r.error.issues) {
    const key = issue.path.length ? issue.path.join('.') : 'input'
    if (!out[key]) out[key] = issue.message
  }
  return out
}
