import { invalidRequest } from '../errors'
import { parseDuration } from '../../contract/duration'
import { MAX_CACHE_TTL_S } from '../../contract/keys'
import type { Attribution } from '../store/requestsRepo'
import { TOOL_HEADERS, ToolHeaders, toolOf, toolSession } from './recogniseTool'

/** Spec section 8. */
export const LIMITS = { envelopeBytes: 2048, extraEntries: 12, tags: 12, stringLength: 128, headerDimensions: 12 }

export interface AttributionResult {
  attribution: Attribution
  dimensions: Record<string, string>
  ignored: Array<{ name: string; reason: string }>
  /** The tool that sent the request (`claude-code 2.1.330`), as its headers say; null when they say nothing. */
  tool: string | null
  /**
   * The response cache as the request asked for it (`gw.cache`, else `X-Gw-Cache`): seconds to
   * keep its answer, 0 to stay out of a cache its key turned on; null when it did not say.
   */
  cache: number | null
}

const ENVELOPE_FIELDS = new Set(['user_id', 'trace_id', 'session_id', 'tags', 'extra', 'auto_cache', 'cache'])
const CACHE_HEADER = 'x-gw-cache'

/**
 * A request's own word on the response cache: a duration (`1h`, `30m`, `90s`, `7d`, or seconds),
 * or `off`/`0`/false to stay out; null when it is not one of those or over 30 days.
 */
function cacheAsked(value: unknown): number | null {
  if (value === false || value === 'off' || value === 'none') return 0
  const seconds = typeof value === 'number' ? (Number.isInteger(value) && value >= 0 ? value : null) : typeof value === 'string' ? parseDuration(value) : null
  return seconds !== null && seconds <= MAX_CACHE_TTL_S ? seconds : null
}

/** `gw.cache` from the body: a bad value is the caller's error, named. */
function envelopeCache(gw: unknown): number | null {
  const value = (gw as Record<string, unknown> | undefined)?.cache
  if (value === undefined || value === null) return null
  const seconds = cacheAsked(value)
  if (seconds === null)
    throw invalidRequest('gw.cache must be a duration such as "1h", "30m" or "90s" (at most 30 days), a number of seconds, or false', 'gw.cache')
  return seconds
}
const HEADER_FIELDS: Record<string, 'user_id' | 'trace_id' | 'session_id'> = {
  'x-gw-user-id': 'user_id',
  'x-gw-trace-id': 'trace_id',
  'x-gw-session-id': 'session_id',
}

function boundedString(value: unknown, param: string): string {
  if (typeof value !== 'string') throw invalidRequest(`${param} must be a string`, param)
  if (value.length > LIMITS.stringLength) {
    throw invalidRequest(`${param} is ${value.length} characters long; the limit is ${LIMITS.stringLength}`, param)
  }
  return value
}

/** The `gw` body envelope: any breach of its bounds or types is the caller's error, named by `param`. */
export function parseEnvelope(gw: unknown): Attribution {
  const attribution: Attribution = { user_id: null, trace_id: null, session_id: null, session_derived: false, tags: [], extra: {}, auto_cache: null }
  if (gw === undefined) return attribution
  if (typeof gw !== 'object' || gw === null || Array.isArray(gw)) throw invalidRequest('gw must be an object', 'gw')
  const size = Buffer.byteLength(JSON.stringify(gw))
  if (size > LIMITS.envelopeBytes) {
    throw invalidRequest(`gw is ${size} bytes as JSON; the limit is ${LIMITS.envelopeBytes}`, 'gw')
  }
  const env = gw as Record<string, unknown>
  for (const field of Object.keys(env)) {
    if (!ENVELOPE_FIELDS.has(field)) {
      throw invalidRequest(`gw.${field} is not a known field (allowed: ${[...ENVELOPE_FIELDS].join(', ')})`, `gw.${field}`)
    }
  }
  for (const field of ['user_id', 'trace_id', 'session_id'] as const) {
    if (env[field] !== undefined && env[field] !== null) attribution[field] = boundedString(env[field], `gw.${field}`)
  }
  if (env.tags !== undefined) {
    if (!Array.isArray(env.tags)) throw invalidRequest('gw.tags must be an array of strings', 'gw.tags')
    if (env.tags.length > LIMITS.tags) {
      throw invalidRequest(`gw.tags has ${env.tags.length} entries; the limit is ${LIMITS.tags}`, 'gw.tags')
    }
    attribution.tags = [...new Set(env.tags.map((t, i) => boundedString(t, `gw.tags[${i}]`)))]
  }
  if (env.extra !== undefined) {
    if (typeof env.extra !== 'object' || env.extra === null || Array.isArray(env.extra)) {
      throw invalidRequest('gw.extra must be a flat object of string values', 'gw.extra')
    }
    const entries = Object.entries(env.extra)
    if (entries.length > LIMITS.extraEntries) {
      throw invalidRequest(`gw.extra has ${entries.length} entries; the limit is ${LIMITS.extraEntries}`, 'gw.extra')
    }
    for (const [k, v] of entries) {
      boundedString(k, `gw.extra.${k.slice(0, 40)}`)
      attribution.extra[k.toLowerCase()] = boundedString(v, `gw.extra.${k}`)
    }
  }
  if (env.auto_cache !== undefined) {
    if (typeof env.auto_cache !== 'boolean') throw invalidRequest('gw.auto_cache must be a boolean', 'gw.auto_cache')
    attribution.auto_cache = env.auto_cache
  }
  return attribution
}

/**
 * Combines the envelope with `X-Gw-*` headers (rawHeaders keeps their order, which decides the
 * first 12). Header problems never fail a request: they are dropped and listed in `ignored`.
 * The same pass collects the headers a tool names itself and its session by: where the caller set
 * no session, the tool's own becomes the request's, marked `session_derived`. `bodySession` reads
 * a session a body names (Claude Code's `metadata.user_id`), only when no header named one.
 */
export function resolveAttribution(gw: unknown, rawHeaders: string[], bodySession: (() => string | null) | null = null): AttributionResult {
  const attribution = parseEnvelope(gw)
  let cache = envelopeCache(gw)
  const ignored: AttributionResult['ignored'] = []
  const headerDimensions: Record<string, string> = {}
  let toolHeaders: ToolHeaders | null = null
  let dimensionCount = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    const value = rawHeaders[i + 1]
    if (!name.startsWith('x-gw-')) {
      if (TOOL_HEADERS.has(name)) (toolHeaders ??= new ToolHeaders())[name as keyof ToolHeaders] ??= value
      continue
    }
    if (value.length > LIMITS.stringLength) {
      ignored.push({ name, reason: `value is ${value.length} characters; the limit is ${LIMITS.stringLength}` })
      continue
    }
    if (name === CACHE_HEADER) {
      const seconds = cacheAsked(value.trim())
      if (seconds === null) ignored.push({ name, reason: 'not a duration such as 1h, 30m or 90s (at most 30 days), nor off' })
      else if (cache !== null) ignored.push({ name, reason: 'gw.cache in the body wins' })
      else cache = seconds
      continue
    }
    const field = HEADER_FIELDS[name]
    if (field) {
      if (attribution[field] !== null) ignored.push({ name, reason: `gw.${field} in the body wins` })
      else attribution[field] = value
      continue
    }
    const dimension = name.slice('x-gw-'.length)
    if (dimension === '') continue
    if (dimension in headerDimensions) {
      ignored.push({ name, reason: 'repeated header; the first value counts' })
      continue
    }
    if (dimensionCount >= LIMITS.headerDimensions) {
      ignored.push({ name, reason: `more than ${LIMITS.headerDimensions} dimension headers` })
      continue
    }
    dimensionCount++
    if (dimension in attribution.extra) {
      ignored.push({ name, reason: `gw.extra.${dimension} in the body wins` })
      continue
    }
    headerDimensions[dimension] = value
  }
  if (attribution.session_id === null) {
    attribution.session_id = toolSession(toolHeaders, bodySession)
    attribution.session_derived = attribution.session_id !== null
  }
  return { attribution, dimensions: { ...headerDimensions, ...attribution.extra }, ignored, tool: toolOf(toolHeaders), cache }
}
