import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'

export const ROOT = path.resolve(import.meta.dirname, '../..')

/** What `electron-vite build` writes: the desktop main process, `gw` compiled, the record thread, preload and dashboard. */
export const BUILT = {
  main: path.join(ROOT, 'out/main/index.js'),
  gw: path.join(ROOT, 'out/main/gw.js'),
  recordWorker: path.join(ROOT, 'out/main/recordWorker.js'),
  preload: path.join(ROOT, 'out/preload/index.cjs'),
  renderer: path.join(ROOT, 'out/renderer/index.html'),
}

/** The Node flags `npm run serve` (of a checkout) starts out/main/gw.js with, so tests and the benchmark run it the same way. */
export function serveNodeArgs(root = ROOT): string[] {
  const script: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.serve
  const m = /\bnode((?: --\S+)*) out\/main\/gw\.js serve\b/.exec(script)
  if (!m) throw new Error(`package.json's serve script does not run out/main/gw.js: ${script}`)
  return m[1].split(' ').filter(Boolean)
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs)
  }
  return newest
}

function upToDate(): boolean {
  const outputs = Object.values(BUILT)
  if (!outputs.every((f) => fs.existsSync(f))) return false
  const built = Math.min(...outputs.map((f) => fs.statSync(f).mtimeMs))
  const sources = Math.max(newestMtime(path.join(ROOT, 'src')), fs.statSync(path.join(ROOT, 'electron.vite.config.ts')).mtimeMs)
  return built >= sources
}

/**
 * Builds the app once for all test files (each runs in its own process): skipped when out/ is
 * newer than every source, serialized with a lock directory.
 */
export function buildApp(): void {
  if (upToDate()) return
  const lock = path.join(os.tmpdir(), `gw-test-build-${Buffer.from(ROOT).toString('hex').slice(-24)}.lock`)
  const deadline = Date.now() + 5 * 60_000
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`build lock ${lock} held for 5 minutes`)
      // Another test file is building: wait for it (a synchronous pause; no test is running yet).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
    }
  }
  try {
    if (upToDate()) return
    const r = spawnSync(path.join(ROOT, 'node_modules/.bin/electron-vite'), ['build', '--logLevel', 'warn'], { cwd: ROOT, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`)
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}
