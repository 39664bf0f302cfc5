/**
 * The store as a dimension (`npm run bench:store`; not part of the tests). On 127.0.0.1 only: the
 * mock provider, one gateway as shipped on SQLite and one on PostgreSQL (a throwaway server with
 * fsync on, started as the tests start theirs), each with a free key and a prepaid key. Closed
 * loop at 10 and 50 connections against the instant mock, the four targets and the direct path
 * interleaved and rotated over REPS rounds, medians reported: req/s, and the latency each adds to
 * the direct path at p50 and p99, the gateway's CPU and the PostgreSQL server's (its processes on
 * this machine, busy or not: on SQLite it shows what the other gateway's idle database costs). Then, on PostgreSQL, one more round per key between two quiet
 * spells counts the database's committed transactions per request (`pg_stat_database.xact_commit`,
 * every connection's: the gateway's once-a-second configuration poll is in it).
 * Writes bench/results/<name>.json and .md (default name: store-bench).
 * Options: --reps N  --seconds S  --name NAME
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { closedLoop, makePool, median, type Stats, type Target } from './loadgen'
import { cpuSeconds, ROOT, startChild, type Child } from './procs'
import { startGatewayChild } from './gateway-process'
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

const say = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`)
const round = (x: number, d = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null)

say('building the app (skipped when out/ is newer than the sources)')
buildApp()
const children: Child[] = []
const postgres = await startPostgres({ durable: true })
try {
  const databaseUrl = await postgres.createDatabase('bench')
  const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
  children.push(mock)
  const sqlite = await startGatewayChild(mock.info.url, { root: ROOT, prepaidUsd: 1_000_000 })
  const onPostgres = await startGatewayChild(mock.info.url, { root: ROOT, prepaidUsd: 1_000_000, databaseUrl })
  children.push(sqlite, onPostgres)

  const json = { 'content-type': 'application/json' }
  const target = (name: string, origin: string, key: string, pid?: number): Target & { pid?: number } => ({
    name,
    origin,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: `Bearer ${key}` },
    pid,
  })
  const direct = target('direct', mock.info.url, 'sk-mock-bench')
  const targets = [
    target('sqlite free', sqlite.url, sqlite.key, sqlite.pid),
    target('sqlite prepaid', sqlite.url, sqlite.prepaidKey!, sqlite.pid),
    target('postgres free', onPostgres.url, onPostgres.key, onPostgres.pid),
    target('postgres prepaid', onPostgres.url, onPostgres.prepaidKey!, onPostgres.pid),
  ]
  const body = JSON.stringify({ model: MOCK_MODELS.instant, messages: [{ role: 'user', content: 'hi' }] })

  // The database server's processes (its postmaster and every backend), for the CPU it spends.
  const serverCpu = () =>
    fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .reduce((sum, pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(postgres)') ? sum + cpuSeconds(Number(pid)) : sum
        } catch {
          return sum
        }
      }, 0)
  // The database's own counter: every transaction any connection committed (the gateway's, and the
  // once-a-second configuration poll's, which is counted in).
  const stats = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const commits = async () => Number((await stats.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)).rows[0].xact_commit)
  // pg_stat_database counts what backends report: a busy one reports at most once a second, an
  // idle one within 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL).
  const settled = () => new Promise((resolve) => setTimeout(resolve, 11_000))

  const results: Record<string, unknown> = {
    when: new Date().toISOString(),
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    reps: REPS,
    seconds: MS / 1000,
  }
  for (const c of CONNECTIONS) {
    say(`${c} connections, ${MS / 1000} s x ${REPS} per target`)
    const pools = new Map([direct, ...targets].map((t) => [t, makePool(t.origin, c)]))
    for (const t of [direct, ...targets]) await closedLoop(pools.get(t)!, t, body, c, 1000)
    const runs = new Map<Target, Array<Stats & { cpu: number; db_cpu: number }>>([direct, ...targets].map((t) => [t, []]))
    // Then, on PostgreSQL, one round per key between two quiet spells, for the transaction count.
    const perRequest = new Map<Target, number>()
    for (let rep = 0; rep < REPS; rep++) {
      const order = [direct, ...targets]
      const rotated = [...order.slice(rep % order.length), ...order.slice(0, rep % order.length)]
      for (const t of rotated) {
        const pid = (t as { pid?: number }).pid
        const cpu0 = pid ? cpuSeconds(pid) : 0
        const db0 = serverCpu()
        const s = await closedLoop(pools.get(t)!, t, body, c, MS)
        runs.get(t)!.push({ ...s, cpu: pid ? ((cpuSeconds(pid) - cpu0) / s.seconds) * 100 : 0, db_cpu: ((serverCpu() - db0) / s.seconds) * 100 })
      }
    }
    for (const t of targets.filter((x) => x.name.startsWith('postgres'))) {
      await settled()
      const before = await commits()
      const s = await closedLoop(pools.get(t)!, t, body, c, MS)
      await settled()
      perRequest.set(t, ((await commits()) - before) / s.count)
    }
    const d = runs.get(direct)!
    const directP50 = median(d.map((s) => s.p50))
    const directP99 = median(d.map((s) => s.p99))
    results[`c${c}`] = Object.fromEntries([
      ['direct', { rps: round(median(d.map((s) => s.rps)), 0), p50_ms: round(directP50), p99_ms: round(directP99) }],
      ...targets.map((t) => {
        const r = runs.get(t)!
        const tx = perRequest.get(t)
        return [
          t.name,
          {
            rps: round(median(r.map((s) => s.rps)), 0),
            added_p50_ms: round(median(r.map((s) => s.p50)) - directP50),
            added_p99_ms: round(median(r.map((s) => s.p99)) - directP99),
            errors: r.reduce((n, s) => n + s.errors, 0),
            gateway_cpu_pct: round(median(r.map((s) => s.cpu)), 0),
            postgres_cpu_pct: round(median(r.map((s) => s.db_cpu)), 0),
            ...(tx !== undefined ? { db_transactions_per_request: round(tx, 3) } : {}),
          },
        ]
      }),
    ])
    await Promise.all([...pools.values()].map((p) => p.close()))
  }
  await stats.end()

  const dir = path.join(import.meta.dirname, 'results')
  fs.writeFileSync(path.join(dir, `${args.name}.json`), JSON.stringify(results, null, 2) + '\n')
  const rows = CONNECTIONS.flatMap((c) => {
    const r = results[`c${c}`] as Record<string, Record<string, number | null>>
    return targets.map(
      (t) =>
        `| ${c} | ${t.name} | ${r[t.name].rps} | ${r[t.name].added_p50_ms} | ${r[t.name].added_p99_ms} | ${r[t.name].gateway_cpu_pct} | ${r[t.name].postgres_cpu_pct} | ${r[t.name].db_transactions_per_request ?? '-'} |`,
    )
  })
  const md = [
    `# Store benchmark (${results.when}, ${results.machine}, median of ${REPS} rounds of ${MS / 1000} s)`,
    '',
    '| connections | target | req/s | added p50 ms | added p99 ms | gateway CPU % | PostgreSQL server CPU % | PostgreSQL transactions per request |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n')
  fs.writeFileSync(path.join(dir, `${args.name}.md`), md)
  process.stdout.write(md)
} finally {
  await Promise.all(children.map((c) => c.stop().catch(() => {})))
  await postgres.stop()
}
