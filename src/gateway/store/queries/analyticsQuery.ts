import type { z } from 'zod'
import type { Sql } from '../sql'
import { picoSum, TOKEN_COUNT_ENDPOINTS_SQL } from '../requestsRepo'
import { picoToUsdNumber } from '../../../contract/money'
import { unreadWrites } from './unreadWrites'
import { invalid } from './invalidQuery'
import { analyticsOps, type group } from '../../../contract/analytics'
import type { RequestFilter } from '../../../contract/requests'
import { choosePlan, filterSql, type Scope, type SqlParam } from './requestQuery'

export type OverviewInput = z.input<(typeof analyticsOps)['analytics.overview']['input']>
export type OverviewOutput = z.output<(typeof analyticsOps)['analytics.overview']['output']>
export type GroupByInput = z.input<(typeof analyticsOps)['analytics.groupBy']['input']>
/** `name` is the key's name when grouping by key (the contract's `group` has no place for it; a strict parse drops it). */
export type GroupRow = z.output<typeof group> & { name?: string | null }

/** 2^31: latencies (ms) are packed below it, bucket numbers above it. */
const PACK = 2 ** 31
const HOUR = 3_600_000
const DAY = 86_400_000
const BUCKET_MS = { hour: HOUR, day: DAY } as const
/** A series longer than this is refused rather than built (a year of hours is 8,784). */
export const MAX_BUCKETS = 10_000

/**
 * Analytics are about inference: free token counts (Claude Code's /context sends ~15 at once; the
 * Responses API's input_tokens) are in the request list and its total, and left out of these
 * totals, series, percentiles and groups.
 */
const INFERENCE_ONLY = `r.endpoint NOT IN (${TOKEN_COUNT_ENDPOINTS_SQL})`

/** The range narrows the filter's own from/to (both are [from, to) in Unix ms). */
function rangeFilter(from: number, to: number, filter: RequestFilter | undefined): RequestFilter {
  const f = filter ?? {}
  return { ...f, from: Math.max(from, f.from ?? from), to: Math.min(to, f.to ?? to) }
}

/** The value at nearest rank ceil(p/100 · n) of an ascending array; null when it is empty. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length
  if (n === 0) return null
  const rank = Math.min(n, Math.max(1, Math.ceil((p * n) / 100)))
  return sorted[rank - 1]
}

/** UTC start of the bucket holding `t`: Unix time has no leap seconds, so hours and days divide it exactly. */
export const bucketStart = (t: number, bucketMs: number) => Math.floor(t / bucketMs) * bucketMs

interface TotalsRow {
  requests: number
  errors: number
  cost_usd: number
  unpriced: number
  prompt_tokens: number
  completion_tokens: number
}
interface BucketRow extends TotalsRow {
  t: number
  /** The cache's figures, summed with the bucket's (the pico-dollar sums as text, exact). */
  cacheable_tokens: number
  cached_tokens: number
  cache_saved_pico: string
  hits: number
  hits_saved_pico: string
}

/** Requests whose cost is unknown: no price, though a provider was chosen (one sent nowhere is priced $0). */
export const UNPRICED_ROW = 'CASE WHEN r.cost_usd IS NULL AND r.provider IS NOT NULL THEN 1 ELSE 0 END'
export const UNPRICED = `COALESCE(SUM(${UNPRICED_ROW}), 0)`
export const ERRORS = `COALESCE(SUM(CASE WHEN r.outcome = 'error' THEN 1 ELSE 0 END), 0)`
/** A sum of costs that is 0 (not NULL) over no priced row, as SQLite's TOTAL is. */
export const COST = 'COALESCE(SUM(r.cost_usd), 0)'

/**
 * Totals and a time series over [from, to) for a filter within a scope. Sums and counts are SQL
 * aggregates (one per bucket; the totals are added up from the buckets). Latency percentiles are
 * exact nearest-rank over the matching rows' latency_ms: the latencies are read as one plucked
 * number per row (with its bucket) and sorted in a typed array, which on 100k rows is several
 * times faster than window functions (bench/requests-screen.ts measures both).
 * Errors are `outcome = 'error'`; unpriced requests (cost_usd NULL once a provider was chosen) are
 * counted, never priced as $0. One refused before any provider was chosen (unknown model, bad
 * body) was sent nowhere and costs nothing.
 * Buckets are UTC hour/day starts from the one holding `from` to the one holding `to - 1`,
 * empty ones included. The cache's figures (`cacheFigures`) are summed with the buckets from the
 * same index, money in whole pico-dollars; unread prompt-cache writes as of `now` are found
 * apart, from the requests that wrote alone (`unreadWrites`).
 */
export async function overview(sql: Sql, input: OverviewInput, scope: Scope, now: number): Promise<OverviewOutput> {
  const bucket = input.bucket ?? 'hour'
  const bucketMs = BUCKET_MS[bucket]
  if (!bucketMs) throw invalid('bucket', `unknown bucket ${String(bucket)}`)
  const { from, to } = input
  const firstBucket = bucketStart(from, bucketMs)
  const buckets = to > from ? Math.floor((to - 1 - firstBucket) / bucketMs) + 1 : 0
  if (buckets > MAX_BUCKETS) throw invalid('bucket', `the range holds ${buckets} ${bucket} buckets; at most ${MAX_BUCKETS} are allowed`)

  const filter = rangeFilter(from, to, input.filter)
  // Integer division (created_at is an integer, times are positive). bucketMs is one of two fixed
  // constants, written as a literal: a bound JS number arrives as a REAL and would divide exactly.
  const sums = (where: string) => `SELECT (r.created_at / ${bucketMs}) * ${bucketMs} AS t, count(*) AS requests, ${ERRORS} AS errors,
       ${COST} AS cost_usd, ${UNPRICED} AS unpriced,
       COALESCE(SUM(r.prompt_tokens), 0) AS prompt_tokens, COALESCE(SUM(r.completion_tokens), 0) AS completion_tokens,
       COALESCE(SUM(CASE WHEN r.cached_tokens IS NOT NULL THEN r.prompt_tokens END), 0) AS cacheable_tokens,
       COALESCE(SUM(r.cached_tokens), 0) AS cached_tokens, ${picoSum('r.cache_savings_usd')} AS cache_saved_pico,
       count(r.cache_hit_of) AS hits, ${picoSum('r.cache_saved_usd')} AS hits_saved_pico
     FROM requests r WHERE ${where} AND ${INFERENCE_ONLY} GROUP BY 1`
  // One number per row, bucket number · 2^31 + latency (exact below 2^53 until the year 2448 for
  // hours): no per-row objects beyond the driver's, and sorting it sorts every bucket's latencies at once.
  const latencies = (where: string) =>
    `SELECT (r.created_at / ${bucketMs}) * ${PACK} + CASE WHEN r.latency_ms > ${PACK - 1} THEN ${PACK - 1} WHEN r.latency_ms < 0 THEN 0 ELSE r.latency_ms END AS v
     FROM requests r WHERE ${where} AND ${INFERENCE_ONLY} AND r.latency_ms IS NOT NULL`

  const { rows, packed, unread } = await sql.read(async (tx) => {
    const where = filterSql(tx.dialect, filter, scope, await choosePlan(tx, filter, scope))
    return {
      rows: await tx.all<BucketRow>(sums(where.sql), where.params),
      packed: Float64Array.from(await tx.all<{ v: number }>(latencies(where.sql), where.params), (r) => r.v).sort(),
      unread: await unreadWrites(tx, where, scope, now),
    }
  })

  // Split the sorted numbers into runs per bucket; each run is that bucket's latencies, ascending.
  const firstNumber = firstBucket / bucketMs
  const start = new Int32Array(buckets + 1).fill(packed.length)
  const all = new Float64Array(packed.length)
  for (let i = packed.length - 1; i >= 0; i--) {
    const number = Math.floor(packed[i] / PACK)
    all[i] = packed[i] - number * PACK
    start[number - firstNumber] = i
  }
  for (let b = buckets - 1; b >= 0; b--) start[b] = Math.min(start[b], start[b + 1])

  const totals: TotalsRow = { requests: 0, errors: 0, cost_usd: 0, unpriced: 0, prompt_tokens: 0, completion_tokens: 0 }
  const cache = { cacheable: 0, cached: 0, savedPico: 0n, hits: 0, hitsSavedPico: 0n }
  const byStart = new Map<number, BucketRow>()
  for (const r of rows) {
    cache.cacheable += r.cacheable_tokens
    cache.cached += r.cached_tokens
    cache.savedPico += BigInt(r.cache_saved_pico)
    cache.hits += r.hits
    cache.hitsSavedPico += BigInt(r.hits_saved_pico)
    byStart.set(r.t, r)
    totals.requests += r.requests
    totals.errors += r.errors
    totals.cost_usd += r.cost_usd
    totals.unpriced += r.unpriced
    totals.prompt_tokens += r.prompt_tokens
    totals.completion_tokens += r.completion_tokens
  }

  const series: OverviewOutput['series'] = []
  for (let i = 0; i < buckets; i++) {
    const t = firstBucket + i * bucketMs
    const r = byStart.get(t)
    const slice = all.subarray(start[i], start[i + 1])
    series.push({
      t,
      requests: r?.requests ?? 0,
      errors: r?.errors ?? 0,
      cost_usd: r?.cost_usd ?? 0,
      prompt_tokens: r?.prompt_tokens ?? 0,
      completion_tokens: r?.completion_tokens ?? 0,
      p50_ms: nearestRank(slice, 50),
      p95_ms: nearestRank(slice, 95),
    })
  }
  all.sort()

  return {
    totals: {
      requests: totals.requests,
      errors: totals.errors,
      error_rate: totals.requests ? totals.errors / totals.requests : 0,
      cost_usd: totals.cost_usd,
      unpriced_requests: totals.unpriced,
      prompt_tokens: totals.prompt_tokens,
      completion_tokens: totals.completion_tokens,
      p50_ms: nearestRank(all, 50),
      p95_ms: nearestRank(all, 95),
      p99_ms: nearestRank(all, 99),
    },
    series,
    cache: {
      prompt: {
        prompt_tokens: cache.cacheable,
        cached_tokens: cache.cached,
        hit_rate: cache.cacheable > 0 ? cache.cached / cache.cacheable : null,
        saved_usd: picoToUsdNumber(cache.savedPico),
        wasted_usd: picoToUsdNumber(unread.pico),
        wasted_tokens: unread.tokens,
        unread_writes: unread.writes,
      },
      response: { hits: cache.hits, saved_usd: picoToUsdNumber(cache.hitsSavedPico) },
    },
  }
}

const GROUP_COLUMNS = {
  model: 'r.model',
  // The model that answered, as provider/model: what a fallback, alias or preset chose.
  served_model: `CASE WHEN r.upstream_model IS NULL THEN NULL ELSE r.provider || '/' || r.upstream_model END`,
  key: 'r.key_id',
  user: 'r.user_id',
  provider: 'r.provider',
  preset: 'r.preset',
  session: 'r.session_id',
  trace: 'r.trace_id',
  tool: 'r.source_tool',
  instance: 'r.instance',
} as const

/**
 * Requests, cost (and how many are unpriced), tokens and errors per value over [from, to), the
 * `limit` largest groups by request count (then cost, then value). Rows without the attribute form the `null` group, except
 * for tags and dimensions, where a request counts once in each of its tags (so groups can add up
 * to more than the total) and requests without the dimension are not counted. By key, `value` is
 * the key id and `name` the key's name (joined from `keys` after aggregating, so it costs at most
 * `limit` lookups).
 */
export async function groupBy(sql: Sql, input: GroupByInput, scope: Scope): Promise<GroupRow[]> {
  const limit = input.limit ?? 10
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be an integer from 1 to 100')
  const filter = rangeFilter(input.from, input.to, input.filter)
  const where = filterSql(sql.dialect, filter, scope, await choosePlan(sql, filter, scope))
  const by = input.by

  let value: string
  let join = ''
  const joinParams: SqlParam[] = []
  if (by === 'tag') {
    value = 'g.tag'
    join = 'JOIN request_tags g ON g.request_id = r.id'
  } else if (by.startsWith('dimension:')) {
    const name = by.slice('dimension:'.length)
    if (!/^[a-z0-9_-]{1,64}$/.test(name)) throw invalid('by', `invalid dimension name ${name}`)
    value = 'g.value'
    join = 'JOIN request_dimensions g ON g.request_id = r.id AND g.name = ?'
    joinParams.push(name)
  } else if (Object.hasOwn(GROUP_COLUMNS, by)) {
    value = GROUP_COLUMNS[by as keyof typeof GROUP_COLUMNS]
  } else {
    throw invalid('by', `cannot group by ${by}`)
  }

  const aggregate = `SELECT ${value} AS value, count(*) AS requests, ${COST} AS cost_usd, ${UNPRICED} AS unpriced,
      COALESCE(SUM(r.prompt_tokens), 0) + COALESCE(SUM(r.completion_tokens), 0) AS tokens,
      ${ERRORS} AS errors
    FROM requests r ${join} WHERE ${where.sql} AND ${INFERENCE_ONLY}
    GROUP BY 1 ORDER BY requests DESC, cost_usd DESC, ${sql.dialect.order('value', 'ASC')} LIMIT ?`
  const params = [...joinParams, ...where.params, limit]
  if (by === 'key') {
    return sql.all<GroupRow>(
      `SELECT a.value, a.requests, a.cost_usd, a.unpriced, a.tokens, a.errors, k.name FROM (${aggregate}) a
       LEFT JOIN keys k ON k.id = a.value ORDER BY a.requests DESC, a.cost_usd DESC, ${sql.dialect.order('a.value', 'ASC')}`,
      params,
    )
  }
  return sql.all<GroupRow>(aggregate, params)
}
