import { usdToPico } from '../store/ledgerRepo'
import { isTokenCount, type RequestRecord, type RequestsRepo, type Repricing } from '../store/requestsRepo'
import type { PriceBook } from './priceBook'
import { NOT_PRICED_FROM_ANOMALY, priceUsage } from './priceUsage'
import type { Cost, NormalizedUsage } from './types'

export interface RepriceOptions {
  /** UTC date (YYYY-MM-DD): requests created from its midnight on. */
  since: string
  /** Only requests for this model: `provider/model`, an upstream model id, or the id the caller asked for. */
  model?: string
  dryRun: boolean
  /** The last request id of the previous batch, or one below the first id of `since`. */
  cursor: string
  limit: number
  actor: string
}

export interface RepriceChange {
  id: string
  model: string | null
  old_usd: number | null
  new_usd: number | null
  price_source: string | null
}

export interface RepriceBatch {
  examined: number
  changed: number
  delta_usd: number
  adjustments: number
  next_cursor: string | null
  dry_run: boolean
  sample: RepriceChange[]
}

const SAMPLE = 20

const toPico = (usd: number | null | undefined) => (usd === null || usd === undefined ? 0n : usdToPico(usd))

const usageOf = (r: RequestRecord, u: Record<string, number>): NormalizedUsage => ({
  prompt_tokens: u.prompt_tokens ?? 0,
  completion_tokens: u.completion_tokens ?? 0,
  total_tokens: u.total_tokens ?? 0,
  cached_tokens: u.cached_tokens ?? 0,
  cache_write_tokens: u.cache_write_tokens ?? 0,
  cache_write_1h_tokens: u.cache_write_1h_tokens ?? 0,
  reasoning_tokens: u.reasoning_tokens ?? 0,
  web_search_calls: u.web_search_calls ?? 0,
  service_tier: r.tier?.served ?? null,
  inference_geo: r.tier?.inference_geo ?? null,
})

/**
 * What a stored record costs with today's price book, at the rates in force when it ran. Null
 * when it is not repriced: no usage, a free call (token counting), a local provider, or usage the
 * provider misreported (the record keeps its reason and a prepaid key keeps what it was charged).
 */
export function costNow(priceBook: PriceBook, r: RequestRecord): Cost | null {
  if (!r.usage || !r.provider || !r.upstream_model || isTokenCount(r)) return null
  if (r.cost?.price_source === 'local' || r.cost?.unpriced_reason?.includes(NOT_PRICED_FROM_ANOMALY)) return null
  const priced = priceBook.lookup(r.provider, r.upstream_model)
  return priceUsage({
    model: priced?.entry ?? null,
    usage: usageOf(r, r.usage),
    at: new Date(r.created_at),
    calendar: priced?.calendar,
    source: priced?.source ?? 'none',
    estimated: r.cost?.estimated ?? false,
    unknownReason: r.cost?.unpriced_reason ?? `no price known for ${r.provider}/${r.upstream_model}`,
  })
}

/** The request asked for `model`, or was served by it (`provider/model` or the upstream id). */
const servedAs = (r: RequestRecord, model: string) => r.model === model || r.upstream_model === model || `${r.provider}/${r.upstream_model}` === model

const sameCost = (a: Cost | null, b: Cost) =>
  !!a && a.priced === b.priced && a.final_usd === b.final_usd && a.price_source === b.price_source && a.long_context === b.long_context

/**
 * Reprices one batch of stored requests (id order, from `cursor`), so a large store is done in
 * bounded steps that each hold the write lock briefly while the gateway keeps serving. For each
 * changed record: the figure it had goes to `request_costs`, the record and its cost column get
 * the new one, and a prepaid key's ledger gets the difference between the new cost and what the
 * request was charged so far (its debit and earlier adjustments) as an adjustment with a note.
 */
export async function repriceBatch(requests: RequestsRepo, priceBook: PriceBook, o: RepriceOptions, now = Date.now()): Promise<RepriceBatch> {
  // The model filter is applied here, not in SQL, so every call reads at most `limit` rows.
  const rows = await requests.forRepricing(o.cursor, Date.parse(`${o.since}T00:00:00Z`), o.limit)
  const changes: Repricing[] = []
  for (const { record, prepaidKey } of rows) {
    if (o.model !== undefined && !servedAs(record, o.model)) continue
    const cost = costNow(priceBook, record)
    if (!cost || sameCost(record.cost, cost)) continue
    const old = record.cost
    const note = `repriced ${record.id}: ${old?.priced ? `$${old.final_usd}` : 'unpriced'} -> $${cost.final_usd} (${cost.price_source})`
    changes.push({ record, cost, prepaidKey, pico: cost.priced ? toPico(cost.final_usd) : null, note })
  }
  const adjustments = !o.dryRun && changes.length > 0 ? await requests.reprice(changes, o.actor, now) : 0

  const delta = changes.reduce((sum, c) => sum + toPico(c.cost.final_usd) - toPico(c.record.cost?.priced ? c.record.cost.final_usd : null), 0n)
  return {
    examined: rows.length,
    changed: changes.length,
    delta_usd: Number(delta) / 1e12,
    adjustments,
    next_cursor: rows.length === o.limit ? rows[rows.length - 1].record.id : null,
    dry_run: o.dryRun,
    sample: changes.slice(0, SAMPLE).map(({ record, cost }) => ({
      id: record.id,
      model: record.provider && record.upstream_model ? `${record.provider}/${record.upstream_model}` : record.model,
      old_usd: record.cost?.priced ? record.cost.final_usd : null,
      new_usd: cost.final_usd,
      price_source: cost.price_source,
    })),
  }
}
