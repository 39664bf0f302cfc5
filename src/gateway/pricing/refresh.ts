import type { PriceBook } from './priceBook'
import { listedAt } from './priceUsage'
import type { PriceRow, TokenRates } from './types'

/**
 * A current price listing pulled from a source the user configured, compared with the price book
 * and applied as dated override rows. The listing's shape is OpenRouter's public model list
 * (`GET /api/v1/models`): `data[].id` is `vendor/model`, `data[].pricing` holds USD per token as
 * decimal strings (`prompt`, `completion`, `input_cache_read`, `input_cache_write`).
 */

/** Listing vendors and the gateway provider ids they stand for; other vendors are not compared. */
const PROVIDER_OF: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gemini',
  'x-ai': 'xai',
  deepseek: 'deepseek',
  mistralai: 'mistral',
}

/** Ids compared without the dot/dash difference (OpenRouter's `claude-opus-4.8` is Anthropic's `claude-opus-4-8`). */
const comparable = (provider: string, model: string) => `${provider}/${model.toLowerCase().replaceAll('.', '-')}`

/** The listing's rates, USD per 1M tokens like the catalog. */
export type ListedRates = Pick<TokenRates, 'input' | 'output' | 'cached_input' | 'cache_write'>

export interface ListedModel {
  /** `provider/model` as the gateway names it. */
  model: string
  rates: ListedRates
}

export interface RefreshRow {
  model: string
  status: 'new' | 'changed'
  /** The rates billed now (null for a model the price book lacks). */
  current: ListedRates | null
  listed: ListedRates
}

export interface RefreshDiff {
  rows: RefreshRow[]
  counts: { new: number; changed: number; unchanged: number; skipped: number }
}

/** USD per token (a decimal string) to USD per 1M, without the binary error of `x * 1e6`; null when it is not a price. */
function perMillion(v: unknown): number | null {
  if (typeof v !== 'string' || !/^\d+(\.\d+)?(e-?\d+)?$/i.test(v.trim())) return null
  const n = Number(v)
  return Number.isFinite(n) ? Number((n * 1e6).toPrecision(12)) : null
}

/** Ids for models the listing names under a vendor the gateway knows; Anthropic's versions are dashed. */
function gatewayId(listingId: string): string | null {
  const slash = listingId.indexOf('/')
  const provider = PROVIDER_OF[listingId.slice(0, slash)]
  if (!provider || slash === listingId.length - 1) return null
  const model = listingId.slice(slash + 1).replace(/:.*$/, '')
  return `${provider}/${provider === 'anthropic' ? model.replaceAll('.', '-') : model}`
}

/**
 * The chat models of a listing the gateway can price: a known vendor, an input and an output
 * price. Free variants (`:free`) and negative placeholders (OpenRouter's routers) are left out.
 */
export function parseListing(body: unknown): { models: ListedModel[]; skipped: number } {
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) throw new Error('the listing has no `data` array of models')
  const models: ListedModel[] = []
  let skipped = 0
  for (const m of data as Array<{ id?: unknown; pricing?: Record<string, unknown> }>) {
    const id = typeof m?.id === 'string' && !m.id.endsWith(':free') ? gatewayId(m.id) : null
    const input = perMillion(m?.pricing?.prompt)
    const output = perMillion(m?.pricing?.completion)
    if (id === null || input === null || output === null) {
      skipped++
      continue
    }
    const rates: ListedRates = { input, output }
    const cached = perMillion(m.pricing?.input_cache_read)
    const write = perMillion(m.pricing?.input_cache_write)
    if (cached !== null && cached > 0) rates.cached_input = cached
    if (write !== null && write > 0) rates.cache_write = write
    models.push({ model: id, rates })
  }
  return { models, skipped }
}

/** Fetches and parses the listing; any failure is an Error saying what went wrong, for the caller to report. */
export async function fetchListing(url: string, timeoutMs = 15_000): Promise<{ models: ListedModel[]; skipped: number }> {
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) })
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  let body: unknown
  try {
    body = await res.json()
  } catch {
    throw new Error('the answer is not JSON')
  }
  return parseListing(body)
}

const RATE_KEYS = ['input', 'output', 'cached_input', 'cache_write'] as const
/** What a dated row carries over from the rates in force when the listing leaves it out. */
const CARRIED = ['input', 'output', 'cached_input', 'cache_write', 'cache_write_1h', 'long_context'] as const

/** The rates a model bills at `at`, for the keys the listing gives. */
function currentRates(book: PriceBook, model: string, at: Date): { rates: ListedRates; base: ReturnType<PriceBook['lookup']> } | null {
  const slash = model.indexOf('/')
  const priced = book.lookup(model.slice(0, slash), model.slice(slash + 1))
  if (!priced) return null
  const listed = listedAt(priced.entry, at)
  const rates: ListedRates = { input: listed.input }
  for (const key of RATE_KEYS) if (listed[key] !== undefined) rates[key] = listed[key]
  return { rates, base: priced }
}

/** Changed when a rate the listing gives differs from the one billed now (a rate it leaves out is not compared). */
const differs = (listed: ListedRates, current: ListedRates) =>
  RATE_KEYS.some((k) => listed[k] !== undefined && Math.abs((listed[k] ?? 0) - (current[k] ?? current.input)) > 1e-9)

/** What the listing would change: models the price book lacks, models whose rates moved; duplicates keep the first. */
export function diffListing(book: PriceBook, listing: { models: ListedModel[]; skipped: number }, at: Date): RefreshDiff {
  const seen = new Set<string>()
  const rows: RefreshRow[] = []
  const counts = { new: 0, changed: 0, unchanged: 0, skipped: listing.skipped }
  for (const m of listing.models) {
    const slash = m.model.indexOf('/')
    const key = comparable(m.model.slice(0, slash), m.model.slice(slash + 1))
    if (seen.has(key)) continue
    seen.add(key)
    const now = currentRates(book, m.model, at)
    if (!now) {
      rows.push({ model: m.model, status: 'new', current: null, listed: m.rates })
      counts.new++
    } else if (differs(m.rates, now.rates)) {
      rows.push({ model: m.model, status: 'changed', current: now.rates, listed: m.rates })
      counts.changed++
    } else counts.unchanged++
  }
  return { rows, counts }
}

/**
 * The override row a refreshed price becomes, dated `today`: for a model the book knows, its whole
 * row with the listed rates as a schedule row from today, so requests before keep the rates they
 * ran at and rates the listing leaves out (1-hour writes, the long-context tier, tiers and fees)
 * stay as they are; announced later rows still start on their dates. For a new model, the listed
 * rates.
 */
export function refreshedRow(book: PriceBook, row: RefreshRow, today: string): PriceRow {
  if (row.status === 'new') return { kind: 'chat', ...row.listed }
  const slash = row.model.indexOf('/')
  const entry = book.lookup(row.model.slice(0, slash), row.model.slice(slash + 1))!.entry
  const { provider: _p, model: _m, status: _s, unconfirmed: _u, aliases: _a, ...whole } = entry
  const listed = listedAt(entry, new Date(`${today}T00:00:00Z`))
  const inForce: Record<string, unknown> = {}
  for (const key of CARRIED) if (listed[key] !== undefined) inForce[key] = listed[key]
  const others = (whole.schedule ?? []).filter((r) => r.from !== today)
  return { ...whole, schedule: [...others, { ...(inForce as TokenRates), ...row.listed, from: today }] }
}
