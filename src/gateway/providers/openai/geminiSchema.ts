import { isObj } from '../../jsonObject'

type Obj = Record<string, unknown>

/**
 * JSON Schema keywords Gemini's function declarations do not take: a tool whose parameters hold
 * one anywhere is refused whole ("Invalid JSON payload received. Unknown name …"). Claude Code's
 * tools carry most of them (zod's JSON Schema output). Each is left out; leaving one out only
 * loosens what the model is told, never what a valid call may be.
 */
const DROPPED = new Set(['$schema', '$id', '$comment', 'additionalProperties', 'propertyNames', 'patternProperties', 'unevaluatedProperties'])

/** The string formats Gemini knows; another is left out. */
const STRING_FORMATS = new Set(['enum', 'date-time'])

/** A schema as Gemini takes it: `const` as a one-value `enum`, exclusive bounds as inclusive ones, the rest as above. */
export function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema)
  if (!isObj(schema)) return schema
  const out: Obj = {}
  for (const [k, v] of Object.entries(schema)) {
    if (DROPPED.has(k)) continue
    if (k === 'const') out.enum = [v]
    // Both bounds of a side may be given: the tighter one stays.
    else if ((k === 'minimum' || k === 'exclusiveMinimum') && typeof v === 'number')
      out.minimum = typeof out.minimum === 'number' ? Math.max(out.minimum, v) : v
    else if ((k === 'maximum' || k === 'exclusiveMaximum') && typeof v === 'number')
      out.maximum = typeof out.maximum === 'number' ? Math.min(out.maximum, v) : v
    else if (k === 'format' && schema.type === 'string' && typeof v === 'string' && !STRING_FORMATS.has(v)) continue
    // Property names are the caller's, not keywords: only their schemas are cleaned.
    else if (k === 'properties' && isObj(v)) out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, geminiSchema(s)]))
    else out[k] = geminiSchema(v)
  }
  return out
}

/** Chat tools with their parameters as Gemini takes them. */
export function geminiTools(tools: unknown): unknown {
  if (!Array.isArray(tools)) return tools
  return tools.map((t: Obj) =>
    isObj(t) && isObj(t.function) && t.function.parameters !== undefined
      ? { ...t, function: { ...t.function, parameters: geminiSchema(t.function.parameters) } }
      : t,
  )
}
