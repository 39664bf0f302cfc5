/**
 * Where the gateway's garbage and resident memory come from: runs the shipped gateway (this
 * checkout's, or `--root DIR`'s, built) under `--trace-gc-nvp` with the inspector on loopback,
 * and reports
 * - at idle, after start-up: RSS and what holds it (the binary, malloc's arenas, V8's heaps), V8's
 *   heap and its spaces, and the scripts V8 compiled, summed by package (what `gw serve` loads
 *   before its first request); the same under load; and at the end,
 *   after a full GC, a heap snapshot's objects summed by kind (strings, code, shapes, constructors);
 * - under a closed loop (instant mock, chat or Messages native, 50 connections by default): the
 *   bytes the main thread allocates a request (the scavenges' `allocated=`, summed), scavenges and
 *   mark-compacts per 1,000 requests, bytes promoted a request, peak RSS; and the sampling heap
 *   profile of the same window counting objects young and major GCs collected too (so it shows
 *   what is allocated, not what survives), by self size: the top sites and the layers.
 * Usage: node --import tsx bench/alloc.ts [--mode chat|messages] [--connections 50] [--seconds 6] [--root DIR] [--top 25]
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { WebSocket } from 'undici'
import { closedLoop, makePool } from './loadgen'
import { memoryMb, resetPeakRss, RESIDENT_PARTS, residentByMapping, ROOT, startChild } from './procs'
import { startGatewayChild } from './gateway-process'
import { buildWithSourceMaps, isGatewayGroup, sitesOf, type ProfileNode } from './profile-frames'
import { MOCK_MESSAGES_MODELS, MOCK_MODELS } from './mock-provider'
import { chatBody, messagesBody } from './turn'

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'chat' },
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '6' },
    root: { type: 'string' },
    top: { type: 'string', default: '25' },
  },
})
const root = args.root ? path.resolve(args.root) : ROOT
const CONNS = Number(args.connections)

/** A Chrome DevTools Protocol session over the inspector's WebSocket. */
async function inspector(url: string) {
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  let next = 1
  const pending = new Map<number, (r: { result?: unknown; error?: unknown }) => void>()
  const listeners = new Map<string, (params: Record<string, unknown>) => void>()
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data))
    if (m.id) pending.get(m.id)?.(m)
    else listeners.get(m.method)?.(m.params)
  }
  return {
    send: <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = next++
        pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result as T)))
        ws.send(JSON.stringify({ id, method, params }))
      }),
    on: (method: string, fn: (params: Record<string, unknown>) => void) => listeners.set(method, fn),
    close: () => ws.close(),
  }
}

/**
 * The main thread's isolate in `--trace-gc-nvp` output: each line gives the milliseconds since its
 * isolate started, and the main thread's started first, so its clock reads the highest. (Not the
 * first isolate to print: the record thread, with its small young generation, may scavenge first.)
 */
function mainIsolate(stdout: string): string | null {
  let main: string | null = null
  let latest = -1
  for (const m of stdout.matchAll(/^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms:/gm)) {
    if (Number(m[2]) > latest) {
      latest = Number(m[2])
      main = m[1]
    }
  }
  return main
}

/** The GC lines of one isolate of `--trace-gc-nvp`, summed. */
function gcTotals(stdout: string, isolate: string) {
  let allocated = 0
  let promoted = 0
  let scavenges = 0
  let markCompacts = 0
  for (const line of stdout.split('\n')) {
    if (!line.includes(isolate)) continue
    const gc = /\bgc=(\w+)/.exec(line)?.[1]
    if (!gc) continue
    allocated += Number(/\ballocated=(\d+)/.exec(line)?.[1] ?? 0)
    promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0)
    if (gc === 's') scavenges++
    else markCompacts++
  }
  return { allocated, promoted, scavenges, markCompacts }
}

const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
if (root === ROOT) buildWithSourceMaps()
const gw = await startGatewayChild(mock.info.url, { root, messages: true, nodeArgs: ['--trace-gc-nvp', '--inspect=127.0.0.1:0'] })
let stdout = ''
gw.proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
const wsUrl = /Debugger listening on (ws:\/\/\S+)/.exec(gw.log())?.[1]
if (!wsUrl) throw new Error(`no inspector URL in:\n${gw.log()}`)
const cdp = await inspector(wsUrl)

// What start-up loaded: every script V8 has compiled (Debugger.enable reports them all).
const scripts: Array<{ url: string; length: number }> = []
cdp.on('Debugger.scriptParsed', (p) => scripts.push({ url: String(p.url), length: Number(p.length ?? 0) }))
await cdp.send('Debugger.enable')
await cdp.send('Debugger.disable')
// The inspector's command line API has `require`, also in an ES module's process.
const evaluate = async <T>(expression: string) =>
  JSON.parse(
    (await cdp.send<{ result: { value: string } }>('Runtime.evaluate', { expression: `JSON.stringify(${expression})`, includeCommandLineAPI: true })).result
      .value,
  ) as T
interface Memory {
  usage: NodeJS.MemoryUsage
  spaces: Array<{ space_name: string; space_size: number; space_used_size: number }>
  rssMb: number
  parts: ReturnType<typeof residentByMapping>
}
const memory = async (): Promise<Memory> => ({
  ...(await evaluate<Omit<Memory, 'rssMb' | 'parts'>>(`{ usage: process.memoryUsage(), spaces: require('v8').getHeapSpaceStatistics() }`)),
  rssMb: memoryMb(gw.pid).rss,
  parts: residentByMapping(gw.pid),
})
await cdp.send('HeapProfiler.collectGarbage')
const idle = await memory()

/**
 * A heap snapshot, its objects' self sizes summed by kind (the snapshot's node type, and
 * for objects, closures, arrays and code their constructor's or function's name): what stays resident.
 */
async function heapBySelfSize(): Promise<Array<{ what: string; count: number; bytes: number }>> {
  let json = ''
  cdp.on('HeapProfiler.addHeapSnapshotChunk', (p) => (json += String(p.chunk)))
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
  const snap = JSON.parse(json) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
    nodes: number[]
    strings: string[]
  }
  const fields = snap.snapshot.meta.node_fields
  const types = snap.snapshot.meta.node_types[0]
  const [T, N, S] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f))
  const named = new Set(['object', 'closure', 'code', 'array'])
  const sums = new Map<string, { what: string; count: number; bytes: number }>()
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + T]]
    const what = named.has(type) ? `${type}: ${snap.strings[snap.nodes[i + N]].slice(0, 60)}` : type
    const e = sums.get(what) ?? { what, count: 0, bytes: 0 }
    e.count++
    e.bytes += snap.nodes[i + S]
    sums.set(what, e)
  }
  return [...sums.values()].sort((a, b) => b.bytes - a.bytes)
}

const req =
  args.mode === 'messages'
    ? { path: '/v1/messages', body: messagesBody(MOCK_MESSAGES_MODELS.instant) }
    : { path: '/v1/chat/completions', body: chatBody(MOCK_MODELS.instant) }
const target = {
  name: 'gateway',
  origin: gw.url,
  path: req.path,
  headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}`, 'x-api-key': gw.key },
}
const pool = makePool(gw.url, CONNS)
await closedLoop(pool, target, req.body, CONNS, 3000)

// First the counts and the peak, then (a second window) the sampling profile, whose own samples would weigh on both.
resetPeakRss(gw.pid)
const mark = stdout.length
const load = await closedLoop(pool, target, req.body, CONNS, Number(args.seconds) * 1000)
const gcText = stdout.slice(mark)
const peakMb = memoryMb(gw.pid).peak
const loaded = await memory()
await cdp.send('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
await closedLoop(pool, target, req.body, CONNS, Number(args.seconds) * 1000)
const { profile } = await cdp.send<{ profile: { head: ProfileNode & { selfSize: number } } }>('HeapProfiler.stopSampling')
// Last: making a snapshot takes the process's memory far above what it serves with.
await cdp.send('HeapProfiler.collectGarbage')
const heapKinds = await heapBySelfSize()
cdp.close()
await pool.close()
await gw.stop()
await mock.stop()

const isolate = mainIsolate(stdout)
if (!isolate) throw new Error('no --trace-gc-nvp output')
const gc = gcTotals(gcText, isolate)
const n = load.rps * load.seconds

// The heap profile's nodes in the CPU profile's shape, so sitesOf places them in layers and packages.
const nodes: Array<ProfileNode & { selfSize: number }> = []
const flatten = (node: ProfileNode & { selfSize: number; children?: unknown }) => {
  const kids = (node.children ?? []) as unknown as Array<ProfileNode & { selfSize: number }>
  nodes.push({ ...node, children: kids.map((k) => k.id) })
  for (const k of kids) flatten(k)
}
flatten(profile.head)
const sites = sitesOf(nodes)
const bySite = new Map<string, { label: string; bytes: number }>()
const byGroup = new Map<string, number>()
let sampled = 0
for (const node of nodes) {
  if (!node.selfSize) continue
  const s = sites.get(node.id)!
  const label = `\`${s.fn}\` | ${s.line ? `${s.file}:${s.line}` : s.file} | ${s.group}`
  const e = bySite.get(label) ?? { label, bytes: 0 }
  e.bytes += node.selfSize
  bySite.set(label, e)
  byGroup.set(s.group, (byGroup.get(s.group) ?? 0) + node.selfSize)
  sampled += node.selfSize
}
const perReq = (bytes: number) => ((bytes * (gc.allocated / sampled)) / n / 1024).toFixed(2)
const packageOf = (url: string) => {
  if (url.startsWith('node:')) return 'node (built-in)'
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  return m ? m[1] : url.includes('/out/main/') ? 'the gateway (out/main)' : url || '(eval)'
}
const byPackage = new Map<string, { scripts: number; kb: number }>()
for (const s of scripts) {
  const p = byPackage.get(packageOf(s.url)) ?? { scripts: 0, kb: 0 }
  p.scripts++
  p.kb += s.length / 1024
  byPackage.set(packageOf(s.url), p)
}
const mb = (b: number) => (b / 1024 / 1024).toFixed(1)
const top = Number(args.top)
process.stdout.write(
  [
    `## Allocation and memory of the gateway (${path.relative(ROOT, root) || 'this checkout'}): ${args.mode} at ${CONNS} connections`,
    '',
    `Under load (${load.seconds.toFixed(1)} s, ${load.rps.toFixed(0)} req/s, ${load.errors} errors): **${(gc.allocated / n / 1024).toFixed(1)} KB allocated a request** on the main thread,`,
    `${((gc.scavenges / n) * 1000).toFixed(2)} scavenges and ${((gc.markCompacts / n) * 1000).toFixed(3)} mark-compacts per 1,000 requests, ${(gc.promoted / n).toFixed(0)} bytes promoted a request; peak RSS ${peakMb.toFixed(1)} MB.`,
    '',
    '### Memory at idle (after start-up and a full GC) and at the end of the load',
    '',
    '| | idle | under load |',
    '|---|---:|---:|',
    `| RSS (MB) | ${idle.rssMb.toFixed(1)} | ${loaded.rssMb.toFixed(1)} |`,
    ...RESIDENT_PARTS.map((k) => `| of which ${k} (MB) | ${idle.parts[k].toFixed(1)} | ${loaded.parts[k].toFixed(1)} |`),
    ...(['heapTotal', 'heapUsed', 'external', 'arrayBuffers'] as const).map((k) => `| ${k} (MB) | ${mb(idle.usage[k])} | ${mb(loaded.usage[k])} |`),
    ...idle.spaces.map(
      (sp, i) =>
        `| ${sp.space_name}: used / size (MB) | ${mb(sp.space_used_size)} / ${mb(sp.space_size)} | ${mb(loaded.spaces[i].space_used_size)} / ${mb(loaded.spaces[i].space_size)} |`,
    ),
    '',
    `### The heap after the load and a full GC, by kind (a heap snapshot's self sizes), top ${top}`,
    '',
    '| kind | objects | KB |',
    '|---|---:|---:|',
    ...heapKinds.slice(0, top).map((e) => `| ${e.what.replaceAll('|', '\\|')} | ${e.count} | ${(e.bytes / 1024).toFixed(0)} |`),
    '',
    `### Allocation by site (sampling heap profile, scaled to the measured KB a request), top ${top}`,
    '',
    '| KB a request | function | source | layer or group |',
    '|---:|---|---|---|',
    ...[...bySite.values()]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top)
      .map((e) => `| ${perReq(e.bytes)} | ${e.label} |`),
    '',
    '### Allocation by layer and group',
    '',
    '| layer or group | KB a request |',
    '|---|---:|',
    ...[...byGroup].sort((a, b) => b[1] - a[1]).map(([g, b]) => `| ${isGatewayGroup(g) ? `**${g}**` : g} | ${perReq(b)} |`),
    '',
    '### Scripts compiled by start-up, by package',
    '',
    '| package | scripts | source KB |',
    '|---|---:|---:|',
    ...[...byPackage].sort((a, b) => b[1].kb - a[1].kb).map(([p, s]) => `| ${p} | ${s.scripts} | ${s.kb.toFixed(0)} |`),
    '',
  ].join('\n'),
)
