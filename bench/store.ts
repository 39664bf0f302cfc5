/**
 * The store as a dimension (`npm run bench:store`; not part of the tests). On 127.0.0.1 only: the
 * mock provider, one gateway as shipped on SQLite, and two on one PostgreSQL database (a throwaway
 * server with fsync on, started as the tests start theirs): the first alone is "one gateway on
 * PostgreSQL", both together "two gateways on PostgreSQL", the load generator's connections going
 * to them in turn, as a round-robin load balancer would send them. Each store has a free key, a
 * key limited by requests a minute only (a billion: it never refuses, so its figures are what an
 * admission alone costs) and a prepaid key. Closed loop at 10 and 50 connections against the
 * instant mock, the nine targets and the direct path interleaved and rotated over REPS rounds,
 * medians reported: req/s, the latency each adds to the direct path at p50 and p99, and CPU over
 * each round: the gateways' (summed over the pair), the PostgreSQL server's (its postmaster and
 * backends, busy or not: on SQLite it shows what the idle gateways' database costs), the load
 * generator's and the mock's, and the whole machine's (everyone's, other users' too). Then, on
 * PostgreSQL, one more round per target between quiet spells counts the database's committed
 * transactions per request (`pg_stat_database.xact_commit`, every connection's, less what the
 * idle gateways commit a second, measured over a quiet spell first: heartbeats, the reaper, the
 * configuration poll). Last, one admission of an rpm-only key is timed alone as its minute fills.
 * The load average is noted before and after.
 * Writes bench/results/<name>.json and .md (default name: store-bench).
 * Options: --reps N  --seconds S  --name NAME
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import type { Pool } from 'undici'
import { closedLoop, makePools, median, type Call, type Stats } from './loadgen'
import { cpuSeconds, familyCpuSeconds, machineBusySeconds, ROOT, startChild, type Child } from './procs'
import { startGatewayChild, type GatewayChild } from './gateway-process'
import { MOCK_MODELS } from './mock-provider'
import { buildApp } from '../test/support/build'
import { startPostgres } from '../test/support/postgres'

const { values: args } = parseArgs({
  options: {
    reps: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    name: { type: 'string', default: 'store-bench' },
  },
})
const REPS = Number(args.reps)
const MS = Number(args.seconds) * 1000
const CONNECTIONS = [10, 50]
/** The rate-limited key's limit: far above what this machine can send, so every request is admitted. */
const RPM = 1_000_000_000

const say = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`)
const round = (x: number, d = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null)
const load = () => os.loadavg().map((x) => round(x)) as number[]

interface StoreTarget extends Call {
  name: string
  /** Where its connections go, in turn. */
  origins: string[]
  /** The gateway processes serving it, for their CPU. */
  pids: number[]
  /** Whether it runs on PostgreSQL, for the transaction count. */
  postgres: boolean
  /** Whether its key is the one limited by rpm, for the requests in its minute. */
  rpm: boolean
}

/** Requests in a key's minute at which one admission alone is timed. */
const MINUTES = [600, 10_000, 60_000]

/**
 * What one `gw_admit` of a key limited by rpm only costs, called one at a time from a connection
 * set up as the gateways' admissions are (synchronous_commit off), with a bare `SELECT 1` for the
 * round trip: a probe key of its own, its minute filled with MINUTES[i] requests first (just
 * inserted, as a busy key's are). Mean milliseconds a call, after a warm-up.
 */
async function timeAdmissions(databaseUrl: string): Promise<Record<string, number | null>> {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c synchronous_commit=off' })
  await client.connect()
  try {
    const mean = async (calls: number, sql: string, params: (i: number) => unknown[]) => {
      for (let i = 0; i < 50; i++) await client.query(sql, params(-i - 1))
      const t0 = performance.now()
      for (let i = 0; i < calls; i++) await client.query(sql, params(i))
      return round((performance.now() - t0) / calls, 3)
    }
    const times: Record<string, number | null> = { select_1: await mean(500, 'SELECT 1', () => []) }
    const admit = `SELECT refusal FROM gw_admit($1, 'bench-probe', 'bench-probe', ${RPM}, false, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, true)`
    for (const n of MINUTES) {
      await client.query(`DELETE FROM rate_buckets WHERE key_id = 'bench-probe'`)
      await client.query(`INSERT INTO rate_buckets (key_id, second, n) SELECT 'bench-probe', gw_now_ms() / 1000 - s, $1 / 50 FROM generate_series(1, 50) s`, [
        n,
      ])
      times[`rpm_admit_${n}_in_minute`] = await mean(n > 10_000 ? 100 : 500, admit, (i) => [`probe-${n}-${i}`])
    }
    await client.query(`DELETE FROM rate_buckets WHERE key_id = 'bench-probe'`)
    return times
  } finally {
    await client.end()
  }
}

/** What one round of a target measured: its load generator's stats and CPU as % of one core. */
type Round = Stats & { gateway: number; db: number; client: number; machine: number; cpuUsPerRequest: number; minute: number | null }

say('building the app (skipped when out/ is newer than the sources)')
buildApp()
const loadBefore = load()
const children: Child[] = []
const postgres = await startPostgres({ durable: true })
try {
  const databaseUrl = await postgres.createDatabase('bench')
  const postmaster = Number(fs.readFileSync(path.join(postgres.dir, 'data/postmaster.pid'), 'utf8').split('\n')[0])
  const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
  children.push(mock)
  const keys = { root: ROOT, prepaidUsd: 1_000_000, rpm: RPM }
  const sqlite = await startGatewayChild(mock.info.url, keys)
  children.push(sqlite)
  const first = await startGatewayChild(mock.info.url, { ...keys, databaseUrl })
  children.push(first)
  const second = await startGatewayChild(mock.info.url, { root: ROOT, joins: first })
  children.push(second)

  const json = { 'content-type': 'application/json' }
  const target = (name: string, gateways: GatewayChild[], key: string, postgres: boolean, rpm = false): StoreTarget => ({
    name,
    origins: gateways.map((g) => g.url),
    path: '/v1/chat/completions',
    headers: { ...json, authorization: `Bearer ${key}` },
    pids: gateways.map((g) => g.pid),
    postgres,
    rpm,
  })
  const direct: StoreTarget = { ...target('direct', [], 'sk-mock-bench', false), origins: [mock.info.url] }
  const perKey = (store: string, gateways: GatewayChild[], postgres: boolean) => {
    const { key, rpmKey, prepaidKey } = gateways[0]
    if (!rpmKey || !prepaidKey) throw new Error(`the gateway of ${store} was started without its limited keys`)
    return [
      target(`${store} free`, gateways, key, postgres),
      target(`${store} rpm`, gateways, rpmKey, postgres, true),
      target(`${store} prepaid`, gateways, prepaidKey, postgres),
    ]
  }
  const targets = [...perKey('sqlite', [sqlite], false), ...perKey('postgres', [first], true), ...perKey('postgres x2', [first, second], true)]
  const everything = [direct, ...targets]
  const body = JSON.stringify({ model: MOCK_MODELS.instant, messages: [{ role: 'user', content: 'hi' }] })

  // The database's own counter: every transaction any connection committed.
  const stats = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const commits = async () => Number((await stats.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)).rows[0].xact_commit)
  // The rpm key's requests in its sliding minute, which its admission counts (gw_admit).
  const inMinute = async () =>
    Number((await stats.query(`SELECT COALESCE(SUM(n), 0) AS n FROM rate_buckets WHERE second >= gw_now_ms() / 1000 - 60`)).rows[0].n)

  /** One closed-loop round of a target, with the CPU every party spent over it. */
  const measure = async (pools: Pool[], t: StoreTarget, c: number): Promise<Round> => {
    const gateways = () => t.pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
    const client = () => {
      const u = process.cpuUsage()
      return (u.user + u.system) / 1e6 + cpuSeconds(mock.pid)
    }
    const before = { gateway: gateways(), db: familyCpuSeconds(postmaster), client: client(), machine: machineBusySeconds() }
    const s = await closedLoop(pools, t, body, c, MS)
    const spent = { gateway: gateways() - before.gateway, db: familyCpuSeconds(postmaster) - before.db }
    const pct = (seconds: number) => (seconds / s.seconds) * 100
    return {
      ...s,
      gateway: pct(spent.gateway),
      db: pct(spent.db),
      client: pct(client() - before.client),
      machine: pct(machineBusySeconds() - before.machine),
      cpuUsPerRequest: ((spent.gateway + spent.db) / s.count) * 1e6,
      minute: t.postgres && t.rpm ? await inMinute() : null,
    }
  }

  // pg_stat_database counts what backends report: a busy one reports at most once a second, an
  // idle one within 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL).
  const settled = () => new Promise((resolve) => setTimeout(resolve, 11_000))

  const results: Record<string, unknown> = {
    when: new Date().toISOString(),
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    reps: REPS,
    seconds: MS / 1000,
    rpm_limit: RPM,
  }
  const idlePerSecond: Record<string, number | null> = {}
  for (const c of CONNECTIONS) {
    say(`${c} connections, ${MS / 1000} s x ${REPS} per target`)
    const pools = new Map(everything.map((t) => [t, makePools(t.origins, c)]))
    for (const t of everything) await closedLoop(pools.get(t)!, t, body, c, 1000)
    const runs = new Map<StoreTarget, Round[]>(everything.map((t) => [t, []]))
    for (let rep = 0; rep < REPS; rep++) {
      const rotated = [...everything.slice(rep % everything.length), ...everything.slice(0, rep % everything.length)]
      for (const t of rotated) runs.get(t)!.push(await measure(pools.get(t)!, t, c))
    }
    // Then, on PostgreSQL: a quiet spell alone, for what the idle gateways commit (heartbeats, the
    // reaper, the configuration poll, this counter's own reads), then one round per target, each
    // followed by a quiet spell (the one before the next); the idle rate over the round and its
    // spell is taken off its count, leaving what its requests committed.
    say(`${c} connections: transactions per request`)
    const perRequest = new Map<StoreTarget, number>()
    const counted = async () => ({ n: await commits(), at: performance.now() })
    await settled()
    const quiet = await counted()
    await settled()
    let before = await counted()
    const idlePerMs = (before.n - quiet.n) / (before.at - quiet.at)
    idlePerSecond[`c${c}`] = round(idlePerMs * 1000, 1)
    for (const t of targets.filter((x) => x.postgres)) {
      const s = await closedLoop(pools.get(t)!, t, body, c, MS)
      await settled()
      const after = await counted()
      perRequest.set(t, (after.n - before.n - idlePerMs * (after.at - before.at)) / s.count)
      before = after
    }
    const d = runs.get(direct)!
    const directP50 = median(d.map((s) => s.p50))
    const directP99 = median(d.map((s) => s.p99))
    results[`c${c}`] = Object.fromEntries([
      [
        'direct',
        {
          rps: round(median(d.map((s) => s.rps)), 0),
          p50_ms: round(directP50),
          p99_ms: round(directP99),
          client_cpu_pct: round(median(d.map((s) => s.client)), 0),
          machine_cpu_pct: round(median(d.map((s) => s.machine)), 0),
        },
      ],
      ...targets.map((t) => {
        const r = runs.get(t)!
        const mid = (f: (s: Round) => number, digits = 0) => round(median(r.map(f)), digits)
        const tx = perRequest.get(t)
        const firstError = r.find((s) => s.firstError)?.firstError
        return [
          t.name,
          {
            rps: mid((s) => s.rps),
            added_p50_ms: round(median(r.map((s) => s.p50)) - directP50),
            added_p99_ms: round(median(r.map((s) => s.p99)) - directP99),
            errors: r.reduce((n, s) => n + s.errors, 0),
            ...(firstError ? { first_error: firstError } : {}),
            gateway_cpu_pct: mid((s) => s.gateway),
            postgres_cpu_pct: mid((s) => s.db),
            gateway_and_postgres_cpu_us_per_request: mid((s) => s.cpuUsPerRequest),
            client_cpu_pct: mid((s) => s.client),
            machine_cpu_pct: mid((s) => s.machine),
            ...(tx !== undefined ? { db_transactions_per_request: round(tx, 3) } : {}),
            ...(t.postgres && t.rpm ? { requests_in_minute_after_round: mid((s) => s.minute!) } : {}),
          },
        ]
      }),
    ])
    await Promise.all([...pools.values()].flat().map((p) => p.close()))
  }
  await stats.end()
  results.admission_alone_ms = await timeAdmissions(databaseUrl)
  results.idle_transactions_per_second = idlePerSecond
  results.load_before = loadBefore
  results.load_after = load()

  const dir = path.join(import.meta.dirname, 'results')
  fs.writeFileSync(path.join(dir, `${args.name}.json`), JSON.stringify(results, null, 2) + '\n')
  const columns = [
    'rps',
    'added_p50_ms',
    'added_p99_ms',
    'gateway_cpu_pct',
    'postgres_cpu_pct',
    'gateway_and_postgres_cpu_us_per_request',
    'client_cpu_pct',
    'machine_cpu_pct',
    'db_transactions_per_request',
  ]
  const rows = CONNECTIONS.flatMap((c) => {
    const r = results[`c${c}`] as Record<string, Record<string, number | string | null>>
    // The direct path adds nothing: its row shows its own p50 and p99 where the others show what they add.
    const cell = (name: string, k: string) => r[name][k] ?? r[name][k.replace('added_', '')] ?? '-'
    return everything.map((t) => `| ${c} | ${t.name} | ${columns.map((k) => cell(t.name, k)).join(' | ')} |`)
  })
  const errors = CONNECTIONS.flatMap((c) =>
    targets
      .map((t) => [t.name, (results[`c${c}`] as Record<string, { errors: number; first_error?: string }>)[t.name]] as const)
      .filter(([, v]) => v.errors > 0)
      .map(([name, v]) => `- ${c} connections, ${name}: ${v.errors} errors, the first: \`${v.first_error}\``),
  )
  const md = [
    `# Store benchmark (${results.when}, ${results.machine}, median of ${REPS} rounds of ${MS / 1000} s)`,
    '',
    `Load average (1, 5, 15 min) before: ${loadBefore.join(', ')}; after: ${(results.load_after as number[]).join(', ')}. ` +
      `CPU in % of one core; the machine's is everyone's, of ${os.cpus().length * 100} %. ` +
      `The direct row's latency columns are its own p50 and p99. PostgreSQL transactions per request: ` +
      `less the idle gateways' ${CONNECTIONS.map((c) => idlePerSecond[`c${c}`]).join(' and ')} a second (at ${CONNECTIONS.join(' and ')} connections).`,
    '',
    '| connections | target | req/s | added p50 ms | added p99 ms | gateway CPU % | PostgreSQL server CPU % | gateway + PostgreSQL CPU µs per request | load generator + mock CPU % | machine CPU % | PostgreSQL transactions per request |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...CONNECTIONS.map((c) => {
      const r = results[`c${c}`] as Record<string, { requests_in_minute_after_round?: number }>
      const counts = targets.filter((t) => t.postgres && t.rpm).map((t) => `${t.name} ${r[t.name].requests_in_minute_after_round}`)
      return `- ${c} connections: the rpm key's requests in its sliding minute after a round (median; an admission sums at most 61 one-second buckets of them): ${counts.join(', ')}`
    }),
    `- One admission of an rpm-only key alone, one call at a time (ms): ${Object.entries(results.admission_alone_ms as Record<string, number>)
      .map(([k, v]) => `${k.replaceAll('_', ' ')} ${v}`)
      .join(', ')}`,
    ...errors,
    '',
  ].join('\n')
  fs.writeFileSync(path.join(dir, `${args.name}.md`), md)
  process.stdout.write(md)
} finally {
  await Promise.all(children.map((c) => c.stop().catch(() => {})))
  await postgres.stop()
}
