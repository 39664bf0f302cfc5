/**
 * Coding-agent CLIs (Claude Code, Codex…) for tests that run them against the gateway. They are
 * large and no user of the gateway needs them, so they are not dependencies: a pinned version is
 * installed from the npm registry into an ignored cache folder inside the repository
 * (node_modules/.cache/gw-agent-clis), once, and reused by every later run and test file.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from './build'

const CACHE = path.join(ROOT, 'node_modules', '.cache', 'gw-agent-clis')
/** Written last, once the binary answered `--version`: a folder without it is an interrupted install. */
const MARKER = '.gw-installed'
const INSTALL_TIMEOUT_MS = 10 * 60_000

export type AgentCli = { bin: string; skip?: undefined } | { bin?: undefined; skip: string }

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a command without blocking the event loop (a gateway under test may live in this process). */
export function runAsync(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number; input?: string },
): Promise<Run & { timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.stdin.end(opts.input ?? '')
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, opts.timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({ code: null, stdout, stderr: `${stderr}${String(err)}`, timedOut })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, timedOut })
    })
  })
}

/** The executable a package declares under `bin` for `name`. */
function binOf(dir: string, pkg: string, name: string): string {
  const root = path.join(dir, 'node_modules', pkg)
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name]
  if (typeof bin !== 'string') throw new Error(`${pkg} declares no bin named ${name}`)
  return path.join(root, bin)
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Holds `<dir>.lock` (a directory: mkdir is atomic) while `work` runs, so that two test files
 * starting together install once. A lock whose owner died is taken over.
 */
async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`
  const owner = path.join(lock, 'pid')
  for (;;) {
    try {
      fs.mkdirSync(lock)
      fs.writeFileSync(owner, String(process.pid))
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = Number(fs.existsSync(owner) ? fs.readFileSync(owner, 'utf8') : NaN)
      // No pid yet: its owner is between mkdir and write, or died there; give it a moment.
      const stale = Number.isInteger(pid) ? !alive(pid) : Date.now() - fs.statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 5_000
      if (stale) fs.rmSync(lock, { recursive: true, force: true })
      else await new Promise((r) => setTimeout(r, 250))
    }
  }
  try {
    return await work()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** npm's error lines on one line (its warnings, stack and debug log pointer left out), or the first lines of other output. */
function why(text: string): string {
  const lines = text.trim().split('\n')
  const errors = lines.filter((l) => /^npm error (?!\s+at |A complete log)/.test(l))
  return (errors.length ? errors.map((l) => l.slice('npm error '.length)) : lines).slice(0, 4).join('; ')
}

/**
 * The path of `binName` from `pkg@version`, installed from the npm registry on first use (about
 * 10 s and 370 MB for Claude Code), or why it could not be: tests skip with that reason.
 */
export async function agentCli(pkg: string, version: string, binName: string): Promise<AgentCli> {
  const spec = `${pkg}@${version}`
  const dir = path.join(CACHE, spec.replace('/', '+'))
  const installed = () => fs.existsSync(path.join(dir, MARKER))
  if (installed()) return { bin: binOf(dir, pkg, binName) }
  fs.mkdirSync(CACHE, { recursive: true })
  return withLock(dir, async (): Promise<AgentCli> => {
    if (installed()) return { bin: binOf(dir, pkg, binName) }
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir)
    // Scripts and optional dependencies on, whatever the user's npm config says: these packages
    // ship each platform's binary as an optional dependency from the same registry, which their
    // postinstall puts in place of a placeholder; nothing is downloaded from elsewhere.
    const npm = await runAsync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts=false', '--include=optional', '--prefix', dir, spec],
      {
        cwd: dir,
        env: process.env,
        timeoutMs: INSTALL_TIMEOUT_MS,
      },
    )
    const failed = (reason: string): AgentCli => {
      fs.rmSync(dir, { recursive: true, force: true })
      return { skip: `${spec} could not be installed from the npm registry: ${reason}` }
    }
    if (npm.code !== 0) return failed(npm.timedOut ? `npm install timed out after ${INSTALL_TIMEOUT_MS / 1000} s` : why(npm.stderr || npm.stdout))
    let bin: string
    try {
      bin = binOf(dir, pkg, binName)
    } catch (err) {
      return failed(String(err))
    }
    const probe = await runAsync(bin, ['--version'], { env: process.env, timeoutMs: 60_000 })
    if (probe.code !== 0 || !probe.stdout.includes(version)) {
      return failed(`the installed ${binName} does not run: \`${binName} --version\` exited ${probe.code}: ${why(probe.stderr || probe.stdout)}`)
    }
    fs.writeFileSync(path.join(dir, MARKER), probe.stdout)
    return { bin }
  })
}
