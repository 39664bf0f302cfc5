import { invalidRequest } from './errors'

/**
 * How deeply a JSON body may nest. Real requests stay far below it (a tool's JSON schema inside a
 * body is some 20 levels), and everything the gateway does with a body within it (serialising,
 * estimating, translating) stays far from the stack's end; JSON.stringify alone overflows from a
 * few thousand levels.
 */
export const MAX_JSON_DEPTH = 128

type Path = Array<string | number>

/** What is wrong with a parsed JSON value: too deep, or a number JSON cannot carry (at `path`). */
type Problem = { tooDeep: true } | { tooDeep: false; path: Path; value: number }

const TOO_DEEP: Problem = { tooDeep: true }

/** A value at `depth` (1 for the root): a number must be finite, a container within the limit. */
function visit(v: unknown, depth: number): Problem | null {
  if (typeof v === 'number') return Number.isFinite(v) ? null : { tooDeep: false, path: [], value: v }
  return typeof v === 'object' && v !== null ? scan(v, depth) : null
}

/** The path to a bad number is built on the way out of a failure only: a sound body pays for none of it. */
function under(problem: Problem, key: string | number): Problem {
  if (!problem.tooDeep) problem.path.push(key)
  return problem
}

/** One pass over a parsed value; bounded by MAX_JSON_DEPTH, it cannot overflow the stack itself. */
function scan(value: object, depth: number): Problem | null {
  if (depth > MAX_JSON_DEPTH) return TOO_DEEP
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = visit(value[i], depth + 1)
      if (problem) return under(problem, i)
    }
    return null
  }
  // A parsed body's objects are plain, with no inherited enumerable keys: for-in is the cheapest walk.
  for (const key in value) {
    const problem = visit((value as Record<string, unknown>)[key], depth + 1)
    if (problem) return under(problem, key)
  }
  return null
}

/** The exact depth of a value known to be too deep, without recursion: only refusals pay for it. */
function depthOf(root: object): number {
  let max = 0
  const values: unknown[] = [root]
  const depths: number[] = [1]
  while (values.length > 0) {
    const v = values.pop()
    const d = depths.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (d > max) max = d
    for (const child of Object.values(v)) {
      values.push(child)
      depths.push(d + 1)
    }
  }
  return max
}

/** `messages[0].content[2].x`; long keys are cut so an error message stays readable. */
function pathText(prefix: string, path: Path): string {
  let out = prefix
  for (let i = path.length - 1; i >= 0; i--) {
    const key = path[i]
    if (typeof key === 'number') out += `[${key}]`
    else out += `${out === '' ? '' : '.'}${key.length > 64 ? `${key.slice(0, 64)}…` : key}`
  }
  return out
}

/**
 * Refuses a parsed JSON value the gateway cannot safely carry with a 400 naming the problem: one
 * nested deeper than MAX_JSON_DEPTH, or holding a number beyond a double's range (JSON.parse reads
 * `1e999` as Infinity, which JSON.stringify would send on as null). `where` names the value in
 * messages and `param`: null for a whole request body, or the field a JSON string came from.
 */
export function assertBoundedJson(value: unknown, where: string | null = null): void {
  const problem = visit(value, 1)
  if (!problem) return
  if (problem.tooDeep) {
    const depth = depthOf(value as object)
    const what = where ?? 'The request body'
    throw invalidRequest(`${what} is nested ${depth} levels deep; the limit is ${MAX_JSON_DEPTH}.`, where, 'json_too_deep')
  }
  const param = pathText(where ?? '', problem.path)
  throw invalidRequest(
    `${param || 'The request body'} is a number too large for JSON (it reads as ${problem.value}); send a finite number.`,
    param || null,
    'invalid_number',
  )
}
