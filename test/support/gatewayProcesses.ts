import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import { BUILT, ROOT, buildApp, serveNodeArgs } from './build'
import { tempDir } from './tempDir'

/** One `gw serve` process started by `startGatewayProcesses`. */
export interface GatewayProcess {
  /** `http://127.0.0.1:PORT`, the port the gateway chose (it is started with `--port 0`). */
  readonly url: string
  readonly pid: number
  /** Its data dir; the log is `gw.log` in it unless `env` or `args` send it elsewhere. */
  readonly dataDir: string
  /** What the process wrote on standard error so far. */
  stderr(): string
  /** What it wrote on standard output so far (the listening line, then what it printed after). */
  stdout(): string
  /** Sends `signal` (SIGKILL by default) and resolves once the process is gone, to its exit code (null when the signal ended it). */
  kill(signal?: NodeJS.Signals): Promise<number | null>
  /** SIGTERM, as a service manager stops it, then SIGKILL if it is still there after 30 s; resolves to its exit code. */
  stop(): Promise<number | null>
}

export interface GatewayProcessOptions {
  /** Every gateway's store: a PostgreSQL database URL; without one each keeps SQLite in its data dir. */
  databaseUrl?: string | null
  /** Added to this process's environment (OPENAI_API_KEY for a fake provider, GW_* settings). */
  env?: NodeJS.ProcessEnv
  /** More `gw serve` flags. */
  args?: string[]
  /** One data dir for every gateway (a restart on the same SQLite store); otherwise a fresh one each, removed when the test process exits. */
  dataDir?: string
}

/** How long `stop()` waits for a clean exit before it kills. */
const STOP_TIMEOUT_MS = 30_000

/** Processes still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>()
/** Data dirs made here, removed when the test process exits (a test may read a log after a stop). */
const madeDirs: string[] = []
let exitHooked = false

function hookExit(): void {
  if (exitHooked) return
  exitHooked = true
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL')
    for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true })
  })
}

/** Resolves once the child has exited, to its exit code (null when a signal ended it). */
function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return once(child, 'exit').then(([code]) => code as number | null)
}

/** Starts one gateway as `npm run serve` does (the built out/main/gw.js, with plain Node and the script's flags). */
async function startOne(options: GatewayProcessOptions): Promise<GatewayProcess> {
  let dataDir = options.dataDir
  if (dataDir === undefined) {
    dataDir = tempDir('gw-proc-')
    madeDirs.push(dataDir)
  }
  const store = options.databaseUrl ? ['--database-url', options.databaseUrl] : []
  const child = spawn(process.execPath, [...serveNodeArgs(), BUILT.gw, 'serve', '--port', '0', '--data-dir', dataDir, ...store, ...(options.args ?? [])], {
    cwd: ROOT,
    // The log goes to a file by default: a test reads standard output only for the listening line.
    env: { ...process.env, GW_LOG_FILE: `${dataDir}/gw.log`, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  const exited = exitOf(child).finally(() => running.delete(child))
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  // Read with a listener, never `for await` and break: leaving the loop destroys the stream, and
  // the gateway's next line (the metrics' address) would then meet a closed pipe and end it.
  let out = ''
  const url = await new Promise<string | null>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve(m[1])
    })
    void exited.then(() => resolve(null))
  })
  if (url === null) {
    await exited
    throw new Error(`the gateway did not start (exit ${child.exitCode ?? child.signalCode}):\n${out}${stderr}`)
  }
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => {
    child.kill(signal)
    return exited
  }
  return {
    url,
    pid: child.pid!,
    dataDir,
    stderr: () => stderr,
    stdout: () => out,
    kill,
    async stop() {
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
      try {
        return await kill('SIGTERM')
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

/**
 * `n` real gateway processes (`gw serve`, as built), each on a free loopback port, all on one
 * store when `databaseUrl` names a PostgreSQL database; started together, so on an empty database
 * they queue on the schema's lock as a team's gateways do. Builds the app first when it is out of
 * date. A process the test leaves running is killed when the test process exits.
 */
export async function startGatewayProcesses(n: number, options: GatewayProcessOptions = {}): Promise<GatewayProcess[]> {
  buildApp()
  hookExit()
  const started = await Promise.allSettled(Array.from({ length: n }, () => startOne(options)))
  const failed = started.find((s) => s.status === 'rejected')
  if (failed) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.kill() : null)))
    throw failed.reason
  }
  return started.map((s) => (s as PromiseFulfilledResult<GatewayProcess>).value)
}
