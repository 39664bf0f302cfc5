#!/usr/bin/env node
// Adds to package-lock.json the platform packages of optional dependencies (rollup's
// @rollup/rollup-<os>-<cpu>[-<abi>]) that npm left out because the registry it used could not
// serve them. npm ci refuses a lock file that lacks them, on every platform. Each entry carries
// the version, os, cpu and libc npm itself would write; npm fetches and checks the package only
// on its own platform. Run `npm install --package-lock-only` afterwards to let npm order the file.
import fs from 'node:fs'
import path from 'node:path'

const file = path.resolve(import.meta.dirname, '..', 'package-lock.json')
const lock = JSON.parse(fs.readFileSync(file, 'utf8'))
const PLATFORM = /-(android|darwin|freebsd|linux|openbsd|openharmony|netbsd|sunos|aix|win32)-(arm64|x64|ia32|arm|loong64|ppc64|riscv64|s390x)(?:-(\w+))?$/
const added = []
for (const [where, pkg] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`
    const platform = PLATFORM.exec(name)
    if (lock.packages[key] || !platform) continue
    const [, os, cpu, abi] = platform
    lock.packages[key] = {
      version,
      cpu: [cpu],
      ...(pkg.dev && { dev: true }),
      ...(os === 'linux' && { libc: [abi?.startsWith('musl') ? 'musl' : 'glibc'] }),
      optional: true,
      os: [os],
    }
    added.push(`${name}@${version} (for ${where})`)
  }
}
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(added.length ? `added ${added.length}:\n  ${added.join('\n  ')}` : 'nothing to add')
