/**
 * Requests-screen benchmark: seeds a temp store with 100,000 realistic request records and times
 * the queries the dashboard's Requests and Analytics screens make (median of 20 runs after
 * warm-up). Run: node --import tsx bench/requests-screen.ts [--records N] [--runs N] [--no-indexes]
 * Writes bench/results/requests-screen.json. Not part of the tests.
 *
 * Index proposals are NOT in the migrations: this script creates them itself, after timing the
 * schema as migrated, and times everything again (section "PROPOSED INDEXES" below).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { openDatabase, type Db } from '../src/gateway/store/db'
import { RequestsRepo, type RequestRecord } from '../src/gateway/store/requestsRepo'
import { listRequests, type ListRequestsInput, type Scope } from '../src/gateway/admin/queries/requestQuery'
import { groupBy, overview } from '../src/gateway/admin/queries/analyticsQuery'
import { filterSql } from '../src/gateway/admin/queries/requestQuery'
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

const PROVIDERS = ['openai', 'anthropic', 'gemini', 'mistral', 'deepseek', 'ollama'] as const
const MODELS: Array<{ model: string; provider: (typeof PROVIDERS)[number]; inUsd: number; outUsd: number; priced: boolean }> = [
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
  const latency = Math.round(
    (embeddings ? 80 : 300) + completion * (5 + rand() * 20) + (rand() < 0.02 ? rand() * 30000 : 0) + rand() * 200,
  )
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
      tags,
      extra: rand() < 0.2 ? { app_version: `1.${Math.floor(rand() * 20)}.0` } : {},
      auto_cache: null,
    },
    dimensions,
    ignored: rand() < 0.02 ? [{ name: 'x-gw-dim-too-long', reason: 'value longer than 128 characters' }] : [],
    usage: hasUsage ? { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: Math.floor(prompt * rand() * 0.3) } : null,
    cost: hasUsage
      ? {
          currency: 'USD',
          priced,
          unpriced_reason: priced ? null : m.priced ? 'no usage reported' : 'no price for this model',
          prompt_tokens: prompt,
          completion_tokens: completion,
          cached_tokens: 0,
          cache_write_tokens: 0,
          input_usd: priced ? inputUsd : null,
          cached_input_usd: priced ? 0 : null,
          cache_write_usd: priced ? 0 : null,
          output_usd: priced ? outputUsd : null,
          cache_savings_usd: priced ? 0 : null,
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
        ? { status, type: status >= 500 ? 'api_error' : 'invalid_request_error', code: status === 429 ? 'rate_limit_exceeded' : null, message: `The upstream provider answered ${status}.` }
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
  const repo = new RequestsRepo(db)
  const batch = db.transaction((records: RequestRecord[]) => {
    for (const r of records) repo.insert(r)
  })
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

// ---------- timing ----------
interface Timing {
  name: string
  group: 'requests' | 'analytics' | 'alternative'
  median_ms: number
  p90_ms: number
  min_ms: number
  result: string
}

function time(name: string, group: Timing['group'], fn: () => unknown, describe: (r: any) => string): Timing {
  let last: unknown
  for (let i = 0; i < 3; i++) last = fn() // warm-up: page cache, statement cache
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint()
    last = fn()
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  samples.sort((a, b) => a - b)
  const median = RUNS % 2 ? samples[(RUNS - 1) / 2] : (samples[RUNS / 2 - 1] + samples[RUNS / 2]) / 2
  return {
    name,
    group,
    median_ms: round(median),
    p90_ms: round(samples[Math.min(RUNS - 1, Math.ceil(0.9 * RUNS) - 1)]),
    min_ms: round(samples[0]),
    result: describe(last),
  }
}
const round = (x: number) => Math.round(x * 100) / 100

const ALL: Scope = { keyIds: null }

function suite(db: Db, keyIds: string[]): Timing[] {
  const list = (name: string, input: ListRequestsInput, scope: Scope = ALL) =>
    time(name, 'requests', () => listRequests(db, input, scope), (r) => `${r.items.length} rows of ${r.total}`)
  const week = { from: NOW - 7 * DAY, to: NOW }
  const month = { from: START, to: NOW }
  const out: Timing[] = [
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
  ]
  const describeOverview = (r: any) => `${r.totals.requests} req, ${r.series.length} buckets, p95 ${r.totals.p95_ms} ms`
  const describeGroups = (r: any) => `${r.length} groups, top ${r[0]?.value}`
  out.push(
    time('overview, 7 days, hourly', 'analytics', () => overview(db, { ...week, bucket: 'hour' }, ALL), describeOverview),
    time('overview, 30 days, daily', 'analytics', () => overview(db, { ...month, bucket: 'day' }, ALL), describeOverview),
    time('overview, 30 days, hourly', 'analytics', () => overview(db, { ...month, bucket: 'hour' }, ALL), describeOverview),
    time('overview, 30 days, one key', 'analytics', () => overview(db, { ...month, bucket: 'day', filter: { key_id: keyIds[3] } }, ALL), describeOverview),
    time('groupBy model, 30 days', 'analytics', () => groupBy(db, { ...month, by: 'model' }, ALL), describeGroups),
    time('groupBy tag, 30 days', 'analytics', () => groupBy(db, { ...month, by: 'tag' }, ALL), describeGroups),
    time('groupBy key, 30 days', 'analytics', () => groupBy(db, { ...month, by: 'key' }, ALL), describeGroups),
    time('groupBy dimension:team, 30 days', 'analytics', () => groupBy(db, { ...month, by: 'dimension:team' }, ALL), describeGroups),
    time('groupBy model, 7 days', 'analytics', () => groupBy(db, { ...week, by: 'model' }, ALL), describeGroups),
  )
  out.push(...alternatives(db))
  return out
}

/** Percentile strategies compared on the 30-day range (what overview() does vs window functions). */
function alternatives(db: Db): Timing[] {
  const where = filterSql({ from: START, to: NOW }, ALL)
  const latencyOnly = db.prepare(`SELECT r.latency_ms FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL`).pluck()
  const pairs = db.prepare(`SELECT r.created_at, r.latency_ms FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL`).raw()
  const window = db.prepare(
    `WITH x AS (SELECT r.latency_ms AS v, row_number() OVER (ORDER BY r.latency_ms) AS rn, count(*) OVER () AS n
       FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL)
     SELECT max(CASE WHEN rn = (n * 50 + 99) / 100 THEN v END) AS p50, max(CASE WHEN rn = (n * 95 + 99) / 100 THEN v END) AS p95,
            max(CASE WHEN rn = (n * 99 + 99) / 100 THEN v END) AS p99 FROM x`,
  )
  const windowBuckets = db.prepare(
    `WITH x AS (SELECT r.created_at / 3600000 AS b, r.latency_ms AS v,
         row_number() OVER (PARTITION BY r.created_at / 3600000 ORDER BY r.latency_ms) AS rn,
         count(*) OVER (PARTITION BY r.created_at / 3600000) AS n
       FROM requests r WHERE ${where.sql} AND r.latency_ms IS NOT NULL)
     SELECT b, max(CASE WHEN rn = (n * 50 + 99) / 100 THEN v END) AS p50, max(CASE WHEN rn = (n * 95 + 99) / 100 THEN v END) AS p95
     FROM x GROUP BY b`,
  )
  const sums = db.prepare(
    `SELECT count(*), TOTAL(r.cost_usd), SUM(r.prompt_tokens) FROM requests r WHERE ${where.sql}`,
  )
  // Built in with SQLITE_ENABLE_PERCENTILE; takes the value at floor(p · (n - 1)), which is not the
  // nearest rank ceil(p · n), so it only serves as a speed reference.
  const disc = db.prepare(
    `SELECT percentile_disc(r.latency_ms, 0.5), percentile_disc(r.latency_ms, 0.95), percentile_disc(r.latency_ms, 0.99) FROM requests r WHERE ${where.sql}`,
  )
  const sorted = (xs: number[]) => Float64Array.from(xs).sort()
  return [
    time('alt: latency column only → JS sort (totals p50/p95/p99)', 'alternative', () => sorted(latencyOnly.all(...where.params) as number[]), (a) => `${a.length} values`),
    time('alt: (created_at, latency) pairs read raw (what overview reads)', 'alternative', () => pairs.all(...where.params), (a) => `${a.length} rows`),
    time('alt: SQL window functions, totals p50/p95/p99', 'alternative', () => window.get(...where.params), (r) => JSON.stringify(r)),
    time('alt: SQL window functions, hourly p50/p95 per bucket', 'alternative', () => windowBuckets.all(...where.params), (r) => `${r.length} buckets`),
    time('alt: SQLite percentile_disc() p50/p95/p99 (not nearest-rank)', 'alternative', () => disc.raw().get(...where.params), (r) => JSON.stringify(r)),
    time('alt: plain SQL sums only (no percentiles)', 'alternative', () => sums.raw().get(...where.params), () => ''),
  ]
}

// ---------- PROPOSED INDEXES (not in the migrations; created here only to measure them) ----------
const PROPOSED_INDEXES = [
  // The analytics queries read every matching row's created_at/outcome/cost/tokens/latency. Without
  // this covering index each row costs a visit to the wide table row (the JSON detail is ~2 KB).
  `CREATE INDEX requests_analytics ON requests (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms)`,
]

const PROPOSED_INDEX_NAMES = PROPOSED_INDEXES.map((sql) => /CREATE INDEX (\w+)/.exec(sql)![1])

function table(rows: Timing[], withIdx?: Timing[]): string {
  const head = withIdx
    ? '| query | median ms | p90 ms | median ms with proposed index | result |\n|---|---:|---:|---:|---|'
    : '| query | median ms | p90 ms | result |\n|---|---:|---:|---|'
  return [
    head,
    ...rows.map((r, i) =>
      withIdx
        ? `| ${r.name} | ${r.median_ms} | ${r.p90_ms} | ${withIdx[i].median_ms} | ${r.result} |`
        : `| ${r.name} | ${r.median_ms} | ${r.p90_ms} | ${r.result} |`,
    ),
  ].join('\n')
}

const dir = args.store ?? tempDir('gw-bench-')
const db = openDatabase(dir)
for (const name of PROPOSED_INDEX_NAMES) db.exec(`DROP INDEX IF EXISTS ${name}`)
const existing = db.prepare(`SELECT count(*) FROM requests`).pluck().get() as number
let seeded: { keyIds: string[]; seconds: number; bytes: number }
if (existing === 0) {
  console.log(`seeding ${RECORDS.toLocaleString('en')} records into ${dir} …`)
  seeded = seed_(db)
  console.log(`seeded in ${seeded.seconds.toFixed(1)} s, store ${(seeded.bytes / 1e6).toFixed(0)} MB`)
} else {
  const keyIds = db.prepare(`SELECT id FROM keys ORDER BY id`).pluck().all() as string[]
  const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
  seeded = { keyIds, seconds: NaN, bytes }
  console.log(`reusing the store in ${dir} (${existing.toLocaleString('en')} records)`)
}
const counts = db.prepare(`SELECT (SELECT count(*) FROM requests), (SELECT count(*) FROM request_tags), (SELECT count(*) FROM request_dimensions)`).raw().get() as number[]
console.log(`rows: requests ${counts[0]}, request_tags ${counts[1]}, request_dimensions ${counts[2]}`)

const base = suite(db, seeded.keyIds)
let withIndexes: Timing[] | undefined
if (!args['no-indexes']) {
  for (const sql of PROPOSED_INDEXES) db.exec(sql)
  withIndexes = suite(db, seeded.keyIds)
  for (const name of PROPOSED_INDEX_NAMES) db.exec(`DROP INDEX IF EXISTS ${name}`)
}
console.log()
console.log(table(base, withIndexes))

const slow = base.filter((t) => t.group === 'requests' && t.median_ms >= 200)
console.log()
console.log(slow.length ? `MISSED 200 ms target: ${slow.map((s) => s.name).join('; ')}` : 'every Requests-screen query is under 200 ms (median)')

const cpu = os.cpus()[0]?.model ?? 'unknown'
const out = {
  date: new Date().toISOString(),
  machine: { cpu, cores: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), platform: `${os.platform()} ${os.release()}`, node: process.version },
  sqlite: db.prepare('SELECT sqlite_version()').pluck().get(),
  records: counts[0],
  runs: RUNS,
  store_mb: Math.round(seeded.bytes / 1e6),
  seed_seconds: round(seeded.seconds),
  rows: { requests: counts[0], request_tags: counts[1], request_dimensions: counts[2] },
  target_ms: 200,
  timings: base,
  proposed_indexes: withIndexes ? { sql: PROPOSED_INDEXES, timings: withIndexes } : null,
}
const resultsDir = path.join(import.meta.dirname, 'results')
fs.mkdirSync(resultsDir, { recursive: true })
fs.writeFileSync(path.join(resultsDir, 'requests-screen.json'), JSON.stringify(out, null, 2) + '\n')
console.log(`\nwrote ${path.relative(process.cwd(), path.join(resultsDir, 'requests-screen.json'))}`)
db.close()
if (!args.store) fs.rmSync(dir, { recursive: true, force: true })
