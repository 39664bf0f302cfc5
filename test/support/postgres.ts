import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { freePort } from './freePort'

/**
 * A real, throwaway PostgreSQL server for tests: `initdb` into a fresh temporary directory, a
 * server on a free port of 127.0.0.1, gone again (process and directory) on `stop()` or when the
 * test process exits.
 *
 * Why it is set up this way:
 * - Trust authentication, with the server listening on 127.0.0.1 only and its Unix socket in the
 *   private temporary directory: nothing off this machine can reach it, so no password has to be
 *   made up, stored or passed around, and the cluster holds nothing but test data.
 * - `fsync`, `synchronous_commit` and `full_page_writes` off (and `initdb --no-sync`): a test
 *   cluster never has to survive a power cut, and flushing every commit to disk would make the
 *   tests slow. A test about durability asks for `startPostgres({ durable: true })`, which keeps
 *   PostgreSQL's defaults (and lets initdb sync), so a commit is on disk when it returns.
 * - Locale C and UTF8: the same sort order and `lower()` on every machine, whatever the host's
 *   locale.
 * - PostgreSQL refuses to run as root; as root (CI containers) initdb and pg_ctl run as the
 *   `postgres` OS user that Debian's `postgresql` package creates, via `runuser`.
 * - One server per test process (`sharedPostgres()`) and a fresh database per test
 *   (`createDatabase()`): starting a cluster takes about a second, creating a database a few
 *   milliseconds.
 */
export interface Postgres {
  /** `postgres://gw@127.0.0.1:PORT/postgres`: the maintenance database, for creating others. */
  readonly url: string
  readonly port: number
  /** The temporary directory holding the cluster (`data/`), the server's socket and its `log`; `stop()` removes it. */
  readonly dir: string
  /** Creates a fresh empty database (default name `gw_test_<random>`) and returns its URL. */
  createDatabase(name?: string): Promise<string>
  /** Stops the server (fast shutdown) and removes its directory. Calling it again does nothing. */
  stop(): Promise<void>
  /**
   * Stops the server as an operator's restart does (fast shutdown: sessions are ended, clients
   * see their connections close), keeping its data, for `startServer()` to bring back.
   */
  stopServer(): Promise<void>
  /** Starts the stopped server again on the same port with the same data. */
  startServer(): Promise<void>
}

export interface StartPostgresOptions {
  /** Keep fsync, synchronous_commit and full_page_writes on (for tests that kill the server and count what survived). */
  durable?: boolean
}

/** The database superuser initdb creates, and the user name in every URL. */
const USER = 'gw'
/** The OS user that runs the server when the tests run as root. */
const OS_USER = 'postgres'
const START_ATTEMPTS = 3
const TIMEOUT_S = 60

const asRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

const isExecutable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

const hasServerBinaries = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => isExecutable(path.join(dir, b)))

/** A command's absolute path from PATH (plus the sbin directories root's PATH may lack), or null. */
function which(cmd: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']
  for (const dir of dirs) {
    if (dir && isExecutable(path.join(dir, cmd))) return path.join(dir, cmd)
  }
  return null
}

/**
 * The directory of initdb, pg_ctl and postgres: the newest /usr/lib/postgresql/<version>/bin
 * (Debian keeps them off PATH), else what `pg_config --bindir` says, else wherever initdb on PATH
 * (e.g. a /usr/local/bin/initdb symlink) really lives.
 */
function findBinDir(): string | null {
  const base = '/usr/lib/postgresql'
  let versions: string[] = []
  try {
    versions = fs.readdirSync(base).filter((v) => /^\d+(\.\d+)*$/.test(v))
  } catch {
    // not a Debian-style install
  }
  const newestFirst = (a: string, b: string) => {
    const pa = a.split('.').map(Number)
    const pb = b.split('.').map(Number)
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pb[i] ?? 0) - (pa[i] ?? 0)
    }
    return 0
  }
  for (const v of versions.sort(newestFirst)) {
    if (hasServerBinaries(path.join(base, v, 'bin'))) return path.join(base, v, 'bin')
  }
  const pgConfig = which('pg_config')
  if (pgConfig) {
    const r = spawnSync(pgConfig, ['--bindir'], { encoding: 'utf8' })
    const dir = r.status === 0 ? r.stdout.trim() : ''
    if (dir && hasServerBinaries(dir)) return dir
  }
  const initdb = which('initdb')
  if (initdb) {
    const dir = path.dirname(fs.realpathSync(initdb))
    if (hasServerBinaries(dir)) return dir
  }
  return null
}

interface Setup {
  bin: string
  /** Set when running as root: the command and the owner the cluster's files need. */
  runAs: { runuser: string; uid: number; gid: number } | null
}

let setup: Setup | string | undefined

/** What running a server here needs, or why it cannot run (worked out once per process). */
function detect(): Setup | string {
  if (setup !== undefined) return setup
  setup = (() => {
    if (process.platform === 'win32') return 'The PostgreSQL test harness supports Linux and macOS only.'
    const bin = findBinDir()
    if (!bin) return 'PostgreSQL is not installed: apt-get install postgresql'
    if (!asRoot()) return { bin, runAs: null }
    const runuser = which('runuser')
    if (!runuser) return 'PostgreSQL refuses to run as root and runuser (util-linux) is missing to run it as the postgres user.'
    const id = (flag: string) => spawnSync('id', [flag, OS_USER], { encoding: 'utf8' })
    const uid = id('-u')
    const gid = id('-g')
    if (uid.status !== 0 || gid.status !== 0) {
      return `PostgreSQL refuses to run as root and there is no ${OS_USER} OS user to run it as: apt-get install postgresql creates one.`
    }
    const tmp = os.tmpdir()
    const reach = spawnSync(runuser, ['-u', OS_USER, '--', 'test', '-w', tmp, '-a', '-x', tmp], { stdio: 'ignore' })
    if (reach.status !== 0) return `The ${OS_USER} OS user cannot write to the temporary directory ${tmp} (set TMPDIR to one it can).`
    return { bin, runAs: { runuser, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } }
  })()
  return setup
}

/**
 * Null when a PostgreSQL server can be started here; otherwise one sentence saying why not, for
 * `it('…', { skip: postgresSkipReason() ?? false }, …)`.
 */
export function postgresSkipReason(): string | null {
  const s = detect()
  return typeof s === 'string' ? s : null
}

/** The command line for a PostgreSQL program: as the postgres OS user when running as root. */
function command(s: Setup, program: string, args: string[]): [string, string[]] {
  const exe = path.join(s.bin, program)
  return s.runAs ? [s.runAs.runuser, ['-u', OS_USER, '--', exe, ...args]] : [exe, args]
}

/** The environment for initdb and pg_ctl: no PG* variables of the caller's, English messages. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v
  env.LC_ALL = 'C'
  return env
}

function run(s: Setup, program: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const [cmd, argv] = command(s, program, args)
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', (err) => resolve({ code: null, output: `${output}${err.message}` }))
    child.on('close', (code) => resolve({ code, output }))
  })
}

function runSync(s: Setup, program: string, args: string[], cwd: string): number | null {
  const [cmd, argv] = command(s, program, args)
  return spawnSync(cmd, argv, { cwd, env: childEnv(), stdio: 'ignore', timeout: TIMEOUT_S * 1000 }).status
}

function logTail(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no server log)'
  }
}

/** Quoted for the shell pg_ctl starts the server through. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

interface Cluster {
  dir: string
  data: string
  setup: Setup
}

/** Clusters not yet stopped: the exit handler stops and removes whatever a test left behind. */
const live = new Set<Cluster>()
let exitHooked = false

/**
 * Synchronous, because `process.on('exit')` handlers cannot wait: an immediate shutdown through
 * pg_ctl, the postmaster killed outright if that fails, then the directory removed.
 */
function stopSync(c: Cluster): void {
  live.delete(c)
  if (fs.existsSync(path.join(c.data, 'postmaster.pid'))) {
    const status = runSync(c.setup, 'pg_ctl', ['stop', '-D', c.data, '-m', 'immediate', '-w', '-t', '10'], c.dir)
    if (status !== 0) killPostmaster(c)
  }
  fs.rmSync(c.dir, { recursive: true, force: true })
}

/** The last resort: SIGKILL to the pid in postmaster.pid, if that process is still this cluster's server (a stale file's pid may be anyone's now). */
function killPostmaster(c: Cluster): void {
  try {
    const pid = Number(fs.readFileSync(path.join(c.data, 'postmaster.pid'), 'utf8').split('\n')[0])
    if (!(pid > 0)) return
    if (fs.existsSync('/proc') && !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(c.data)) return
    process.kill(pid, 'SIGKILL')
  } catch {
    // gone already
  }
}

function stopAllSync(): void {
  for (const c of [...live]) stopSync(c)
}

function hookExit(): void {
  if (exitHooked) return
  exitHooked = true
  process.on('exit', stopAllSync)
  // A signal's default action skips 'exit' handlers: clean up, then let the signal do what it
  // would have done (unless someone else handles it).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      stopAllSync()
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
    })
  }
}

/** Starts the cluster's server on `port` and waits until it accepts connections; the error holds the server log's tail. */
async function startServer(c: Cluster, port: number, options: StartPostgresOptions): Promise<void> {
  const log = path.join(c.dir, 'log')
  const settings = [
    '-c listen_addresses=127.0.0.1',
    `-p ${port}`,
    `-k ${shellQuote(c.dir)}`,
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ')
  const started = await run(c.setup, 'pg_ctl', ['-D', c.data, '-o', settings, '-w', '-t', String(TIMEOUT_S), '-l', log, 'start'], c.dir)
  if (started.code !== 0) {
    throw new Error(`PostgreSQL did not start (pg_ctl exit ${started.code}): ${started.output.trim()}\nserver log (${log}):\n${logTail(log)}`)
  }
}

/** Starts a new throwaway server; `stop()` it when done (the process's exit stops it otherwise). */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<Postgres> {
  const s = detect()
  if (typeof s === 'string') throw new Error(s)
  hookExit()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-pg-'))
  const cluster: Cluster = { dir, data: path.join(dir, 'data'), setup: s }
  live.add(cluster)
  try {
    if (s.runAs) fs.chownSync(dir, s.runAs.uid, s.runAs.gid)
    const init = await run(
      s,
      'initdb',
      ['-D', cluster.data, '-A', 'trust', '-U', USER, '-E', 'UTF8', '--locale=C', ...(options.durable ? [] : ['--no-sync'])],
      dir,
    )
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}):\n${init.output.trim()}`)

    let port = 0
    for (let attempt = 1; ; attempt++) {
      port = await freePort()
      try {
        await startServer(cluster, port, options)
        break
      } catch (err) {
        // Another process may take the port between freePort() and the server binding it.
        if (attempt < START_ATTEMPTS && /could not bind|address already in use/i.test((err as Error).message)) continue
        throw err
      }
    }

    const urlFor = (database: string) => `postgres://${USER}@127.0.0.1:${port}/${encodeURIComponent(database)}`
    let stopping: Promise<void> | null = null
    return {
      url: urlFor('postgres'),
      port,
      dir,
      async createDatabase(name = `gw_test_${randomBytes(6).toString('hex')}`) {
        const client = new pg.Client({ connectionString: urlFor('postgres') })
        await client.connect()
        try {
          // template0 takes no connections, so creating from it never fails because of another session.
          await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE template0`)
        } finally {
          await client.end()
        }
        return urlFor(name)
      },
      stop() {
        stopping ??= (async () => {
          if (!live.has(cluster)) return
          const stopped = await run(s, 'pg_ctl', ['stop', '-D', cluster.data, '-m', 'fast', '-w', '-t', String(TIMEOUT_S)], dir)
          if (stopped.code !== 0 && fs.existsSync(path.join(cluster.data, 'postmaster.pid'))) killPostmaster(cluster)
          fs.rmSync(dir, { recursive: true, force: true })
          // Only now: a process exiting mid-stop still cleans up in its exit handler.
          live.delete(cluster)
        })()
        return stopping
      },
      async stopServer() {
        const stopped = await run(s, 'pg_ctl', ['stop', '-D', cluster.data, '-m', 'fast', '-w', '-t', String(TIMEOUT_S)], dir)
        if (stopped.code !== 0) throw new Error(`pg_ctl stop failed (exit ${stopped.code}): ${stopped.output.trim()}`)
      },
      startServer: () => startServer(cluster, port, options),
    }
  } catch (err) {
    stopSync(cluster)
    throw err
  }
}

let shared: Promise<Postgres> | null = null

/**
 * What `pg_dump` prints of a database, its schema and every row as text: what a backup, or a dump
 * handed to someone, holds. Run as the server is (as the postgres OS user under root).
 */
export async function pgDump(url: string): Promise<string> {
  const s = detect()
  if (typeof s === 'string') throw new Error(s)
  const { code, output } = await run(s, 'pg_dump', ['--dbname', url], os.tmpdir())
  if (code !== 0) throw new Error(`pg_dump failed (${code}): ${output}`)
  return output
}

/**
 * The test process's one server, started on first use and stopped (directory removed) when the
 * process exits. Tests isolate themselves with `createDatabase()`. Its `stop()` stops it at once;
 * the next call then starts another.
 */
export function sharedPostgres(): Promise<Postgres> {
  if (!shared) {
    const starting: Promise<Postgres> = startPostgres().then((server) => ({
      ...server,
      stop() {
        if (shared === starting) shared = null
        return server.stop()
      },
    }))
    shared = starting
  }
  return shared
}
