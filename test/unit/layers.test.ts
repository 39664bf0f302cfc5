import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from '../support/build'

/**
 * The gateway's layers, highest first: a module may import its own layer and those below it,
 * never one above. Transports (HTTP, the CLI, Electron's main process) call the admin service and
 * the core; the admin service (with the sign-in and preset checks only it uses) manages what the
 * gateway is made of; `gateway.ts` composes one gateway from the layers below; what operators'
 * tools read (metrics, traces) sits on the core; the core runs a request through the wires; the wires call providers through routing;
 * everything ends in the store. `src/contract`, `src/shared` and the shared modules (errors, log, configuration, pure
 * helpers) are usable by all.
 */
const LAYERS: Array<{ name: string; modules: string[] }> = [
  { name: 'transports', modules: ['http', 'cli', 'app.ts', 'server.ts', 'storeCopy.ts', '../main', '../preload'] },
  { name: 'admin', modules: ['admin', 'auth', 'presets'] },
  { name: 'composition', modules: ['gateway.ts'] },
  // What the gateway tells operators' tools of its requests and state: Prometheus' metrics, and
  // OpenTelemetry's traces (which the composition loads only when they are on).
  { name: 'observability', modules: ['metrics', 'tracing'] },
  { name: 'core', modules: ['core'] },
  { name: 'wires', modules: ['wires'] },
  { name: 'routing', modules: ['routing'] },
  // The stages a request passes through: its context, attribution, steering, admission, cost.
  { name: 'pipeline', modules: ['pipeline'] },
  { name: 'providers and pricing', modules: ['providers', 'pricing'] },
  { name: 'upstream', modules: ['upstream'] },
  { name: 'secrets', modules: ['secrets'] },
  { name: 'store', modules: ['store'] },
]

/** Importable from any layer; they import nothing of the layers themselves. */
const SHARED = [
  '../contract',
  '../shared',
  'errors.ts',
  'log.ts',
  'rotatingLog.ts',
  'gatheredLog.ts',
  'isoTime.ts',
  'config.ts',
  'version.ts',
  'boundedJson.ts',
  'slidingWindow.ts',
  'randomText.ts',
  'jsonObject.ts',
  'jsonText.ts',
  'keys',
  'pricing/types.ts',
  'workerScript.ts',
]

/**
 * Upward imports that stay, each for its reason. A new entry needs one as good.
 */
const ALLOWED: Record<string, string> = {
  // The core defines the interface every wire implements and where answers go (dependency
  // inversion): the core names no wire, and wires implement its ports.
  'wires -> core/wire.ts': 'InboundWire, the port a wire implements',
  'wires -> core/sink.ts': 'Sink, where a wire delivers its answer',
}

const GATEWAY = path.join(ROOT, 'src/gateway')

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) ? [p] : []
  })
}

/** Relative imports of a module, resolved to files (`import`, `import type`, `export … from`, `import()`). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2],
  )
  return specs.map((s) => {
    const base = path.resolve(path.dirname(file), s)
    return ['.ts', '.tsx', '/index.ts'].map((ext) => base + ext).find((f) => fs.existsSync(f)) ?? base
  })
}

/** A module's path as the tables above name it (relative to src/gateway). */
const named = (file: string) => path.relative(GATEWAY, file).split(path.sep).join('/')
const within = (file: string, module: string) => {
  const n = named(file)
  return n === module || n.startsWith(module.replace(/\.ts$/, '') + '/') || (module.endsWith('.ts') && n === module)
}
const isShared = (file: string) => SHARED.some((m) => within(file, m))
function layerOf(file: string): number {
  const i = LAYERS.findIndex((l) => l.modules.some((m) => within(file, m)))
  assert.notEqual(i, -1, `${named(file)} belongs to no declared layer: add it to LAYERS or SHARED in this test`)
  return i
}
const topOf = (file: string) => named(file).split('/')[0].replace(/\.ts$/, '')

const allFiles = [GATEWAY, path.join(ROOT, 'src/main'), path.join(ROOT, 'src/preload')].flatMap(sourceFiles)

describe('layers point down only', () => {
  it('no module imports from a layer above its own', () => {
    const upward: string[] = []
    const used = new Set<string>()
    for (const file of allFiles) {
      const shared = isShared(file)
      for (const target of importsOf(file)) {
        if (!target.startsWith(path.join(ROOT, 'src'))) continue
        if (isShared(target)) continue
        if (!target.startsWith(GATEWAY) && !target.startsWith(path.join(ROOT, 'src/main')) && !target.startsWith(path.join(ROOT, 'src/preload'))) continue
        const from = shared ? -1 : layerOf(file)
        const to = layerOf(target)
        if (shared || to < from) {
          const edge = `${shared ? named(file) : topOf(file)} -> ${named(target)}`
          if (ALLOWED[edge]) used.add(edge)
          else upward.push(`${named(file)} imports ${named(target)} (${shared ? 'a shared module' : LAYERS[from].name} → ${LAYERS[to].name})`)
        }
      }
    }
    assert.deepEqual(upward, [])
    assert.deepEqual(
      Object.keys(ALLOWED).filter((e) => !used.has(e)),
      [],
      'an allowed upward import no longer made: remove it from ALLOWED',
    )
  })

  it('src/shared imports no Node module and nothing of the gateway: the dashboard imports it too', () => {
    const offending = sourceFiles(path.join(ROOT, 'src/shared')).flatMap((file) => {
      const text = fs.readFileSync(file, 'utf8')
      return [...text.matchAll(/(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)]
        .map((m) => m[1] ?? m[2])
        .filter((spec) => !spec.startsWith('./'))
        .map((spec) => `${path.relative(ROOT, file)} imports ${spec}`)
    })
    assert.deepEqual(offending, [])
  })

  it('the CLI reaches data only through the admin service: no module under cli/ imports a repository or the store', () => {
    /**
     * The three ways in, each needing more than an admin call: `serve` starts the server; the
     * operator's bootstrap (commands/api.ts) builds the gateway over the data dir to host the admin
     * service in this process, as the desktop app and `gw serve` host it in theirs; `store copy`
     * reads one store and writes another, which no gateway's admin service spans.
     */
    const bootstrap: Record<string, string[]> = {
      'cli/commands/serve.ts': ['server.ts'],
      'cli/commands/api.ts': ['gateway.ts', 'app.ts', 'config.ts'],
      'cli/commands/store.ts': ['storeCopy.ts'],
    }
    const reached: string[] = []
    for (const file of sourceFiles(path.join(GATEWAY, 'cli'))) {
      for (const target of importsOf(file)) {
        const t = named(target)
        if (t.startsWith('store/') || /Repo$/.test(path.basename(t, '.ts'))) reached.push(`${named(file)} imports ${t}`)
        if (['gateway.ts', 'server.ts', 'app.ts', 'storeCopy.ts'].includes(t) && !bootstrap[named(file)]?.includes(t))
          reached.push(`${named(file)} imports ${t}`)
      }
    }
    assert.deepEqual(reached, [])
  })
})
