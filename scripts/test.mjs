#!/usr/bin/env node
// Runs the test suite with node's test runner. On Linux without a D-Bus session it re-runs itself
// inside `dbus-run-session` with an unlocked gnome-keyring, so keychain tests use a real Secret
// Service instead of being skipped. Extra arguments are test files or folders (default: unit,
// integration and the dashboard's end-to-end tests in Chromium, which say why they skip where
// /usr/bin/chromium is missing).
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0

if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS && !process.env.GW_TEST_NO_DBUS) {
  if (has('dbus-run-session') && has('gnome-keyring-daemon')) {
    const inner = `echo -n gw-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec node ${JSON.stringify(path.join(root, 'scripts/test.mjs'))} "$@"`
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner, 'sh', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root })
    process.exit(r.status ?? 1)
  }
  console.error('note: no D-Bus session and no gnome-keyring: keychain tests will report why they skip')
}

const explicit = process.argv.slice(2)
const targets = explicit.length ? explicit : ['test/unit', 'test/integration', 'test/e2e']
const filesOf = (targets) =>
  targets.flatMap((t) => {
    const p = path.resolve(root, t)
    if (fs.statSync(p).isFile()) return [p]
    return fs
      .readdirSync(p)
      .filter((f) => f.endsWith('.test.ts') || f.endsWith('.e2e.ts'))
      .sort()
      .map((f) => path.join(p, f))
  })
// A hung test fails on its own (--test-timeout) and a file whose handles outlive its tests still
// ends (--test-force-exit); a run that still outlasts SUITE_LIMIT_MS is stopped, saying so, so a
// CI run never waits out its own limit (90 minutes, with the packages' install and the checks
// before the tests). The whole run takes 15 minutes on a usual day here and 25 on a slow one (the
// same machine at half its speed), so the limit is far above both: it catches a hang, not a slow day.
const TEST_LIMIT_MS = 240_000
const SUITE_LIMIT_MS = 60 * 60_000
let child = null
const limit = setTimeout(() => {
  console.error(`\nThe test run took longer than ${SUITE_LIMIT_MS / 60_000} minutes and was stopped.`)
  if (child) process.kill(-child.pid, 'SIGKILL')
  process.exit(1)
}, SUITE_LIMIT_MS)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child && process.kill(-child.pid, signal))

/** One run of node's test runner over `files`, resolving to its exit code. */
const run = (files, env = process.env) =>
  new Promise((resolve) => {
    child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', `--test-timeout=${TEST_LIMIT_MS}`, '--test-force-exit', ...files],
      { stdio: 'inherit', cwd: root, detached: true, env },
    )
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })

/** Why the throwaway PostgreSQL the tests start cannot run here, or null when it can. */
const postgresSkipReason = () => {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-e', "import('./test/support/postgres.ts').then((m) => console.log(m.postgresSkipReason() ?? ''))"],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
  return r.status === 0 ? r.stdout.trim() || null : `its check failed: ${r.stderr.trim().split('\n').at(-1)}`
}

/** Test files that choose their stores themselves (both, or PostgreSQL only): the second pass leaves them out. */
const BOTH_STORES = [
  'kill.test.ts',
  'nginx.test.ts',
  'postgres-connect.test.ts',
  'store-copy.test.ts',
  'team-faults.test.ts',
  'team-limits.test.ts',
  'team.test.ts',
  'server-provider-keys.test.ts',
]

let code = await run(filesOf(targets))
// The whole run, as CI makes it, also runs the integration and dashboard tests with every test
// gateway on PostgreSQL: the team's store passes what the desktop's does.
if (code === 0 && explicit.length === 0) {
  const why = postgresSkipReason()
  if (why) console.error(`\nThe integration and dashboard tests on PostgreSQL are skipped: ${why}`)
  else {
    console.log('\nThe integration and dashboard tests again, every test gateway on PostgreSQL (GW_TEST_STORE=postgres):\n')
    const again = filesOf(['test/integration', 'test/e2e']).filter((f) => !BOTH_STORES.includes(path.basename(f)))
    code = await run(again, { ...process.env, GW_TEST_STORE: 'postgres' })
  }
}
clearTimeout(limit)
process.exit(code)
