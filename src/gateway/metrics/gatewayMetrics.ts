import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type HistogramConfiguration, type LabelValues } from 'prom-client'
import type { OpenStreams } from '../core/openStreams'
import type { Cooldown } from '../routing/cooldown'
import type { PoolUse, RecordSink } from '../store/store'
import { RequestTallies, TIME_BUCKETS_MS, type TimeTally } from './requestTallies'
import { picoToUsd } from '../pricing/priceUsage'

/** What the gauges read when scraped: the gateway's own state, asked then, never kept up on the request path. */
export interface MetricSources {
  records: Pick<RecordSink, 'backlog'>
  cooldown: Pick<Cooldown, 'coolingCount' | 'started'>
  streams: OpenStreams
  /** The store's connection pools (PostgreSQL's; none for SQLite). */
  store: { pools: () => PoolUse[] }
  /** The gateway's clock, which the record writer's failing time is in. */
  clock: () => number
}

const REQUEST_LABELS = ['wire', 'provider', 'upstream_model', 'status_class', 'outcome'] as const

/** Writes a metric's values from the tallies, each (labels, value), as it is scraped. */
type Fill = (set: (labels: LabelValues<string>, value: number) => void) => void

/** A counter's or gauge's `collect`: its values written afresh as it is scraped (a counter's inc after its reset sets it). */
function refill(fill: Fill) {
  return function (this: Counter<string> | Gauge<string>) {
    this.reset()
    fill((labels, value) => (this instanceof Counter ? this.inc(labels, value) : this.set(labels, value)))
  }
}

type HistogramData = Awaited<ReturnType<Histogram<string>['get']>>

/**
 * A histogram read from tallies when scraped: prom-client's own would hash its labels on every
 * observation, on the request path. Its buckets are cumulative, in seconds, as Prometheus reads them.
 */
class TalliedHistogram extends Histogram<string> {
  constructor(
    private readonly config: Omit<HistogramConfiguration<string>, 'buckets'>,
    private readonly tallies: () => Iterable<{ labels: LabelValues<string>; tally: TimeTally }>,
  ) {
    super({ ...config, buckets: TIME_BUCKETS_MS.map((ms) => ms / 1000) })
  }

  override async get(): Promise<HistogramData> {
    return this.read()
  }

  /** What prom-client 15's registry writes a histogram's text from, rather than get(). */
  async getForPromString(): Promise<HistogramData> {
    return this.read()
  }

  private read(): HistogramData {
    const { name, help } = this.config
    const values: HistogramData['values'] = []
    for (const { labels, tally } of this.tallies()) {
      let cumulative = 0
      for (let i = 0; i < TIME_BUCKETS_MS.length; i++) {
        cumulative += tally.counts[i]
        values.push({ labels: { ...labels, le: TIME_BUCKETS_MS[i] / 1000 }, value: cumulative, metricName: `${name}_bucket` })
      }
      values.push({ labels: { ...labels, le: '+Inf' }, value: tally.count, metricName: `${name}_bucket` })
      values.push({ labels, value: tally.sumMs / 1000, metricName: `${name}_sum` })
      values.push({ labels, value: tally.count, metricName: `${name}_count` })
    }
    // The registry reads the type as the text it writes (prom-client's typings call it an enum).
    return { name, help, type: 'histogram', aggregator: 'sum', values } as unknown as HistogramData
  }
}

let processMetrics: Registry | null = null

/**
 * Node's process metrics (CPU, memory, event-loop delay, garbage collection), made once per
 * process: they describe the process whichever gateway is scraped, and prom-client never stops
 * their collectors (an event-loop monitor, a GC observer), so a gateway made again (the desktop
 * app's restart, tests) must not add more of them.
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry()
    collectDefaultMetrics({ register: processMetrics, prefix: 'gw_' })
  }
  return processMetrics
}

/**
 * One gateway's Prometheus metrics: a registry of its own (two gateways in one process share no
 * series), the request tallies its observer keeps, and gauges read from the gateway when scraped.
 * Series are named `gw_…`; docs/operations.md lists them.
 */
export class GatewayMetrics {
  private readonly registry = new Registry()
  /** This gateway's series and the process's, as a scrape gets them. */
  private readonly exposed: Registry
  /** The observer the core tells of every record. */
  readonly tallies = new RequestTallies()

  constructor(sources: MetricSources) {
    const registers = [this.registry]
    const requests = () => this.tallies.requests
    const counter = (name: string, help: string, labelNames: readonly string[], fill: Fill) =>
      new Counter({ name, help, labelNames, registers, collect: refill(fill) })
    const gauge = (name: string, help: string, labelNames: readonly string[], fill: Fill) =>
      new Gauge({ name, help, labelNames, registers, collect: refill(fill) })

    counter('gw_requests_total', 'Requests recorded, by wire, provider, upstream model, status class and outcome.', REQUEST_LABELS, (set) => {
      for (const s of requests()) set(s.labels, s.requests)
    })
    counter('gw_fallbacks_total', "Requests answered by a preset's fallback instead of the model asked for.", REQUEST_LABELS, (set) => {
      for (const s of requests()) if (s.fallbacks > 0) set(s.labels, s.fallbacks)
    })
    counter(
      'gw_tokens_total',
      'Tokens of the usage providers reported: input (cached reads included, as providers count them), output, cached_read, cached_write, reasoning.',
      [...REQUEST_LABELS, 'type'],
      (set) => {
        for (const s of requests()) for (const [type, n] of Object.entries(s.tokens)) if (n > 0) set({ ...s.labels, type }, n)
      },
    )
    counter('gw_cost_usd_total', "What the requests cost in USD, summed exactly from each record's cost.", REQUEST_LABELS, (set) => {
      for (const s of requests()) set(s.labels, picoToUsd(s.costPico))
    })
    counter(
      'gw_unpriced_requests_total',
      'Requests recorded without a cost (no price for the model, or no usage): not in gw_cost_usd_total.',
      REQUEST_LABELS,
      (set) => {
        for (const s of requests()) if (s.unpriced > 0) set(s.labels, s.unpriced)
      },
    )
    new TalliedHistogram(
      { name: 'gw_time_to_first_byte_seconds', help: 'From the request to the first byte of its answer.', labelNames: [...REQUEST_LABELS], registers },
      function* () {
        for (const s of requests()) if (s.ttfb.count > 0) yield { labels: s.labels, tally: s.ttfb }
      },
    )
    new TalliedHistogram(
      { name: 'gw_request_duration_seconds', help: 'From the request to the end of its answer.', labelNames: [...REQUEST_LABELS], registers },
      function* () {
        for (const s of requests()) yield { labels: s.labels, tally: s.latency }
      },
    )
    counter(
      'gw_upstream_attempts_total',
      "Calls to providers, by the provider's answer (status_class none: no answer).",
      ['provider', 'upstream_model', 'status_class'],
      (set) => {
        for (const s of this.tallies.attempts) set(s.labels, s.attempts)
      },
    )
    counter('gw_upstream_retries_total', 'Calls that tried the same model again after a failed one.', ['provider', 'upstream_model', 'status_class'], (set) => {
      for (const s of this.tallies.attempts) if (s.retries > 0) set(s.labels, s.retries)
    })
    counter(
      'gw_refusals_total',
      'Requests the gateway refused, by reason: balance, spend_limit, rpm, session_requests, session_usd, policy, cooldown.',
      ['wire', 'reason'],
      (set) => {
        for (const s of this.tallies.refusals) set(s.labels, s.refusals)
      },
    )
    gauge('gw_open_streams', 'Streamed answers being relayed now.', [], (set) => set({}, sources.streams.open))
    gauge('gw_record_queue_records', 'Request records held in memory, not yet in the store.', [], (set) => set({}, sources.records.backlog().records))
    gauge('gw_record_queue_bytes', 'The memory those records hold (their logged bodies and a share each), in bytes.', [], (set) =>
      set({}, sources.records.backlog().bytes),
    )
    gauge('gw_record_lag_seconds', 'How long the last batch of records written had waited, from its first record to its commit.', [], (set) =>
      set({}, sources.records.backlog().lagMs / 1000),
    )
    gauge('gw_record_failing_seconds', 'How long writing records has failed with nothing written since; 0 while writes succeed.', [], (set) => {
      const since = sources.records.backlog().failingSince
      set({}, since === null ? 0 : Math.max(0, (sources.clock() - since) / 1000))
    })
    gauge('gw_providers_cooling', 'Providers being skipped now after repeated failures.', [], (set) => set({}, sources.cooldown.coolingCount()))
    counter('gw_cooldowns_total', 'Cool-downs begun: a provider skipped after repeated failures.', [], (set) => set({}, sources.cooldown.started))
    gauge(
      'gw_db_pool_connections',
      "PostgreSQL connections of the gateway's pools, by pool (main, records, limits) and state (in_use, idle).",
      ['pool', 'state'],
      (set) => {
        for (const p of sources.store.pools()) {
          set({ pool: p.pool, state: 'in_use' }, p.inUse)
          set({ pool: p.pool, state: 'idle' }, p.idle)
        }
      },
    )
    gauge('gw_db_pool_waiting', 'Queries waiting for a PostgreSQL connection, by pool.', ['pool'], (set) => {
      for (const p of sources.store.pools()) set({ pool: p.pool }, p.waiting)
    })
    this.exposed = Registry.merge([this.registry, processRegistry()])
  }

  get contentType(): string {
    return this.exposed.contentType
  }

  /** The exposition, as a scrape gets it. */
  text(): Promise<string> {
    return this.exposed.metrics()
  }
}
