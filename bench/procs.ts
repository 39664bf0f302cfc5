/** Child processes of the benchmark (mock, gateway, peer) and their CPU and memory from /proc. */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { request } from 'undici'

export const ROOT = path.resolve(import.meta.dirname, '..')

export interface Child {
  proc: ChildProcess
  pid: number
  info: Record<string, string>
  log: () => string
  stop(): Promise<void>
}

/** The variables of a K=V option given several times (bench/ab.ts's and bench/instructions.ts's `--env`, `--after-env`). */
export function envPairs(values: string[], option: string): Record<string, string> {
  return Object.fromEntries(
    values.map((kv) => {
      const at = kv.indexOf('=')
      if (at < 1) throw new Error(`--${option} takes K=V, got "${kv}"`)
      return [kv.slice(0, at), kv.slice(at + 1)]
    }),
  )
}

/**
 * Starts `node <args>` and waits for its first stdout line to be JSON (mock), for `parse` to find
 * what it needs in stdout (gateway), or for `ready()` to pass (peer). `wrapper` runs node under
 * another program (`valgrind …`, bench/instructions.ts), which keeps node's process id.
 */
export async function startChild(
  args: string[],
  opts: {
    ready?: () => Promise<boolean>
    parse?: (stdout: string) => Record<string, string> | null
    env?: NodeJS.ProcessEnv
    timeoutMs?: number
    cwd?: string
    wrapper?: string[]
  } = {},
): Promise<Child> {
  const [command, ...commandArgs] = opts.wrapper ? [...opts.wrapper, process.execPath, ...args] : [process.execPath, ...args]
  const proc = spawn(command, commandArgs, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let tail = ''
  const keep = (s: string) => (tail = (tail + s).slice(-4000))
  proc.stderr!.on('data', (d: Buffer) => keep(d.toString()))
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in time:\n${tail}`)), opts.timeoutMs ?? 30_000)
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${tail}`)))
    if (opts.ready) {
      proc.stdout!.on('data', (d: Buffer) => keep(d.toString()))
      const poll = async () => {
        if (await opts.ready!().catch(() => false)) {
          clearTimeout(timer)
          resolve({})
        } else setTimeout(poll, 200)
      }
      void poll()
      return
    }
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (opts.parse) {
        const found = opts.parse(out)
        if (found) {
          clearTimeout(timer)
          resolve(found)
        }
        return
      }
      const nl = out.indexOf('\n')
      if (nl < 0) return
      clearTimeout(timer)
      try {
        resolve(JSON.parse(out.slice(0, nl)))
      } catch {
        reject(new Error(`unexpected output: ${out}`))
      }
    })
  })
  proc.removeAllListeners('exit')
  return {
    proc,
    pid: proc.pid!,
    info,
    log: () => tail,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve()
        const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000)
        proc.once('exit', () => {
          clearTimeout(kill)
          resolve()
        })
        proc.kill('SIGTERM')
      }),
  }
}

export async function httpReady(url: string): Promise<boolean> {
  const res = await request(url, { method: 'GET', headersTimeout: 1000 })
  await res.body.dump()
  return true
}

const TICK = 100 // USER_HZ on Linux

/**
 * A process's /proc stat fields after its name: [0] state, [1] parent, [11] user and [12] system
 * ticks, [13] and [14] those of its children that ended and were waited for.
 */
const statFields = (pid: number | string) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid)
  return (Number(fields[11]) + Number(fields[12])) / TICK
}

/** A thread's CPU seconds so far, to the nanosecond (Linux's schedstat: time on a CPU, in ns, first). */
export const threadSeconds = (pid: number, tid: string) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]) / 1e9

/**
 * CPU seconds a process's living threads have used so far, to the nanosecond: its main thread's
 * (the event loop's) apart from all of them (V8's GC helpers, a worker's); a thread that ended is
 * no longer counted, so this is for a process whose threads live as long as it does.
 */
export function threadCpuSeconds(pid: number): { main: number; all: number } {
  let all = 0
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      all += threadSeconds(pid, tid)
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { main: threadSeconds(pid, String(pid)), all }
}

/**
 * CPU seconds a process and its children have used so far, the living ones and those that ended:
 * a PostgreSQL server's postmaster and its backends (a pool's idle connection closing takes its
 * backend's CPU into the postmaster's count), and none of another server's on the same machine.
 */
export function familyCpuSeconds(pid: number): number {
  const own = statFields(pid)
  let sum = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) / TICK
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const fields = statFields(d)
      if (Number(fields[1]) === pid) sum += (Number(fields[11]) + Number(fields[12])) / TICK
    } catch {
      // It ended between the listing and the read.
    }
  }
  return sum
}

/** CPU seconds every core of the machine has been busy so far, whoever's processes ran (/proc/stat). */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  return (user + nice + system + irq + softirq + steal) / TICK
}

/** Resident set now and its peak over the process's life, in MB. */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

/** The parts of residentByMapping, in the order they are shown. */
export const RESIDENT_PARTS = [
  'the node binary',
  'other files (libraries, native addons)',
  "the main thread's malloc arena",
  "the other threads' malloc arenas",
  'other anonymous (V8 heaps)',
] as const

/**
 * The resident set by what holds it, in MB (Linux, /proc/PID/smaps): the node binary's pages and
 * the other files mapped (the same in any Node process), the main thread's malloc arena
 * (`[heap]`), the other threads' arenas (glibc maps each at a 64 MB boundary), and the rest of the
 * anonymous memory, mostly V8's heaps: every isolate's, the record thread's too.
 */
export function residentByMapping(pid: number): Record<(typeof RESIDENT_PARTS)[number], number> {
  const parts = Object.fromEntries(RESIDENT_PARTS.map((p) => [p, 0])) as Record<(typeof RESIDENT_PARTS)[number], number>
  let part: (typeof RESIDENT_PARTS)[number] = RESIDENT_PARTS[4]
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line)
    if (head) {
      const [, start, name] = head
      if (name === process.execPath || name.endsWith('/bin/node')) part = RESIDENT_PARTS[0]
      else if (name.startsWith('/')) part = RESIDENT_PARTS[1]
      else if (name === '[heap]') part = RESIDENT_PARTS[2]
      else if (name === '' && BigInt(`0x${start}`) % (64n << 20n) === 0n) part = RESIDENT_PARTS[3]
      else part = RESIDENT_PARTS[4]
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss) parts[part] += Number(rss[1]) / 1024
  }
  return parts
}

/** Starts a new peak for memoryMb (Linux: writing 5 to clear_refs resets VmHWM to the current RSS). */
export function resetPeakRss(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

/**
 * The duty floor (duty-proxy.ts) as the gateway runs: bundled by esbuild with the record thread's
 * script beside it (the record writer loads `recordWorker.js` from its own directory), packages
 * left to node_modules, and started with plain `node`.
 */
export async function startDutyProxy(upstream: string, run: { wrapper?: string[]; timeoutMs?: number; nodeArgs?: string[] } = {}): Promise<Child> {
  const outdir = path.join(ROOT, 'node_modules/.cache/gw-bench/duty-proxy')
  const { buildSync } = await import('esbuild')
  buildSync({
    entryPoints: { 'duty-proxy': path.join(ROOT, 'bench/duty-proxy.ts'), recordWorker: path.join(ROOT, 'src/gateway/store/recordWorker.ts') },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
  return startChild([...(run.nodeArgs ?? []), path.join(outdir, 'duty-proxy.js'), '--upstream', upstream], { wrapper: run.wrapper, timeoutMs: run.timeoutMs })
}
