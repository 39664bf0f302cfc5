/**
 * Requests-screen benchmark: seeds a temp store with 100,000 realistic request records and times
 * the queries the dashboard's Requests and Analytics screens make (median of 20 runs after
 * warm-up). Run: node --import tsx bench/requests-screen.ts [--records N] [--runs N] [--no-indexes] [--store DIR]
 * Writes bench/results/requests-screen.json. Not part of the tests.
 *
 * Index proposals are NOT in the migrations: this script builds them on a copy of the store and
 * times every query on both stores in alternation (section "PROPOSED INDEXES" below).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { DB_FILE, openDatabase, type Db } from '../src/gateway/store/db'
import type { RequestRecord } from '../src/gateway/store/requestsRepo'
import { recordBatchWriter } from '../src/gateway/store/recordBatch'
import { SqliteSql } from '../src/gateway/store/sqliteSql'
import { sqliteDialect } from '../src/gateway/store/sql'
import { filterSql, listRequests, type ListRequestsInput, type Scope } from '../src/gateway/store/queries/requestQuery'
import { groupBy, overview } from '../src/gateway/store/queries/analyticsQuery'
import { tempDir } from '../test/support/tempDir'

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '20' },
    'no-indexes': { type: 'boolean', default: false },
    /** Reuse (or create and keep) a seeded store in this folder instead of a fresh temp one. */
    store: { type: 'string' },
  },
})
const RECORDS = Number(args.records)
const RUNS = Number(args.runs)

// ---------- deterministic data ----------
let seed = 0x9e3779b9
const rand = () => {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]
/** Zipf-like: low indexes far more often. */
const skewed = <T>(xs: readonly T[], s = 1.2) => xs[Math.min(xs.length - 1, Math.floor(xs.length * Math.pow(rand(), 1 + s)))]

type Provider = 'openai' | 'anthropic' | 'gemini' | 'mistral' | 'deepseek' | 'ollama'
const MODELS: Array<{ model: string; provider: Provider; inUsd: number; outUsd: number; priced: boolean }> = [
  { model: 'openai/gpt-4o', provider: 'openai', inUsd: 2.5, outUsd: 10, priced: true },
  { model: 'openai/gpt-4o-mini', provider: 'openai', inUsd: 0.15, outUsd: 0.6, priced: true },
  { model: 'openai/gpt-4.1', provider: 'openai', inUsd: 2, outUsd: 8, priced: true },
  { model: 'openai/text-embedding-3-small', provider: 'openai', inUsd: 0.02, outUsd: 0, priced: true },
  { model: 'anthropic/claude-sonnet-4', provider: 'anthropic', inUsd: 3, outUsd: 15, priced: true },
  { model: 'anthropic/claude-haiku-3.5', provider: 'anthropic', inUsd: 0.8, outUsd: 4, priced: true },
  { model: 'anthropic/claude-opus-4', provider: 'anthropic', inUsd: 15, outUsd: 75, priced: true },
  { model: 'gemini/gemini-2.5-pro', provider: 'gemini', inUsd: 1.25, outUsd: 10, priced: true },
  { model: 'gemini/gemini-2.5-flash', provider: 'gemini', inUsd: 0.3, outUsd: 2.5, priced: true },
  { model: 'mistral/mistral-large', provider: 'mistral', inUsd: 2, outUsd: 6, priced: true },
  { model: 'mistral/mistral-small', provider: 'mistral', inUsd: 0.1, outUsd: 0.3, priced: true },
  { model: 'deepseek/deepseek-chat', provider: 'deepseek', inUsd: 0.27, outUsd: 1.1, priced: true },
  { model: 'deepseek/deepseek-reasoner', provider: 'deepseek', inUsd: 0.55, outUsd: 2.19, priced: true },
  { model: 'ollama/llama3.1:8b', provider: 'ollama', inUsd: 0, outUsd: 0, priced: false },
  { model: 'ollama/qwen2.5:14b', provider: 'ollama', inUsd: 0, outUsd: 0, priced: false },
]
const TAGS = ['prod', 'staging', 'batch', 'eval', 'chat', 'summarize', 'extract', 'rag', 'agent', 'support', 'search', 'nightly']
const TEAMS = ['core', 'growth', 'ml', 'support', 'infra', 'sales', 'data', 'mobile']
const FEATURES = Array.from({ length: 20 }, (_, i) => `feature-${i + 1}`)
const ENVS = ['prod', 'staging', 'dev']
const PRESETS = ['support-bot', 'summarizer', 'extractor', 'classifier']
const USERS = Array.from({ length: 1000 }, (_, i) => `user-${String(i + 1).padStart(4, '0')}`)

const DAY = 86_400_000
const NOW = Date.UTC(2025, 5, 30, 12, 0, 0)
const START = NOW - 30 * DAY

function makeRecord(i: number, keyIds: string[]): RequestRecord {
  // Diurnal load: more traffic in UTC working hours.
  let at: number
  for (;;) {
    at = START + Math.floor(rand() * 30 * DAY)
    const h = new Date(at).getUTCHours()
    if (rand() < (h >= 8 && h <= 20 ? 1 : 0.35)) break
  }
  const m = skewed(MODELS, 0.8)
  const r = rand()
  const status = r < 0.955 ? 200 : r < 0.975 ? pick([400, 401, 404, 422, 429]) : r < 0.99 ? pick([500, 502, 503, 504]) : 499
  const streamError = status === 200 && rand() < 0.01
  const outcome: RequestRecord['outcome'] = status === 499 ? 'aborted' : status >= 400 || streamError ? 'error' : 'ok'
  const embeddings = m.model.includes('embedding')
  const hasUsage = status === 200 || status === 499
  const prompt = hasUsage ? 50 + Math.floor(Math.pow(rand(), 2) * 8000) : 0
  const completion = hasUsage && !embeddings ? 10 + Math.floor(Math.pow(rand(), 2) * 1500) : 0
  const priced = hasUsage && m.priced && rand() > 0.01
  const inputUsd = (prompt * m.inUsd) / 1e6
  const outputUsd = (completion * m.outUsd) / 1e6
  const latency = Math.round((embeddings ? 80 : 300) + completion * (5 + rand() * 20) + (rand() < 0.02 ? rand() * 30000 : 0) + rand() * 200)
  const tags: string[] = []
  const nTags = Math.floor(rand() * 4)
  for (let t = 0; t < nTags; t++) {
    const tag = skewed(TAGS, 0.7)
    if (!tags.includes(tag)) tags.push(tag)
  }
  const dimensions: Record<string, string> = {}
  if (rand() < 0.8) dimensions.team = skewed(TEAMS, 0.5)
  if (rand() < 0.6) dimensions.feature = skewed(FEATURES, 1)
  if (rand() < 0.9) dimensions.env = skewed(ENVS, 1)
  const provider = status === 401 ? null : m.provider
  const preset = rand() < 0.25 ? pick(PRESETS) : null
  // Prompt caching: reads on any provider; Anthropic's requests also write (half of them, a tenth
  // of those for an hour), as a coding agent's do. Reads save 90 % of the input rate on Anthropic
  // (writes cost 25 % more), 50 % elsewhere.
  const cached = hasUsage ? Math.floor(prompt * rand() * 0.3) : 0
  const written = hasUsage && m.provider === 'anthropic' && rand() < 0.5 ? Math.floor((prompt - cached) * 0.4) : 0
  const writtenOneHour = written > 0 && rand() < 0.1 ? written : 0
  const writeUsd = (written * m.inUsd * 1.25) / 1e6
  const savingsUsd = (cached * m.inUsd * (m.provider === 'anthropic' ? 0.9 : 0.5) - written * m.inUsd * 0.25) / 1e6
  return {
    id: `req_${i.toString(36).padStart(8, '0')}${Math.floor(rand() * 1e9).toString(36)}`,
    created_at: new Date(at).toISOString(),
    endpoint: embeddings ? 'embeddings' : 'chat.completions',
    source: rand() < 0.03 ? 'playground' : 'api',
    status,
    outcome,
    key_id: skewed(keyIds, 0.6),
    model: m.model,
    preset,
    preset_version: preset ? 1 + Math.floor(rand() * 4) : null,
    provider,
    upstream_model: provider ? m.model.split('/')[1] : null,
    stream: !embeddings && rand() < 0.6,
    attribution: {
      user_id: rand() < 0.75 ? skewed(USERS, 1) : null,
      trace_id: rand() < 0.3 ? `trace-${Math.floor(rand() * 20000)}` : null,
      session_id: rand() < 0.4 ? `sess-${Math.floor(rand() * 5000)}` : null,
      session_derived: false,
      tags,
      extra: rand() < 0.2 ? { app_version: `1.${Math.floor(rand() * 20)}.0` } : {},
      auto_cache: null,
    },
    dimensions,
    ignored: rand() < 0.02 ? [{ name: 'x-gw-dim-too-long', reason: 'value longer than 128 characters' }] : [],
    usage: hasUsage
      ? { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: cached, cache_write_tokens: written, cache_write_1h_tokens: writtenOneHour }
      : null,
    cost: hasUsage
      ? {
          currency: 'USD',
          priced,
          unpriced_reason: priced ? null : m.priced ? 'no usage reported' : 'no price for this model',
          prompt_tokens: prompt,
          completion_tokens: completion,
          cached_tokens: cached,
          cache_write_tokens: written,
          input_usd: priced ? inputUsd : null,
          cached_input_usd: priced ? 0 : null,
          cache_write_usd: priced ? writeUsd : null,
          output_usd: priced ? outputUsd : null,
          cache_savings_usd: priced ? savingsUsd : null,
          final_usd: priced ? inputUsd + outputUsd : null,
          price_source: priced ? 'catalog 2025-06-01' : null,
          long_context: false,
          estimated: status === 499,
        }
      : null,
    attempts: [
      {
        provider: m.provider,
        model: m.model.split('/')[1],
        status: status === 499 ? null : status,
        latency_ms: latency,
        error: status >= 400 && status !== 499 ? `upstream answered ${status}` : null,
      },
    ],
    fallback_used: false,
    latency_ms: latency,
    ttfb_ms: status === 200 ? Math.round(latency * 0.2) : null,
    error:
      outcome === 'error'
        ? {
            status,
            type: status >= 500 ? 'api_error' : 'invalid_request_error',
            code: status === 429 ? 'rate_limit_exceeded' : null,
            message: `The upstream provider answered ${status}.`,
          }
        : null,
  }
}

function seed_(db: Db): { keyIds: string[]; seconds: number; bytes: number } {
  const t0 = performance.now()
  const keyIds: string[] = []
  const insertKey = db.prepare(`INSERT INTO keys (id, name, lookup, hash, last4, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
  db.transaction(() => {
    for (let k = 0; k < 20; k++) {
      const id = `key_bench${String(k).padStart(2, '0')}`
      insertKey.run(id, `bench key ${k + 1}`, `lookup${k}`, `hash${k}`, 'abcd', START - DAY)
      keyIds.push(id)
    }
  })()
  const write = recordBatchWriter(db)
  const batch = (records: RequestRecord[]) => write(asQueued(records), [])
  // The gateway writes a record when its request finishes, so rows arrive in (nearly) time order:
  // insert in order of completion (start + latency), in batches as the record writer does.
  const all = Array.from({ length: RECORDS }, (_, j) => makeRecord(j, keyIds))
  const finishedAt = (r: RequestRecord) => Date.parse(r.created_at) + r.latency_ms
  all.sort((a, b) => finishedAt(a) - finishedAt(b))
  const BATCH = 2000
  for (let i = 0; i < RECORDS; i += BATCH) batch(all.slice(i, i + BATCH))
  db.pragma('wal_checkpoint(TRUNCATE)')
  const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
  return { keyIds, seconds: (performance.now() - t0) / 1000, bytes }
}

const asQueued = (records: RequestRecord[]) => records.map((record) => ({ record, debit: null, bodies: null, at: Date.now() }))

// ---------- timing ----------
interface Case {
  name: string
  group: 'requests' | 'analytics' | 'alternative'
  run: (sql: SqliteSql) => unknown
  describe: (result: any) => string
}
interface Stats {
  median_ms: number
  p90_ms: number
  min_ms: number
}
interface Timing extends Stats {
  name: string
  group: Case['group']
  result: string
  /** The same query on a copy of the store with the proposed indexes, timed in alternation. */
  with_proposed_indexes: Stats | null
}

const round = (x: number) => Math.round(x * 100) / 100
const stats = (samples: number[]): Stats => {
  const s = [...samples].sort((a, b) => a - b)
  const n = s.length
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
  return { median_ms: round(median), p90_ms: round(s[Math.min(n - 1, Math.ceil(0.9 * n) - 1)]), min_ms: round(s[0]) }
}
const sample = async (fn: () => unknown) => {
  const t0 = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - t0) / 1e6
}

/**
 * Median of RUNS after 3 warm-up runs (page cache, statement cache). With a second store, its runs
 * alternate with the first store's, so both see the same machine load (this matters on a shared
 * machine: a busy neighbour would otherwise skew one column).
 */
async function time(c: Case, db: SqliteSql, other: SqliteSql | null): Promise<Timing> {
  let last: unknown
  for (let i = 0; i < 3; i++) {
    last = await c.run(db)
    if (other) await c.run(other)
  }
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < RUNS; i++) {
    a.push(await sample(() => c.run(db)))
    if (other) b.push(await sample(() => c.run(other)))
  }
  return { name: c.name, group: c.group, ...stats(a), result: c.describe(last), with_proposed_indexes: other ? stats(b) : null }
}

const ALL: Scope = { keyIds: null }

function cases(keyIds: string[]): Case[] {
  const list = (name: string, input: ListRequestsInput, scope: Scope = ALL): Case => ({
    name,
    group: 'requests',
    run: (db) => listRequests(db, input, scope),
    describe: (r) => `${r.items.length} rows of ${r.total}`,
  })
  const describeOverview = (r: any) =>
    `${r.totals.requests} req, ${r.series.length} buckets, p95 ${r.totals.p95_ms} ms` +
    (r.cache
      ? `, cache saved $${r.cache.prompt.saved_usd.toFixed(2)}, wasted $${r.cache.prompt.wasted_usd.toFixed(2)} (${r.cache.prompt.unread_writes} writes)`
      : '')
  const describeGroups = (r: any) => `${r.length} groups, top ${r[0]?.value}`
  const analytics = (name: string, run: Case['run'], describe: Case['describe']): Case => ({ name, group: 'analytics', run, describe })
  const week = { from: NOW - 7 * DAY, to: NOW }
  const month = { from: START, to: NOW }
  return [
    list('first page, unfiltered, newest first', {}),
    list('filter: key', { filter: { key_id: keyIds[3] } }),
    list('filter: model', { filter: { model: 'anthropic/claude-sonnet-4' } }),
    list('filter: tag (common: "prod")', { filter: { tag: 'prod' } }),
    list('filter: tag (rare: "nightly")', { filter: { tag: 'nightly' } }),
    list('filter: dimension team=ml', { filter: { dimensions: { team: 'ml' } } }),
    list('filter: dimension feature=feature-17', { filter: { dimensions: { feature: 'feature-17' } } }),
    list('filter: user_id', { filter: { user_id: 'user-0042' } }),
    list('filter: status 2xx', { filter: { status: '2xx' } }),
    list('filter: status 5xx', { filter: { status: '5xx' } }),
    list('filter: status 429', { filter: { status: 429 } }),
    list('page deep in list (offset 5,000)', { offset: 5000 }),
    list('sort by cost desc', { sort: 'cost_usd' }),
    list('sort by latency desc', { sort: 'latency_ms' }),
    list('filter: last 24 h', { filter: { from: NOW - DAY, to: NOW } }),
    list('filter: outcome error', { filter: { outcome: 'error' } }),
    list('filter: source playground', { filter: { source: 'playground' } }),
    list('combined: key + model + 7 days', { filter: { key_id: keyIds[0], model: 'openai/gpt-4o-mini', ...week } }),
    list('combined: tag + dimension + 5xx', { filter: { tag: 'prod', dimensions: { env: 'prod' }, status: '5xx' } }),
    list('combined: model + common tag', { filter: { model: 'openai/gpt-4o-mini', tag: 'prod' } }),
    list('combined: 2xx + rare dimension', { filter: { status: '2xx', dimensions: { feature: 'feature-17' } } }),
    list('combined: 2xx + tag, page at offset 5,000', { filter: { status: '2xx', tag: 'prod' }, offset: 5000 }),
    list('member scope (3 keys), first page', {}, { keyIds: keyIds.slice(5, 8) }),
    list('member scope (3 keys) + tag', { filter: { tag: 'batch' } }, { keyIds: keyIds.slice(5, 8) }),
    analytics('overview, 7 days, hourly', (db) => overview(db, { ...week, bucket: 'hour' }, ALL, NOW), describeOverview),
    analytics('overview, 30 days, daily', (db) => overview(db, { ...month, bucket: 'day' }, ALL, NOW), describeOverview),
    analytics('overview, 30 days, hourly', (db) => overview(db, { ...month, bucket: 'hour' }, ALL, NOW), describeOverview),
    analytics('overview, 30 days, one key', (db) => overview(db, { ...month, bucket: 'day', filter: { key_id: keyIds[3] } }, ALL, NOW), describeOverview),
    analytics('overview, 30 days, member (3 keys)', (db) => overview(db, { ...month, bucket: 'day' }, { keyIds: keyIds.slice(5, 8) }, NOW), describeOverview),
    analytics('groupBy model, 7 days', (db) => groupBy(db, { ...week, by: 'model' }, ALL), describeGroups),
    analytics('groupBy model, 30 days', (db) => groupBy(db, { ...month, by: 'model' }, ALL), describeGroups),
    analytics('groupBy key, 30 days', (db) => groupBy(db, { ...month, by: 'key' }, ALL), describeGroups),
    analytics('groupBy provider, 30 days', (db) => groupBy(db, { ...month, by: 'provider' }, ALL), describeGroups),
    analytics('groupBy user, 30 days', (db) => groupBy(db, { ...month, by: 'user' }, ALL), describeGroups),
    analytics('groupBy tag, 30 days', (db) => groupBy(db, { ...month, by: 'tag' }, ALL), describeGroups),
    analytics('groupBy dimension:team, 30 days', (db) => groupBy(db, { ...month, by: 'dimension:team' }, ALL), describeGroups),
    ...alternatives(),
  ]
}

/** Percentile strategies on the 30-day range: what overview() reads vs doing it in SQL. */
function alternatives(): Case[] {
  const where = filterSql(sqliteDialect, { from: START, to: NOW }, ALL)
  const p = where.params
  const alt = (name: string, sql: string, mode: 'pluck' | 'raw', post: (rows: any) => unknown = (x) => x): Case => ({
    name,
    group: 'alternative',
    run: (s) => {
      const st = s.db.prepare(sql)
      return post(mode === 'pluck' ? st.pluck().all(...p) : st.raw().all(...p))
    },
    describe: (r) => (ArrayBuffer.isView(r) || Array.isArray(r) ? `${(r as ArrayLike<unknown>).length} values` : JSON.stringify(r)),
  })
  const sorted = (xs: number[]) => Float64Array.from(xs).sort()
  return [
    alt(
      'alt: packed (hour, latency) pluck + typed-array sort (what overview does)',
      `SELECT (r.created_at / 3600000) * 2147483648 + r.latency_ms FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL`,
      'pluck',
      sorted,
    ),
    alt(
      'alt: latency column only, pluck + typed-array sort (totals only)',
      `SELECT r.latency_ms FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL`,
      'pluck',
      sorted,
    ),
    alt(
      'alt: (created_at, latency) pairs as raw rows, no sort',
      `SELECT r.created_at, r.latency_ms FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL`,
      'raw',
    ),
    alt(
      'alt: SQL window functions, totals p50/p95/p99',
      `WITH x AS (SELECT r.latency_ms AS v, row_number() OVER (ORDER BY r.latency_ms) AS rn, count(*) OVER () AS n
         FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL)
       SELECT max(CASE WHEN rn = (n * 50 + 99) / 100 THEN v END), max(CASE WHEN rn = (n * 95 + 99) / 100 THEN v END),
              max(CASE WHEN rn = (n * 99 + 99) / 100 THEN v END) FROM x`,
      'raw',
      (rows) => rows[0],
    ),
    alt(
      'alt: SQL window functions, hourly p50/p95 per bucket',
      `WITH x AS (SELECT r.created_at / 3600000 AS b, r.latency_ms AS v,
           row_number() OVER (PARTITION BY r.created_at / 3600000 ORDER BY r.latency_ms) AS rn,
           count(*) OVER (PARTITION BY r.created_at / 3600000) AS n
         FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL)
       SELECT b, max(CASE WHEN rn = (n * 50 + 99) / 100 THEN v END), max(CASE WHEN rn = (n * 95 + 99) / 100 THEN v END) FROM x GROUP BY b`,
      'raw',
    ),
    // Built in (SQLITE_ENABLE_PERCENTILE) but it takes the value at floor(p · (n - 1)), not the
    // nearest rank ceil(p · n): a speed reference only.
    alt(
      'alt: SQLite percentile_disc() p50/p95/p99 (not nearest-rank)',
      `SELECT percentile_disc(r.latency_ms, 0.5), percentile_disc(r.latency_ms, 0.95), percentile_disc(r.latency_ms, 0.99) FROM requests r WHERE ${where.sql}`,
      'raw',
      (rows) => rows[0],
    ),
    alt(
      'alt: plain SQL sums, no percentiles',
      `SELECT count(*), TOTAL(r.cost_usd), SUM(r.prompt_tokens) FROM requests r WHERE ${where.sql}`,
      'raw',
      (rows) => rows[0],
    ),
  ]
}

// ---------- PROPOSED INDEXES (not in the migrations; created here, on a copy, only to measure them) ----------
// Empty while nothing is proposed: requests_analytics, measured here first, became migration 5.
const PROPOSED_INDEXES: string[] = []

/** Insert cost in µs per record: `n` records in batches of 250 (as the record writer does), rolled back afterwards. */
function insertCost(db: Db, keyIds: string[], n: number): number {
  const write = recordBatchWriter(db)
  // New records arrive at the end of time, as live traffic does (not at random points of the past).
  const records = Array.from({ length: n }, (_, i) => ({
    ...makeRecord(RECORDS + i, keyIds),
    id: `req_bench_insert_${i}_${Math.floor(rand() * 1e9).toString(36)}`,
    created_at: new Date(NOW + i * 50).toISOString(),
  }))
  db.exec('BEGIN')
  try {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i += 250) {
      db.exec('SAVEPOINT batch')
      write(asQueued(records.slice(i, i + 250)), [])
      db.exec('RELEASE batch')
    }
    return Number(process.hrtime.bigint() - t0) / 1e3 / n // µs per record
  } finally {
    db.exec('ROLLBACK')
  }
}

function table(rows: Timing[]): string {
  const withIdx = rows.some((r) => r.with_proposed_indexes)
  return [
    withIdx
      ? '| query | median ms | p90 ms | median ms, proposed index | result |\n|---|---:|---:|---:|---|'
      : '| query | median ms | p90 ms | result |\n|---|---:|---:|---|',
    ...rows.map((r) =>
      withIdx
        ? `| ${r.name} | ${r.median_ms} | ${r.p90_ms} | ${r.with_proposed_indexes?.median_ms ?? ''} | ${r.result} |`
        : `| ${r.name} | ${r.median_ms} | ${r.p90_ms} | ${r.result} |`,
    ),
  ].join('\n')
}

// ---------- run ----------
const dir = args.store ?? tempDir('gw-bench-')
const db = openDatabase(dir)
const existing = db.prepare(`SELECT count(*) FROM requests`).pluck().get() as number
let seeded: { keyIds: string[]; seconds: number | null; bytes: number }
if (existing === 0) {
  console.log(`seeding ${RECORDS.toLocaleString('en')} records into ${dir} …`)
  seeded = seed_(db)
  console.log(`seeded in ${seeded.seconds!.toFixed(1)} s, store ${(seeded.bytes / 1e6).toFixed(0)} MB`)
} else {
  const keyIds = db.prepare(`SELECT id FROM keys ORDER BY id`).pluck().all() as string[]
  const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
  seeded = { keyIds, seconds: null, bytes }
  console.log(`reusing the store in ${dir} (${existing.toLocaleString('en')} records)`)
}
const counts = db
  .prepare(`SELECT (SELECT count(*) FROM requests), (SELECT count(*) FROM request_tags), (SELECT count(*) FROM request_dimensions)`)
  .raw()
  .get() as number[]
console.log(`rows: requests ${counts[0]}, request_tags ${counts[1]}, request_dimensions ${counts[2]}`)

// The proposed indexes go on a copy of the store, timed in alternation with the original.
let other: Db | null = null
let otherDir: string | null = null
let indexBuild: { seconds: number; index_mb: number } | null = null
if (!args['no-indexes'] && PROPOSED_INDEXES.length > 0) {
  db.pragma('wal_checkpoint(TRUNCATE)')
  otherDir = tempDir('gw-bench-indexed-')
  fs.copyFileSync(path.join(dir, DB_FILE), path.join(otherDir, DB_FILE))
  other = openDatabase(otherDir)
  const t0 = performance.now()
  for (const sql of PROPOSED_INDEXES) other.exec(sql)
  const seconds = (performance.now() - t0) / 1000
  const names = PROPOSED_INDEXES.map((sql) => /CREATE INDEX (\w+)/.exec(sql)![1])
  const bytes = other
    .prepare(`SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`)
    .pluck()
    .get(...names) as number
  indexBuild = { seconds: round(seconds), index_mb: round(bytes / 1e6) }
  console.log(`proposed indexes built on a copy in ${seconds.toFixed(2)} s (${(bytes / 1e6).toFixed(1)} MB)`)
}

const timings: Timing[] = []
for (const c of cases(seeded.keyIds)) timings.push(await time(c, new SqliteSql(db), other && new SqliteSql(other)))
let writeCost: { per_record_us: number; per_record_us_with_proposed_indexes: number | null }
{
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < 5; i++) {
    a.push(insertCost(db, seeded.keyIds, 2000))
    if (other) b.push(insertCost(other, seeded.keyIds, 2000))
  }
  writeCost = { per_record_us: stats(a).median_ms, per_record_us_with_proposed_indexes: other ? stats(b).median_ms : null }
}

console.log()
console.log(table(timings))
console.log()
console.log(
  `insert cost per record (batches of 250, with tags and dimensions): ${writeCost.per_record_us} µs` +
    (other ? `, with the proposed index ${writeCost.per_record_us_with_proposed_indexes} µs` : ''),
)
const slow = timings.filter((t) => t.group === 'requests' && t.median_ms >= 200)
console.log(slow.length ? `MISSED the 200 ms target: ${slow.map((s) => s.name).join('; ')}` : 'every Requests-screen query is under 200 ms (median)')

const out = {
  date: new Date().toISOString(),
  machine: {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    load_average: os.loadavg().map(round),
  },
  sqlite: db.prepare('SELECT sqlite_version()').pluck().get(),
  records: counts[0],
  rows: { requests: counts[0], request_tags: counts[1], request_dimensions: counts[2] },
  store_mb: Math.round(seeded.bytes / 1e6),
  seed_seconds: seeded.seconds === null ? null : round(seeded.seconds),
  runs: RUNS,
  target_ms: 200,
  proposed_indexes: other ? { sql: PROPOSED_INDEXES, build: indexBuild } : null,
  write_cost: writeCost,
  timings,
}
const resultsDir = path.join(import.meta.dirname, 'results')
fs.mkdirSync(resultsDir, { recursive: true })
fs.writeFileSync(path.join(resultsDir, 'requests-screen.json'), JSON.stringify(out, null, 2) + '\n')
console.log(`\nwrote ${path.relative(process.cwd(), path.join(resultsDir, 'requests-screen.json'))}`)
db.close()
other?.close()
if (otherDir) fs.rmSync(otherDir, { recursive: true, force: true })
if (!args.store) fs.rmSync(dir, { recursive: true, force: true })
