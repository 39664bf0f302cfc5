import type { RequestObserver } from '../core/requestObserver'
import { refusalReason, type RefusalReason } from '../pipeline/refusals'
import type { RequestRecord } from '../store/requestsRepo'

/**
 * Bucket bounds of the time histograms, in milliseconds: from 1 ms (a token count, a cached
 * answer) to 60 s (a long agent turn), about 2.5× apart. Prometheus shows them in seconds.
 */
export const TIME_BUCKETS_MS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000]

/** Per-bucket counts (the last one past every bound), their sum in milliseconds and count. */
export interface TimeTally {
  counts: Float64Array
  sumMs: number
  count: number
}

const newTimeTally = (): TimeTally => ({ counts: new Float64Array(TIME_BUCKETS_MS.length + 1), sumMs: 0, count: 0 })

function observe(t: TimeTally, ms: number): void {
  let i = 0
  while (i < TIME_BUCKETS_MS.length && ms > TIME_BUCKETS_MS[i]) i++
  t.counts[i]++
  t.sumMs += ms
  t.count++
}

/** A series' labels: what a request was, never who sent it (no key, user or session: the dashboard has those). */
// A type, not an interface: prom-client takes it as its label record.
export type RequestLabels = {
  wire: string
  provider: string
  upstream_model: string
  status_class: string
  outcome: string
}

/** What the requests of one series came to. */
export interface RequestSeries {
  labels: RequestLabels
  requests: number
  /** Answered by a preset's fallback rather than the model asked for. */
  fallbacks: number
  /** Recorded with a cost the gateway could not price (no price, no usage): not in `cost`. */
  unpriced: number
  tokens: { input: number; output: number; cached_read: number; cached_write: number; reasoning: number }
  /**
   * Whole pico-dollars, which add exactly in a double (0.1 + 0.2 is 0.3 here) up to 2^53 of them,
   * $9,007 a series; past that a sum keeps a double's 16 digits, as the exposition does anyway.
   */
  costPico: number
  ttfb: TimeTally
  latency: TimeTally
}

/** What the attempts at one provider's model came to, by the provider's answer. */
export interface AttemptSeries {
  labels: { provider: string; upstream_model: string; status_class: string }
  attempts: number
  /** Attempts that tried the same model again after the one before failed. */
  retries: number
}

export interface RefusalSeries {
  labels: { wire: string; reason: RefusalReason }
  refusals: number
}

/** `2xx`, `4xx`, `5xx` (499, a client gone, is a 4xx) by the status' hundreds; `none` for an attempt that got no answer. */
const STATUS_CLASSES = ['none', '1xx', '2xx', '3xx', '4xx', '5xx', '6xx', '7xx', '8xx', '9xx']
const classIndex = (status: number | null) => (status === null ? 0 : Math.min(9, Math.max(1, Math.floor(status / 100))))
const OUTCOMES: RequestRecord['outcome'][] = ['ok', 'error', 'aborted']

/**
 * Distinct upstream models one provider's series keep apart. A provider may pass on any model name
 * a caller writes (`openai/<anything>`), so past this many the rest count under `(other)`: no
 * caller can grow the series without bound. Configured and catalogued models are far fewer.
 */
export const MODELS_KEPT = 100
export const OTHER_MODELS = '(other)'

/** One model's series, by cell, and the name its labels carry (`(other)` past MODELS_KEPT). */
interface ModelCells<S> {
  model: string
  cells: Array<S | undefined>
}

/** The series of `model` under a provider, made when missing, or `(other)`'s once the provider has MODELS_KEPT. */
function modelCells<S>(byModel: Map<string, ModelCells<S>>, model: string): ModelCells<S> {
  const found = byModel.get(model)
  if (found) return found
  const name = byModel.size < MODELS_KEPT ? model : OTHER_MODELS
  let made = byModel.get(name)
  if (!made) byModel.set(name, (made = { model: name, cells: [] }))
  return made
}

/** The map under `key` in `map`, made when missing. */
function level<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let next = map.get(key)
  if (!next) map.set(key, (next = new Map()))
  return next
}

/**
 * The metrics' one observer: it adds each record to the series its labels name, in plain numbers
 * (a few map lookups and additions a record; no prom-client call on the request path, whose
 * label hashing costs more than the rest together). The registry reads the tallies when scraped.
 */
export class RequestTallies implements RequestObserver {
  /** Every series, for the registry to read. */
  readonly requests: RequestSeries[] = []
  readonly attempts: AttemptSeries[] = []
  readonly refusals: RefusalSeries[] = []
  /**
   * The series by label, a map a label: wire → provider → model → [status class × outcome]. Its
   * keys are strings the gateway already holds (the endpoint, the provider's id, the model's name),
   * whose hashes are kept, so a lookup builds no key: 0.11 µs a record, against 0.53 µs with one
   * key string built from the labels (bench/metrics-observer.ts).
   */
  private readonly requestIndex = new Map<string, Map<string, Map<string, ModelCells<RequestSeries>>>>()
  /** provider → model → [status class]. */
  private readonly attemptIndex = new Map<string, Map<string, ModelCells<AttemptSeries>>>()
  private readonly refusalIndex = new Map<string, RefusalSeries>()

  recorded(r: RequestRecord): void {
    const provider = r.provider ?? ''
    const { model, cells } = modelCells(level(level(this.requestIndex, r.endpoint), provider), r.upstream_model ?? '')
    const sc = classIndex(r.status)
    const cell = sc * OUTCOMES.length + OUTCOMES.indexOf(r.outcome)
    let s = cells[cell]
    if (!s) {
      s = cells[cell] = {
        labels: { wire: r.endpoint, provider, upstream_model: model, status_class: STATUS_CLASSES[sc], outcome: r.outcome },
        requests: 0,
        fallbacks: 0,
        unpriced: 0,
        tokens: { input: 0, output: 0, cached_read: 0, cached_write: 0, reasoning: 0 },
        costPico: 0,
        ttfb: newTimeTally(),
        latency: newTimeTally(),
      }
      this.requests.push(s)
    }
    s.requests++
    if (r.fallback_used) s.fallbacks++
    const u = r.usage
    if (u) {
      const t = s.tokens
      t.input += u.prompt_tokens ?? 0
      t.output += u.completion_tokens ?? 0
      t.cached_read += u.cached_tokens ?? 0
      t.cached_write += u.cache_write_tokens ?? 0
      t.reasoning += u.reasoning_tokens ?? 0
    }
    const cost = r.cost
    if (cost) {
      if (cost.final_usd === null) s.unpriced++
      else s.costPico += Math.round(cost.final_usd * 1e12)
    }
    if (r.ttfb_ms !== null) observe(s.ttfb, r.ttfb_ms)
    observe(s.latency, r.latency_ms)
    if (r.attempts.length > 0) this.attempted(r.attempts)
    if (r.error) this.refused(r.endpoint, r.error)
  }

  private attempted(attempts: RequestRecord['attempts']): void {
    let previous: RequestRecord['attempts'][number] | null = null
    for (const a of attempts) {
      const { model, cells } = modelCells(level(this.attemptIndex, a.provider), a.model)
      const sc = classIndex(a.status)
      let s = cells[sc]
      if (!s) {
        s = cells[sc] = { labels: { provider: a.provider, upstream_model: model, status_class: STATUS_CLASSES[sc] }, attempts: 0, retries: 0 }
        this.attempts.push(s)
      }
      s.attempts++
      if (previous && previous.provider === a.provider && previous.model === a.model) s.retries++
      previous = a
    }
  }

  private refused(wire: string, error: NonNullable<RequestRecord['error']>): void {
    const reason = refusalReason(error)
    if (reason === null) return
    // Only refusals get here: a key built for them costs the rest nothing.
    const key = `${wire} ${reason}`
    let s = this.refusalIndex.get(key)
    if (!s) {
      this.refusalIndex.set(key, (s = { labels: { wire, reason }, refusals: 0 }))
      this.refusals.push(s)
    }
    s.refusals++
  }
}
