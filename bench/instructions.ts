/**
 * The instructions a chat completion costs each target, counted by valgrind's callgrind: the bare
 * Node proxy, the Fastify proxy, the duty floor and the gateway as shipped (and, with `--vs DIR`,
 * another checkout's gateway). Each runs under callgrind with its counting off while it starts and
 * serves `--warm` requests (four at a time), then counts `--requests` more sent one at a time,
 * and reports the instructions a request on its main thread (the event loop) and on its other
 * threads (the record thread, V8's helpers). Runs of the same build agree within 1–4 % (the
 * JIT's and the collector's timing differ), where CPU time on this shared machine moves by tens: a
 * change's cost or saving in the work it does is read here, its effect on time with bench/ab.ts. What it
 * cannot see: time in the kernel (system calls are not counted), cache misses, and anything
 * timed by the clock, since under valgrind a request takes ~50 times longer (the record thread's
 * batches hold a few records each instead of dozens, so its count a request is higher than under
 * load).
 *
 * With `--functions N`, node also writes its perf map, and the report lists the N functions whose
 * own code took most of the gateway's main thread, and (with the duty floor run too) the N that
 * took most beyond what the floor's took, by name: where the gateway's work beyond its duties is.
 * Needs valgrind (Debian's `valgrind` package).
 * Usage: node --import tsx bench/instructions.ts [--targets gateway,duty,fastify,proxy] [--vs DIR]
 *          [--warm 5000] [--requests 1500] [--functions 30] [--keep DIR] [--env K=V]... [--after-env K=V]...
 * `--env K=V` sets a variable for every gateway, `--after-env K=V` for this checkout's alone (so
 * `--vs . --after-env …` counts a setting on the same build), as bench/ab.ts does.
 * `--keep DIR` keeps each target's callgrind files (and perf map) in DIR/<target>, for
 * callgrind_annotate or bench/callgrind.ts.
 * Writes results/instructions.{json,md}.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { makePool, sequential, type Call } from './loadgen'
import { envPairs, ROOT, startChild, startDutyProxy, type Child } from './procs'
import { startGatewayChild } from './gateway-process'
import { readCallgrind, totalOf } from './callgrind'
import { buildApp } from '../test/support/build'
import { MOCK_MODELS } from './mock-provider'
import { chatBody } from './turn'

const { values: args } = parseArgs({
  options: {
    targets: { type: 'string', default: 'gateway,duty,fastify,proxy' },
    vs: { type: 'string' },
    warm: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '1500' },
    functions: { type: 'string', default: '0' },
    keep: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    'after-env': { type: 'string', multiple: true, default: [] },
  },
})
const WARM = Number(args.warm)
const REQUESTS = Number(args.requests)
const FUNCTIONS = Number(args.functions)
/** Under valgrind a start takes ~30 s rather than a fraction of one. */
const START_MS = 240_000

interface Target {
  name: string
  start(wrapper: string[]): Promise<Child & { key?: string; url?: string }>
}

buildApp()
if (args.vs && !fs.existsSync(path.join(args.vs, 'out/main/gw.js'))) throw new Error(`${args.vs} has no built gateway (out/main/gw.js): build it first`)
const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
const upstream = mock.info.url
const nodeArgs = FUNCTIONS > 0 ? ['--perf-basic-prof'] : []
const envOf = (option: 'env' | 'after-env') => envPairs(args[option]!, option)
const gateway = (name: string, root: string, env: Record<string, string>): Target => ({
  name,
  start: (wrapper) => startGatewayChild(upstream, { root, wrapper, nodeArgs, startTimeoutMs: START_MS, env }),
})
const proxy = (name: string, script: string): Target => ({
  name,
  start: (wrapper) => startChild([...nodeArgs, script, '--upstream', upstream], { wrapper, timeoutMs: START_MS }),
})
const all: Record<string, Target> = {
  gateway: gateway('gateway', ROOT, { ...envOf('env'), ...envOf('after-env') }),
  duty: { name: 'duty floor', start: (wrapper) => startDutyProxy(upstream, { wrapper, nodeArgs, timeoutMs: START_MS }) },
  fastify: proxy('Fastify proxy', 'bench/fastify-proxy.mjs'),
  proxy: proxy('bare Node proxy', 'bench/node-proxy.mjs'),
}
const targets = args.targets.split(',').map((t) => {
  if (!all[t]) throw new Error(`--targets: unknown target ${t} (${Object.keys(all).join(', ')})`)
  return all[t]
})
if (args.vs) targets.push(gateway(`gateway (${path.basename(path.resolve(args.vs))})`, path.resolve(args.vs), envOf('env')))

interface Counted {
  name: string
  /** Instructions a request: the main thread's, and all other threads' together. */
  main: number
  others: number
  /** Instructions in each function's own code on the main thread, with `--functions`. */
  functions: Map<string, number> | null
}

/** One target under callgrind: started and warmed up uncounted, then `REQUESTS` one at a time counted. */
async function count(target: Target): Promise<Counted> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-instructions-'))
  const out = path.join(dir, 'callgrind.out')
  const wrapper = ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}`]
  const child = await target.start(wrapper)
  const perfMap = `/tmp/perf-${child.pid}.map`
  const pool = makePool(child.url ?? child.info.url, 4)
  const call: Call = {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${child.key ?? child.info.key ?? 'sk-mock-bench'}` },
  }
  const body = chatBody(MOCK_MODELS.instant)
  try {
    const warm = await Promise.all(Array.from({ length: 4 }, () => sequential(pool, call, body, Math.ceil(WARM / 4))))
    const failed = warm.reduce((n, s) => n + s.errors, 0)
    if (failed) throw new Error(`${target.name}: ${failed} warm-up requests failed (${warm.find((s) => s.firstError)?.firstError})`)
    const control = (...a: string[]) => execFileSync('callgrind_control', [...a, String(child.pid)], { stdio: 'ignore' })
    control('--instr=on')
    const measured = await sequential(pool, call, body, REQUESTS)
    control('--dump')
    control('--instr=off')
    if (measured.errors) throw new Error(`${target.name}: ${measured.errors} requests failed (${measured.firstError})`)
    // The dump writes one file a thread: callgrind.out.1-01 is the main thread's.
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('callgrind.out.1-'))
    const main = path.join(dir, 'callgrind.out.1-01')
    const others = files.filter((f) => f !== 'callgrind.out.1-01').reduce((n, f) => n + totalOf(path.join(dir, f)), 0)
    const functions = FUNCTIONS > 0 ? readCallgrind(main, perfMap) : null
    return { name: target.name, main: totalOf(main) / REQUESTS, others: others / REQUESTS, functions }
  } finally {
    await pool.close()
    await child.stop()
    if (args.keep) {
      const kept = path.join(args.keep, target.name.replace(/\W+/g, '-'))
      fs.cpSync(dir, kept, { recursive: true })
      if (fs.existsSync(perfMap)) fs.copyFileSync(perfMap, path.join(kept, 'perf.map'))
    }
    fs.rmSync(perfMap, { force: true })
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// Two at a time: valgrind runs each process's threads one at a time, on one core.
const counted: Counted[] = []
for (let i = 0; i < targets.length; i += 2) counted.push(...(await Promise.all(targets.slice(i, i + 2).map(count))))
await mock.stop()

const k = (n: number) => `${(n / 1000).toFixed(1)}k`
const proxyMain = counted.find((c) => c.name === 'bare Node proxy')?.main
const md = [
  `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, valgrind's callgrind: instructions a chat completion (gpt-4o-mini, the instant mock),`,
  `counted over ${REQUESTS} requests one at a time after ${WARM} uncounted.`,
  '',
  `| target | main thread | other threads | all${proxyMain ? ' | main thread × the bare proxy’s' : ''} |`,
  `|---|---:|---:|---:|${proxyMain ? '---:|' : ''}`,
  ...counted.map((c) => `| ${c.name} | ${k(c.main)} | ${k(c.others)} | ${k(c.main + c.others)} |${proxyMain ? ` ${(c.main / proxyMain).toFixed(2)} |` : ''}`),
]
const [first, second] = [counted.find((c) => c.name === 'gateway'), counted.find((c) => c.name.startsWith('gateway ('))]
if (first && second) {
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${((100 * (a - b)) / b).toFixed(2)} %`
  md.push(
    '',
    `This checkout against ${second.name}: main thread ${pct(first.main, second.main)}, all threads ${pct(first.main + first.others, second.main + second.others)}.`,
  )
}
const perRequest = (n: number) => Math.round(n / REQUESTS)
const listing = (title: string, rows: Array<[string, number]>) => [
  '',
  title,
  '',
  '| instructions a request | function |',
  '|---:|---|',
  ...rows.map(([name, n]) => `| ${perRequest(n)} | \`${name.replaceAll('|', '\\|')}\` |`),
]
if (first?.functions) {
  const own = first.functions
  md.push(
    ...listing(`The gateway's main thread: the ${FUNCTIONS} functions whose own code took most.`, [...own].sort((a, b) => b[1] - a[1]).slice(0, FUNCTIONS)),
  )
  const floor = counted.find((c) => c.name === 'duty floor')?.functions
  if (floor) {
    const beyond = [...new Set([...own.keys(), ...floor.keys()])].map((name): [string, number] => [name, (own.get(name) ?? 0) - (floor.get(name) ?? 0)])
    md.push(
      ...listing(
        `The ${FUNCTIONS} that took most beyond the duty floor's (the same function's count in the floor subtracted).`,
        beyond.sort((a, b) => b[1] - a[1]).slice(0, FUNCTIONS),
      ),
    )
  }
}
md.push('')
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true })
fs.writeFileSync(path.join(ROOT, 'bench/results/instructions.md'), md.join('\n'))
fs.writeFileSync(
  path.join(ROOT, 'bench/results/instructions.json'),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      warm: WARM,
      requests: REQUESTS,
      targets: counted.map(({ name, main, others }) => ({ name, main, others })),
    },
    null,
    2,
  ) + '\n',
)
process.stdout.write(md.join('\n'))
