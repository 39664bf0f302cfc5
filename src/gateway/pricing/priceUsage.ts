import { tierPrice, webSearchFee } from './tiers'
import type { CatalogModel, Cost, HolidayCalendar, NormalizedUsage, PeakPricing, ScheduledRates, TokenRates } from './types'

export interface PriceInput {
  /** Catalog entry (possibly merged with a user override), or null when the price is unknown. */
  model: CatalogModel | null
  /** Null when the provider reported no usage. */
  usage: NormalizedUsage | null
  /** Request time: picks schedule rows and DeepSeek peak windows. */
  at: Date
  /** The holiday calendar the model's peak hours follow. */
  calendar?: HolidayCalendar | null
  /** 'catalog 2026-11-21' or 'override 2026-11-23'; echoed into price_source with any tier suffix. */
  source: string
  /** A local provider (Ollama, LM Studio): nothing to pay. */
  local?: boolean
  estimated?: boolean
  /** unpriced_reason when model is null. */
  unknownReason?: string
}

/** USD per 1M tokens to integer pico-dollars per token, so costs are exact integer sums. */
export const usdPer1MToPicoPerToken = (usdPer1M: number): number => Math.round(usdPer1M * 1e6)

export const picoToUsd = (pico: number): number => pico / 1e12

/** The most one request can be priced at: 2^53 pico-dollars, where integer pico arithmetic ends. */
const MAX_PRICED_USD = Math.floor(Number.MAX_SAFE_INTEGER / 1e12)

const RATE_KEYS = ['input', 'output', 'cached_input', 'cache_write', 'cache_write_1h'] as const

/** The rates alone, without a tier's threshold or a schedule row's date. */
function onlyRates(r: TokenRates): TokenRates {
  const out: TokenRates = { input: r.input }
  for (const key of RATE_KEYS) {
    const v = r[key]
    if (v !== undefined) out[key] = v
  }
  return out
}

const midnight = (date: string) => Date.parse(`${date}T00:00:00Z`)

/**
 * The dated row in force at `at` (the latest-starting one whose span holds it), else the model's
 * own rates. A row replaces the list rates and the long-context tier together.
 */
export function listedAt(model: CatalogModel, at: Date): TokenRates & Pick<ScheduledRates, 'long_context' | 'service_tiers' | 'inference_geo' | 'call_fees'> {
  const t = at.getTime()
  let row: ScheduledRates | null = null
  for (const r of model.schedule ?? []) {
    if (r.from !== undefined && midnight(r.from) > t) continue
    if (r.until !== undefined && midnight(r.until) <= t) continue
    if (!row || (r.from ?? '') > (row.from ?? '')) row = r
  }
  return row ?? model
}

/**
 * Peak windows are UTC hours; which days have them is decided in the calendar's own time zone
 * (DeepSeek's holidays are Beijing dates): holidays never, weekends only when worked in place of a
 * holiday, other days always.
 */
function inPeak(peak: PeakPricing, at: Date, calendar: HolidayCalendar | null): boolean {
  const hour = at.getUTCHours()
  if (!peak.windows_utc.some(([start, end]) => hour >= start && hour < end)) return false
  const local = calendar ? new Date(at.getTime() + calendar.utc_offset_minutes * 60_000) : at
  const date = calendar ? local.toISOString().slice(0, 10) : ''
  if (calendar?.holidays.includes(date)) return false
  const day = local.getUTCDay()
  if (peak.weekdays_only && (day === 0 || day === 6)) return !!calendar?.workdays.includes(date)
  return true
}

function resolve(model: CatalogModel, at: Date, promptTokens: number, calendar: HolidayCalendar | null) {
  const listed = listedAt(model, at)
  const lc = listed.long_context
  const long = !!lc && promptTokens > lc.above_prompt_tokens
  const peak = model.peak && inPeak(model.peak, at, calendar) ? model.peak : null
  // No catalog model has both; were one to, its long-context tier is the more specific price.
  if (long && lc) return { rates: onlyRates(lc), tier: 'long context', long, listed }
  return { rates: onlyRates(peak ? peak.rates : listed), tier: peak ? 'peak' : null, long, listed }
}

/** The rates a request bills at: schedule row for the date, then peak hours, then the long-context tier. */
export function ratesAt(
  model: CatalogModel,
  at: Date,
  promptTokens: number,
  calendar: HolidayCalendar | null = null,
): { rates: TokenRates; tier: string | null } {
  const { rates, tier } = resolve(model, at, promptTokens, calendar)
  return { rates, tier }
}

interface Amounts {
  input: number
  cached: number
  write: number
  output: number
  fees: number
  savings: number
  final: number
}

const ZERO: Amounts = { input: 0, cached: 0, write: 0, output: 0, fees: 0, savings: 0, final: 0 }

/**
 * One literal with every field: on the request path this matters, because V8 (Node 20) builds
 * `{ ...base, more }` through a slow path that cost ~7 µs per request here.
 */
function cost(
  input: PriceInput,
  long: boolean,
  amounts: Amounts | null,
  unpricedReason: string | null,
  priceSource: string | null,
  tier: string | null = null,
): Cost {
  const u = input.usage
  return {
    currency: 'USD',
    prompt_tokens: u?.prompt_tokens ?? 0,
    completion_tokens: u?.completion_tokens ?? 0,
    cached_tokens: u?.cached_tokens ?? 0,
    cache_write_tokens: u?.cache_write_tokens ?? 0,
    long_context: long,
    estimated: input.estimated ?? false,
    priced: amounts !== null,
    unpriced_reason: unpricedReason,
    input_usd: amounts ? amounts.input : null,
    cached_input_usd: amounts ? amounts.cached : null,
    cache_write_usd: amounts ? amounts.write : null,
    output_usd: amounts ? amounts.output : null,
    web_search_calls: u?.web_search_calls ?? 0,
    fees_usd: amounts ? amounts.fees : null,
    service_tier: tier,
    cache_savings_usd: amounts ? amounts.savings : null,
    final_usd: amounts ? amounts.final : null,
    price_source: priceSource,
  }
}

/** In the unpriced reason of a request whose usage the provider misreported. */
export const NOT_PRICED_FROM_ANOMALY = 'not priced from it'

/** The cost of a call no provider bills (token counting): exactly $0, priced, `price_source` saying why. */
export const freeCost = (why: string): Cost => cost({ model: null, usage: null, at: new Date(0), source: why }, false, ZERO, null, why)

/** A cost, and its total as the integer pico-dollars it was summed in (null when not priced): what a charge takes, never read back from the USD figure. */
export interface Priced {
  cost: Cost
  pico: bigint | null
}

const unpriced = (c: Cost): Priced => ({ cost: c, pico: null })

/** Prices a usage, exact to the token. */
export const priceUsage = (input: PriceInput): Cost => priceInPico(input).cost

/** Prices a usage, with its total in pico-dollars. */
export function priceInPico(input: PriceInput): Priced {
  const { model, usage } = input
  if (input.local) return { cost: cost(input, false, ZERO, null, 'local'), pico: 0n }
  if (!model) return unpriced(cost(input, false, null, input.unknownReason ?? 'no price known for this model', null))
  if (!usage) return unpriced(cost(input, false, null, 'provider reported no usage', null))
  if (usage.anomaly)
    return unpriced(
      cost(input, false, null, `${usage.anomaly}; ${NOT_PRICED_FROM_ANOMALY} (a prepaid key is charged what was reserved when the request was admitted)`, null),
    )

  const { rates, tier, long, listed } = resolve(model, input.at, usage.prompt_tokens, input.calendar ?? null)
  if (rates.output === undefined && usage.completion_tokens > 0) {
    return unpriced(cost(input, long, null, `no output price for ${model.provider}/${model.model}`, null))
  }
  const served = tierPrice(model, listed, usage)
  if ('unpriced' in served) return unpriced(cost(input, long, null, served.unpriced, null, usage.service_tier ?? null))
  const searches = usage.web_search_calls ?? 0
  const searchFee = webSearchFee(model, listed, searches)
  if (typeof searchFee !== 'number') return unpriced(cost(input, long, null, searchFee.unpriced, null, served.tier))
  // A tier multiplies every token rate, cache reads and writes included (OpenAI, Anthropic and Google stack them so).
  const m = served.multiplier
  const pico = m === 1 ? usdPer1MToPicoPerToken : (usdPer1M: number) => usdPer1MToPicoPerToken(usdPer1M * m)
  const inputRate = pico(rates.input)
  const cachedRate = pico(rates.cached_input ?? rates.input)
  const writeRate = pico(rates.cache_write ?? rates.input)
  const write1hRate = pico(rates.cache_write_1h ?? rates.cache_write ?? rates.input)

  const writes = usage.cache_write_tokens
  const writes1h = Math.min(usage.cache_write_1h_tokens, writes)
  const uncached = Math.max(0, usage.prompt_tokens - usage.cached_tokens - writes)

  const inputPico = uncached * inputRate
  const cachedPico = usage.cached_tokens * cachedRate
  const writePico = (writes - writes1h) * writeRate + writes1h * write1hRate
  const outputPico = usage.completion_tokens * pico(rates.output ?? 0)
  // Writes cost more than plain input, so heavy writing with few reads can make this negative.
  const savingsPico = usage.cached_tokens * (inputRate - cachedRate) - (writePico - writes * inputRate)

  // USD per 1,000 calls is 1e9 pico-dollars per call per dollar.
  const feesPico = searches * Math.round(searchFee * 1e9)

  const finalPico = inputPico + cachedPico + writePico + outputPico + feesPico
  // Past 2^53 pico-dollars ($9,007) sums of pico stop being exact, and no request costs that much.
  if (!Number.isSafeInteger(finalPico) || !Number.isSafeInteger(savingsPico)) {
    return unpriced(
      cost(
        input,
        long,
        null,
        `a cost beyond $${MAX_PRICED_USD.toLocaleString('en-US')} for one request is not plausible; check the price set for ${model.provider}/${model.model}`,
        null,
      ),
    )
  }
  const amounts: Amounts = {
    input: picoToUsd(inputPico),
    cached: picoToUsd(cachedPico),
    write: picoToUsd(writePico),
    output: picoToUsd(outputPico),
    fees: picoToUsd(feesPico),
    savings: picoToUsd(savingsPico),
    final: picoToUsd(finalPico),
  }
  const labels = [tier, served.label].filter((l) => l !== null)
  return {
    cost: cost(input, long, amounts, null, labels.length ? `${input.source} (${labels.join(', ')})` : input.source, served.tier),
    pico: BigInt(finalPico),
  }
}
