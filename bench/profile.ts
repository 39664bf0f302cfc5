/**
 * Where the gateway's time goes: runs the gateway child under `--cpu-prof`, drives it closed-loop
 * (instant mock, 10 connections) and optionally with streams, stops it, and prints the top
 * self-time functions and packages of the .cpuprofile.
 * Usage: node --import tsx bench/profile.ts [--seconds 8] [--streams] [--log-bodies] [--responses-translated] [--top 30]
 *        node --import tsx bench/profile.ts --read file.cpuprofile
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { closedLoop, makePool, sustainedStreams } from './loadgen'
import { ROOT, startChild } from './procs'
import { CHAT_ONLY_PROVIDER, startGatewayChild } from './gateway-process'
import { buildApp } from '../test/support/build'
import { MOCK_MODELS, STREAM_CHUNKS, STREAM_INTERVAL_MS } from './mock-provider'

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    streams: { type: 'boolean', default: false },
    'log-bodies': { type: 'boolean', default: false },
    // The Responses API translated to a chat-only provider (scenario A's costliest whole answer), instead of chat.
    'responses-translated': { type: 'boolean', default: false },
    top: { type: 'string', default: '30' },
    read: { type: 'string' },
  },
})

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

export function summarize(file: string, top: number): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const self = new Map<number, number>()
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0))
  const total = p.endTime - p.startTime
  const byFn = new Map<string, number>()
  const byPkg = new Map<string, number>()
  for (const n of p.nodes) {
    const us = self.get(n.id) ?? 0
    if (!us) continue
    const url = n.callFrame.url.replace(/^file:\/\//, '').replace(ROOT + '/', '')
    const short = url.replace(/^.*node_modules\//, 'nm:')
    const fnKey = `${n.callFrame.functionName || '(anonymous)'}  ${short}:${n.callFrame.lineNumber + 1}`
    byFn.set(fnKey, (byFn.get(fnKey) ?? 0) + us)
    const pkg =
      url === ''
        ? `(${n.callFrame.functionName})`
        : url.includes('node_modules/')
          ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
          : url.startsWith('node:')
            ? url
            : url.startsWith('src/')
              ? url
              : 'other'
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us)
  }
  // Inclusive time of the gateway's own functions: each sample counts once for every distinct
  // src/ function on its stack.
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const incl = new Map<string, number>()
  for (let i = 0; i < p.samples.length; i++) {
    const seen = new Set<string>()
    for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
      const cf = byId.get(id)!.callFrame
      const url = cf.url.replace(/^file:\/\//, '').replace(ROOT + '/', '')
      if (!url.startsWith('src/') && !url.startsWith('out/main/')) continue
      const k = `${cf.functionName || '(anonymous)'}  ${url}:${cf.lineNumber + 1}`
      if (!seen.has(k)) {
        seen.add(k)
        incl.set(k, (incl.get(k) ?? 0) + (p.timeDeltas[i] ?? 0))
      }
    }
  }
  const fmt = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n')
  return `profile ${path.basename(file)}: ${(total / 1e6).toFixed(1)} s\n\n== top self time by function ==\n${fmt(byFn)}\n\n== by file / package ==\n${fmt(byPkg)}\n\n== inclusive time of src/ functions ==\n${fmt(incl)}\n`
}

if (args.read) {
  process.stdout.write(summarize(args.read, Number(args.top)))
  process.exit(0)
}

const dir = path.join(ROOT, 'bench/results/profiles')
fs.mkdirSync(dir, { recursive: true })
const before = new Set(fs.readdirSync(dir))
const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
buildApp()
const translated = args['responses-translated']
const gw = await startGatewayChild(mock.info.url, {
  root: ROOT,
  logBodies: args['log-bodies'],
  chatOnly: translated,
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
})
const target = {
  name: 'gateway',
  origin: gw.url,
  path: translated ? '/v1/responses' : '/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}` },
}
const messages = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'Say hello in one short sentence.' },
]
const pool = makePool(gw.url, args.streams ? 256 : 10)
if (args.streams) {
  const body = JSON.stringify({ model: MOCK_MODELS.stream, messages, stream: true, stream_options: { include_usage: true } })
  const s = await sustainedStreams(pool, target, body, 200, STREAM_CHUNKS, STREAM_CHUNKS * STREAM_INTERVAL_MS, Number(args.seconds) * 1000)
  console.error(`200 streams kept open: ${s.streams} streams, TTFC p50 ${s.ttfcP50.toFixed(2)} ms, p99 ${s.ttfcP99.toFixed(2)} ms, failed ${s.failed}`)
} else {
  const body = JSON.stringify(
    translated
      ? {
          model: `${CHAT_ONLY_PROVIDER}/${MOCK_MODELS.instant}`,
          instructions: messages[0].content,
          input: messages[1].content,
          max_output_tokens: 64,
          store: false,
        }
      : { model: MOCK_MODELS.instant, messages, max_tokens: 64, user: 'bench' },
  )
  const s = await closedLoop(pool, target, body, 10, Number(args.seconds) * 1000)
  console.error(`closed loop: ${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, errors ${s.errors}`)
}
await pool.close()
await gw.stop()
await mock.stop()
// The main thread's profile (thread id 0), not tsx's loader worker.
const file = fs.readdirSync(dir).find((f) => !before.has(f) && /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
if (!file) throw new Error('no profile written')
process.stdout.write(summarize(path.join(dir, file), Number(args.top)))
