/**
 * Where each frame of a CPU profile of the gateway belongs (bench/profile.ts). The profiled
 * gateway runs the compiled bundle (out/main/*.js), so a frame in it is mapped back through the
 * bundle's source map to its source file, and a source file to its layer as
 * test/unit/layers.test.ts declares the layers (read from that file, so the two cannot disagree).
 * Frames outside the gateway's sources fall into groups of their own:
 *   kernel          native frames that are system calls (writev, the log file's writes, file reads)
 *   V8              (program), (garbage collector) and compiling code
 *   idle            (idle)
 *   Node internals  node:* modules
 *   undici, fastify, pino: each package with its own dependencies (Fastify's @fastify/*,
 *                   find-my-way, avvio, secure-json-parse…; pino's sonic-boom…)
 *   other packages  any other node_modules package
 *   gateway (unmapped)  bundle code no mapping covers (a chunk's top level; every frame when
 *                   the bundle has no `.map`)
 * Any other native frame (a Buffer's utf8Slice, a regular expression, `postMessage`) and
 * WebAssembly (undici's HTTP parser) counts in the group of the JavaScript that called it: its
 * time is that code's work.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { SourceMapConsumer } from 'source-map-js'
import { ROOT } from './procs'
import { BUILT, buildApp } from '../test/support/build'

export interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  children?: number[]
}

/** A frame as the report names it: function, source file and line, and the layer or group it belongs to. */
export interface Site {
  fn: string
  /** Relative to the checkout; `(native)` for a frame without a script. */
  file: string
  /** 1-based; 0 when there is none. */
  line: number
  group: string
}

/** The groups of the gateway's own code: its layers, `shared`, and its frames no layer or map accounts for. */
export const isGatewayGroup = (group: string) => group === 'shared' || group.startsWith('gateway (') || declaredLayers().layers.some((l) => l.name === group)

/** Native frames that are system calls (Node's bindings are named after what they call). */
const SYSCALLS =
  /^(writev|write(String|Buffer|Utf8String|Latin1String|AsciiString|Ucs2String)?|read|readFileUtf8|readBuffers|open|openFileHandle|close|fstat|lstat|stat|internalModuleStat|internalModuleReadJSON|fsync|fdatasync|readdir|realpath)$/
/** V8 compiling a script or module (Node's loaders call into it from these). */
const COMPILE = /^(compile\w*|wrapSafe)$/

/** Maps every node of a profile to its site. */
export function sitesOf(nodes: ProfileNode[]): Map<number, Site> {
  const parent = new Map<number, ProfileNode>()
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n)
  const sites = new Map<number, Site>()
  const siteOf = (n: ProfileNode): Site => {
    let s = sites.get(n.id)
    if (!s) sites.set(n.id, (s = place(n)))
    return s
  }
  const place = (n: ProfileNode): Site => {
    const { functionName, url, lineNumber, columnNumber } = n.callFrame
    const fn = functionName || '(anonymous)'
    if (url === '' || url.startsWith('wasm:')) {
      const native = (group: string): Site => ({ fn, file: url === '' ? '(native)' : '(WebAssembly)', line: 0, group })
      if (fn === '(idle)') return native('idle')
      if (/^\((program|garbage collector|root)\)$/.test(fn)) return native('V8')
      if (SYSCALLS.test(fn)) return native('kernel')
      const caller = parent.get(n.id)
      return native(caller ? siteOf(caller).group : 'V8')
    }
    if (url.startsWith('node:')) return { fn, file: url, line: lineNumber + 1, group: COMPILE.test(fn) ? 'V8' : 'Node internals' }
    const file = path.relative(ROOT, url.replace(/^file:\/\//, ''))
    const mapped = file.startsWith('out/') ? bundleSource(file, lineNumber, columnNumber) : { file, line: lineNumber + 1 }
    if (!mapped) return { fn, file, line: lineNumber + 1, group: 'gateway (unmapped)' }
    return { fn, ...mapped, group: groupOfFile(mapped.file) }
  }
  for (const n of nodes) siteOf(n)
  return sites
}

/** A source file's layer or package group. */
function groupOfFile(file: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1]
  if (pkg) return packageGroup(pkg)
  if (!file.startsWith('src/')) return 'other'
  const { layers, shared } = declaredLayers()
  // Named as the layers test names modules: relative to src/gateway (src/main is `../main`).
  const rel = path.posix.relative('src/gateway', file)
  const within = (module: string) => rel === module || rel.startsWith(module.replace(/\.ts$/, '') + '/')
  if (shared.some(within)) return 'shared'
  return layers.find((l) => l.modules.some(within))?.name ?? 'gateway (no layer)'
}

let groups: Map<string, string> | null = null
/** undici, Fastify and pino with the packages each depends on (from its package.json; pino first, which Fastify depends on). */
function packageGroup(pkg: string): string {
  if (!groups) {
    groups = new Map()
    for (const name of ['undici', 'pino', 'fastify']) {
      const deps = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).dependencies ?? {}
      for (const p of [name, ...Object.keys(deps)]) if (!groups.has(p)) groups.set(p, name)
    }
  }
  return groups.get(pkg) ?? (pkg.startsWith('@fastify/') ? 'fastify' : 'other packages')
}

const maps = new Map<string, SourceMapConsumer | null>()
/** A bundle position's source file (relative to the checkout) and line, through the bundle's `.map` beside it. */
function bundleSource(file: string, line: number, column: number): { file: string; line: number } | null {
  let map = maps.get(file)
  if (map === undefined) {
    const mapFile = path.join(ROOT, `${file}.map`)
    maps.set(file, (map = fs.existsSync(mapFile) ? new SourceMapConsumer(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : null))
  }
  if (!map) return null
  // A frame's position is where its function starts; the nearest mapping at or before it, else after it.
  const at = { line: line + 1, column }
  let pos = map.originalPositionFor(at)
  if (!pos.source) pos = map.originalPositionFor({ ...at, bias: SourceMapConsumer.LEAST_UPPER_BOUND })
  if (!pos.source) return null
  return { file: path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), pos.source)), line: pos.line }
}

let declared: { layers: Array<{ name: string; modules: string[] }>; shared: string[] } | null = null
/** `LAYERS` and `SHARED` of test/unit/layers.test.ts, read from its syntax tree (importing it would run its tests). */
function declaredLayers(): { layers: Array<{ name: string; modules: string[] }>; shared: string[] } {
  if (declared) return declared
  const file = path.join(ROOT, 'test/unit/layers.test.ts')
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
  const literal = (node: ts.Expression): unknown => {
    if (ts.isStringLiteral(node)) return node.text
    if (ts.isArrayLiteralExpression(node)) return node.elements.map(literal)
    if (ts.isObjectLiteralExpression(node))
      return Object.fromEntries(
        node.properties.map((p) => {
          if (!ts.isPropertyAssignment(p)) throw new Error(`${file}: not a plain property: ${p.getText(source)}`)
          return [p.name.getText(source), literal(p.initializer)]
        }),
      )
    throw new Error(`${file}: not a literal: ${node.getText(source)}`)
  }
  const declarations = source.statements.flatMap((s) => (ts.isVariableStatement(s) ? [...s.declarationList.declarations] : []))
  const value = (name: string) => {
    const d = declarations.find((d) => d.name.getText(source) === name)
    return d?.initializer ? literal(d.initializer) : undefined
  }
  const layers = value('LAYERS') as Array<{ name: string; modules: string[] }> | undefined
  const shared = value('SHARED') as string[] | undefined
  if (!layers || !shared) throw new Error(`${file} no longer declares LAYERS and SHARED as literals`)
  return (declared = { layers, shared })
}

/**
 * The shipped bundle with its source maps: `electron-vite build --sourcemap` emits the same code
 * as the plain build (a `sourceMappingURL` comment more, so other chunk hashes) and the `.map`
 * files beside it. A plain build, as the tests and the benchmark make one, empties out/ first, so
 * maps that are there belong to the bundle that is there.
 */
export function buildWithSourceMaps(): void {
  buildApp()
  if (fs.existsSync(`${BUILT.gw}.map`)) return
  const r = spawnSync(path.join(ROOT, 'node_modules/.bin/electron-vite'), ['build', '--sourcemap', '--logLevel', 'warn'], { cwd: ROOT, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`electron-vite build --sourcemap failed:\n${r.stdout}\n${r.stderr}`)
}
