import { isoTime } from '../isoTime'
import { randomText } from '../randomText'
import type { Key } from './keyRules'
import type { Attempt, Outcome, PromptFingerprint, RequestRecord, ResponseCacheNote, RoutingFields, SessionMove, SoftCapSwitch } from '../store/requestsRepo'
import type { ApiError } from '../errors'
import type { Cost, NormalizedUsage } from '../pricing/types'
import type { AttributionResult } from './attribution'
import type { Target } from './resolveModel'
import type { Preset } from '../../contract/presets'
import type { AliasMatch } from './aliases'
import type { AttemptLog, AttemptTrace } from './attemptLog'

/**
 * Request ids sort by creation time: `req_`, the millisecond in 8 base-62 digits (0-9, A-Z, a-z
 * are in byte order, so comparing ids as text compares times, until the year 8900), then 72
 * random bits. Records are inserted in id order, so the id index (and those of tags, dimensions
 * and bodies, keyed by it) grows at its end instead of at random pages: a record with a random id
 * cost 33 µs to write into an empty table and 44–48 µs from 100k records on, one in id order
 * 19–24 µs (bench/record-insert.ts). The random part comes from the CSPRNG's pool (`randomText`).
 */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_BYTES = 9
let stampMs = -1
let stamp = ''

function timeStamp(ms: number): string {
  let s = ''
  for (let i = 0, t = ms; i < 8; i++, t = Math.floor(t / 62)) s = DIGITS[t % 62] + s
  return s
}

/** An id below every id made from `ms` on: where a scan of requests by time starts. */
export const requestIdFloor = (ms: number) => `req_${timeStamp(ms)}`

/** The millisecond a request id was made in; null for an id not made by `newRequestId`. */
export function timeOfRequestId(id: string): number | null {
  if (!id.startsWith('req_') || id.length < 12) return null
  let t = 0
  for (let i = 4; i < 12; i++) {
    const d = DIGITS.indexOf(id[i])
    if (d < 0) return null
    t = t * 62 + d
  }
  return t
}

export const newRequestId = (now = Date.now()) => {
  if (now !== stampMs) {
    stampMs = now
    stamp = timeStamp(now)
  }
  return `req_${stamp}${randomText(RANDOM_BYTES, 'base64url')}`
}

/** The counts of a usage; an anomaly is told in the cost's `unpriced_reason`. */
function recordedUsage(u: NormalizedUsage): Record<string, number> {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    cached_tokens: u.cached_tokens,
    cache_write_tokens: u.cache_write_tokens,
    cache_write_1h_tokens: u.cache_write_1h_tokens,
    reasoning_tokens: u.reasoning_tokens,
    ...(u.web_search_calls !== undefined && { web_search_calls: u.web_search_calls }),
  }
}

/** A field of the caller's request that was not honoured, and why: it goes to the record's `ignored`. */
export interface Dropped {
  name: string
  reason: string
}

/** What a request's answer came to, as the core found it at the end: who answered, the usage, its one price. */
export interface Answered {
  /** The provider and model that answered, or the primary target when none did; null when the model never resolved. */
  target: Target | null
  usage: NormalizedUsage | null
  cost: Cost | null
  /** The provider's id of an answer it keeps for later retrieval (a Responses response). */
  upstreamId: string | null
}

/**
 * Who is asking and how the request was steered: its identity, its key, its attribution, the
 * preset or alias that steered it and the attempts routing made. What its answer came to is not
 * here: the core holds it (`Answered`) and hands both to the record at the end.
 */
export class RequestContext implements AttemptLog {
  /**
   * The request's time, as its id carries it: the id is made from the gateway's clock, so a
   * test's clock sets the time every rate (schedules, peak hours, holidays) is chosen by.
   */
  readonly startedAt: Date
  private readonly t0 = performance.now()
  model: string | null = null
  stream = false
  attribution: AttributionResult = {
    attribution: { user_id: null, trace_id: null, session_id: null, session_derived: false, tags: [], extra: {}, auto_cache: null },
    dimensions: {},
    ignored: [],
    tool: null,
    cache: null,
  }
  /** A preset fallback served instead of the primary model. */
  fallbackUsed = false
  preset: Preset | null = null
  /** The model alias that steered the request. */
  alias: AliasMatch | null = null
  /** Where the key's soft cap sent the request instead. */
  softCap: SoftCapSwitch | null = null
  /** The session left its previous turn's target: from, to and why; what it re-wrote comes from the answer's price. */
  moved: Omit<SessionMove, 'cache_write_tokens' | 'cache_write_usd'> | null = null
  readonly attempts: Attempt[] = []
  /** Whether any attempt went out to a provider (which may bill it even when it failed). */
  sent = false
  /** The request's trace, only when tracing is on. */
  trace: AttemptTrace | null = null
  /** The service tier the body asked for; the one served is in the usage, and is what is billed. */
  requestedTier: string | null = null
  ttfbMs: number | null = null
  source: 'api' | 'playground' = 'api'
  /** What the client sent (JSON text), kept only when body logging is on. */
  requestBody: string | null = null
  /** The prompt's fingerprint for the cache doctor; made only for a request of a session. */
  prompt: PromptFingerprint | null = null
  /** The response cache's part, when the request used it: a miss, or the hit it was answered with. */
  responseCache: ResponseCacheNote | null = null
  private recorded = false

  constructor(
    readonly id: string,
    readonly endpoint: RequestRecord['endpoint'],
    readonly key: Key,
  ) {
    this.startedAt = new Date(timeOfRequestId(id) ?? Date.now())
  }

  /** Notes a field the request could not honour, once whatever the number of candidates that dropped it. */
  ignore(d: Dropped): void {
    const ignored = this.attribution.ignored
    if (!ignored.some((i) => i.name === d.name)) ignored.push(d)
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.t0)
  }

  markFirstByte(): void {
    this.ttfbMs ??= this.elapsedMs()
  }

  /** Where the request went and what it cost, as its record keeps it (and its `gw` block shows it). */
  routing(target: Target | null, cost: Cost | null): RoutingFields {
    const r: RoutingFields = {
      id: this.id,
      model: this.model,
      preset: this.preset?.name ?? null,
      preset_version: this.preset?.version ?? null,
      alias: this.alias === null ? null : { pattern: this.alias.pattern, target: this.alias.target },
      soft_cap: this.softCap,
      provider: target?.provider.id ?? null,
      upstream_model: target?.upstreamModel ?? null,
      attempts: this.attempts,
      fallback_used: this.fallbackUsed,
      cost,
    }
    if (this.responseCache !== null) r.response_cache = this.responseCache
    if (this.moved !== null) r.moved = { ...this.moved, cache_write_tokens: cost?.cache_write_tokens ?? null, cache_write_usd: cost?.cache_write_usd ?? null }
    return r
  }

  /** The record of this request, made by the gateway named `instance`; null when it was already taken (each request is recorded once). */
  toRecord(status: number, outcome: Outcome, error: ApiError | null, instance: string, answered: Answered): RequestRecord | null {
    if (this.recorded) return null
    this.recorded = true
    const a = this.attribution
    const usage = answered.usage
    // Fields listed, not `...this.routing()`: with the spread, ~5 KB per request reached the old
    // generation (a mark-compact every 1.7 s at 7,000 req/s; none in 15 s without it).
    const r = this.routing(answered.target, answered.cost)
    return {
      id: r.id,
      model: r.model,
      preset: r.preset,
      preset_version: r.preset_version,
      alias: r.alias,
      ...(r.soft_cap && { soft_cap: r.soft_cap }),
      ...(r.moved && { moved: r.moved }),
      provider: r.provider,
      upstream_model: r.upstream_model,
      attempts: r.attempts,
      fallback_used: r.fallback_used,
      cost: r.cost,
      created_at: isoTime(this.startedAt.getTime()),
      endpoint: this.endpoint,
      source: this.source,
      source_tool: a.tool,
      instance,
      status,
      outcome,
      key_id: this.key.id,
      stream: this.stream,
      attribution: a.attribution,
      dimensions: a.dimensions,
      ignored: a.ignored,
      usage: usage ? recordedUsage(usage) : null,
      ...((this.requestedTier !== null || usage?.service_tier || usage?.inference_geo) && {
        tier: { requested: this.requestedTier, served: usage?.service_tier ?? null, inference_geo: usage?.inference_geo ?? null },
      }),
      latency_ms: this.elapsedMs(),
      ttfb_ms: this.ttfbMs,
      error: error ? { status: error.status, type: error.type, code: error.code, message: error.message } : null,
      ...(answered.upstreamId !== null && { upstream_id: answered.upstreamId }),
      ...(this.prompt !== null && { prompt: this.prompt }),
      ...(r.response_cache && { response_cache: r.response_cache }),
    }
  }
}
