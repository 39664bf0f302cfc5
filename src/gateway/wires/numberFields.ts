import { invalidRequest } from '../errors'

/** A numeric field's bounds; integers never leave the range a double holds exactly. */
export interface NumberRule {
  integer?: boolean
  min?: number
  max?: number
}

const typeName = (v: unknown): string =>
  Array.isArray(v)
    ? 'an array'
    : typeof v === 'number'
      ? Number.isInteger(v)
        ? 'an integer'
        : 'a decimal number'
      : typeof v === 'object'
        ? 'an object'
        : `a ${typeof v}`

/**
 * Refuses a numeric field of the wrong type or out of range, in OpenAI's words and codes, naming
 * it in `param`. Absent and null fields pass: OpenAI takes null for "unset".
 */
export function checkNumbers(body: Record<string, unknown>, rules: Record<string, NumberRule>): void {
  for (const field in rules) {
    const v = body[field]
    if (v === undefined || v === null) continue
    const rule = rules[field]
    const kind = rule.integer ? 'integer' : 'decimal'
    if (typeof v !== 'number' || (rule.integer && !Number.isInteger(v))) {
      throw invalidRequest(
        `Invalid type for '${field}': expected ${rule.integer ? 'an integer' : 'a number'}, but got ${typeName(v)} instead.`,
        field,
        'invalid_type',
      )
    }
    const min = rule.min ?? (rule.integer ? Number.MIN_SAFE_INTEGER : undefined)
    const max = rule.max ?? (rule.integer ? Number.MAX_SAFE_INTEGER : undefined)
    if (min !== undefined && v < min) {
      throw invalidRequest(
        `Invalid '${field}': ${kind} below minimum value. Expected a value >= ${min}, but got ${v} instead.`,
        field,
        `${kind}_below_min_value`,
      )
    }
    if (max !== undefined && v > max) {
      throw invalidRequest(
        `Invalid '${field}': ${kind} above maximum value. Expected a value <= ${max}, but got ${v} instead.`,
        field,
        `${kind}_above_max_value`,
      )
    }
  }
}

/** Refuses a field that must be a boolean when set. */
export function checkBoolean(body: Record<string, unknown>, field: string): void {
  const v = body[field]
  if (v !== undefined && v !== null && typeof v !== 'boolean') {
    throw invalidRequest(`Invalid type for '${field}': expected a boolean, but got ${typeName(v)} instead.`, field, 'invalid_type')
  }
}
