import type { Bodies } from '../store/recordBatch'
import { randomBytes } from 'node:crypto'
import type { KeyRow } from '../store/keysRepo'
import type { Attempt, Outcome, RequestRecord } from '../store/requestsRepo'
import type { ApiError } from '../errors'
import type { Cost, NormalizedUsage } from '../pricing/types'
import type { AttributionResult } from './attribution'
import type { Target } from './resolveModel'
import type { Preset } from '../../contract/presets'
import type { Reservation } from './balances'

/**
 * Request ids take 12 bytes each from a pool filled by the CSPRNG 4 KB at a time: the same ids,
 * without a randomBytes call (and its syscall-sized overhead) per request.
 */
const ID_BYTES = 12
const ID_POOL = 4096 - (4096 % ID_BYTES)
let idPool = Buffer.alloc(0)
let idOffset = 0
export const newRequestId = () => {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_POOL)
    idOffset = 0
  }
  const id = `req_${idPool.toString('base64url', idOffset, idOffset + ID_BYTES)}`
  idOffset += ID_BYTES
  return id
}

/** What one request accumulates on its way through the pipeline; becomes its record at the end. */
export class RequestContext {
  readonly startedAt = new Date()
  private readonly t0 = performance.now()
  model: string | null = null
  stream = false
  attribution: AttributionResult = {
    attribution: { user_id: null, trace_id: null, session_id: null, tags: [], extra: {}, auto_cache: null },
    dimensions: {},
    ignored: [],
  }
  target: Target | null = null
  /** A preset fallback served instead of the primary model. */
  fallbackUsed = false
  preset: Preset | null = null
  reservation: Reservation | null = null
  readonly attempts: Attempt[] = []
  usage: NormalizedUsage | null = null
  cost: Cost | null = null
  ttfbMs: number | null = null
  source: 'api' | 'playground' = 'api'
  /** What the client sent and got (JSON text), kept only when body logging is on. */
  bodies: Bodies | null = null
  private recorded = false

  constructor(
    readonly id: string,
    readonly endpoint: RequestRecord['endpoint'],
    readonly key: KeyRow,
  ) {}

  elapsedMs(): number {
    return Math.round(performance.now() - this.t0)
  }

  markFirstByte(): void {
    this.ttfbMs ??= this.elapsedMs()
  }

  /** The record of this request; null when it was already taken (each request is recorded once). */
  toRecord(status: number, outcome: Outcome, error: ApiError | null): RequestRecord | null {
    if (this.recorded) return null
    this.recorded = true
    const a = this.attribution
    return {
      id: this.id,
      created_at: this.startedAt.toISOString(),
      endpoint: this.endpoint,
      source: this.source,
      status,
      outcome,
      key_id: this.key.id,
      model: this.model,
      preset: this.preset?.name ?? null,
      preset_version: this.preset?.version ?? null,
      provider: this.target?.provider.id ?? null,
      upstream_model: this.target?.upstreamModel ?? null,
      stream: this.stream,
      attribution: a.attribution,
      dimensions: a.dimensions,
      ignored: a.ignored,
      usage: this.usage ? { ...this.usage } : null,
      cost: this.cost,
      attempts: this.attempts,
      fallback_used: this.fallbackUsed,
      latency_ms: this.elapsedMs(),
      ttfb_ms: this.ttfbMs,
      error: error ? { status: error.status, type: error.type, code: error.code, message: error.message } : null,
    }
  }
}
