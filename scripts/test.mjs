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

const targets = process.argv.slice(2).length ? process.argv.slice(2) : ['test/unit', 'test/integration', 'test/e2e']
const files = targets.flatMap((t) => {
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
// CI run never waits out its own limit.
const TEST_LIMIT_MS = 240_000
const SUITE_LIMIT_MS = 15 * 60_000
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', `--test-timeout=${TEST_LIMIT_MS}`, '--test-force-exit', ...files],
  { stdio: 'inherit', cwd: root, detached: true },
)
const limit = setTimeout(() => {
  console.error(`\nThe test run took longer than ${SUITE_LIMIT_MS / 60_000} minutes and was stopped.`)
  process.kill(-child.pid, 'SIGKILL')
  process.exit(1)
}, SUITE_LIMIT_MS)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.kill(-child.pid, signal))
child.on('exit', (code, signal) => {
  clearTimeout(limit)
  process.exit(code ?? (signal ? 1 : 0))
})
