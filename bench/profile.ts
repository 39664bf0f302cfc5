/**
 * Where the gateway's time goes: runs the gateway child under `--cpu-prof`, drives it closed-loop
 * (instant mock, 10 connections), with 200 streams kept open or with bursts of 1,000 streams opened
 * at once (three to warm up, as scenario D's, then three; all of them in the profile), stops it, and reports its main
 * thread's profile: the top self-time frames, each with its source file and the layer or group
 * it belongs to (bench/profile-frames.ts), the self time of each layer and group, and the
 * inclusive time of the gateway's own functions. Printed, and written to
 * bench/results/profile-<what>.md (<what>: chat, streams, burst, responses-translated or responses-stream,
 * -log-bodies).
 * The gateway runs the shipped bundle built with its source maps beside it, so that its frames
 * map back to src/.
 * Usage: node --import tsx bench/profile.ts [--seconds 8] [--streams | --burst] [--log-bodies] [--responses-translated | --responses-stream] [--top 15]
 *        node --import tsx bench/profile.ts --read file.cpuprofile   (mapped through out/ as built now)
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { closedLoop, makePool, streams, sustainedStreams } from './loadgen'
import { ROOT, startChild } from './procs'
import { CHAT_ONLY_PROVIDER, startGatewayChild } from './gateway-process'
import { buildWithSourceMaps, isGatewayGroup, sitesOf, type ProfileNode, type Site } from './profile-frames'
import { chatBody, chatStreamBody, messages, responsesBody } from './turn'
import { MOCK_MODELS, STREAM_CHUNKS, STREAM_INTERVAL_MS } from './mock-provider'

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    streams: { type: 'boolean', default: false },
    burst: { type: 'boolean', default: false },
    'log-bodies': { type: 'boolean', default: false },
    // The Responses API translated to a chat-only provider (scenario A's costliest whole answer), instead of chat.
    'responses-translated': { type: 'boolean', default: false },
    // A native Responses stream (the mock's 28 events at once), one request at a time: scenario A's Responses streamed row.
    'responses-stream': { type: 'boolean', default: false },
    top: { type: 'string', default: '15' },
    read: { type: 'string' },
  },
})

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

/** The profile's report in markdown: `what` it measured and the load it was under head it. */
export function summarize(file: string, top: number, what: string, load: string): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const sites = sitesOf(p.nodes)
  const total = p.endTime - p.startTime
  const bySite = new Map<string, { site: Site; us: number }>()
  const add = (m: Map<string, { site: Site; us: number }>, site: Site, us: number) => {
    const k = `${site.fn}\0${site.file}\0${site.line}\0${site.group}`
    const e = m.get(k)
    if (e) e.us += us
    else m.set(k, { site, us })
  }
  const byGroup = new Map<string, number>()
  for (let i = 0; i < p.samples.length; i++) {
    const site = sites.get(p.samples[i])!
    const us = p.timeDeltas[i] ?? 0
    add(bySite, site, us)
    byGroup.set(site.group, (byGroup.get(site.group) ?? 0) + us)
  }
  // Inclusive time of the gateway's own functions: each sample counts once for every distinct
  // one of them on its stack.
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const inclusive = new Map<string, { site: Site; us: number }>()
  for (let i = 0; i < p.samples.length; i++) {
    const seen = new Set<Site>()
    for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
      const site = sites.get(id)!
      if (!isGatewayGroup(site.group) || seen.has(site)) continue
      seen.add(site)
      add(inclusive, site, p.timeDeltas[i] ?? 0)
    }
  }
  const pct = (us: number) => ((us / total) * 100).toFixed(1)
  const ms = (us: number) => (us / 1000).toFixed(0)
  const frames = (m: Map<string, { site: Site; us: number }>) => [
    '| % | ms | function | source | layer |',
    '|---:|---:|---|---|---|',
    ...[...m.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ site: s, us }) => `| ${pct(us)} | ${ms(us)} | \`${s.fn}\` | ${s.line ? `${s.file}:${s.line}` : s.file} | ${s.group} |`),
  ]
  const own = [...byGroup].filter(([g]) => isGatewayGroup(g)).reduce((sum, [, us]) => sum + us, 0)
  return [
    `## CPU profile of the gateway's main thread: ${what}`,
    '',
    `${load}${load ? '; ' : ''}\`${path.basename(file)}\`, ${(total / 1e6).toFixed(1)} s.`,
    '',
    `### Top ${top} frames by self time`,
    '',
    ...frames(bySite),
    '',
    '### Self time by layer and group',
    '',
    '| layer or group | % | ms |',
    '|---|---:|---:|',
    ...[...byGroup].sort((a, b) => b[1] - a[1]).map(([g, us]) => `| ${g} | ${pct(us)} | ${ms(us)} |`),
    `| **the gateway's own code** (its layers) | ${pct(own)} | ${ms(own)} |`,
    '',
    `### Inclusive time of the gateway's own functions, top ${top}`,
    '',
    ...frames(inclusive),
    '',
  ].join('\n')
}

if (args.read) {
  process.stdout.write(summarize(args.read, Number(args.top), 'read back', ''))
  process.exit(0)
}

const dir = path.join(ROOT, 'bench/results/profiles')
fs.mkdirSync(dir, { recursive: true })
const before = new Set(fs.readdirSync(dir))
const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
buildWithSourceMaps()
const translated = args['responses-translated']
const responsesStream = args['responses-stream']
const gw = await startGatewayChild(mock.info.url, {
  root: ROOT,
  logBodies: args['log-bodies'],
  chatOnly: translated,
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
})
const target = {
  name: 'gateway',
  origin: gw.url,
  path: translated || responsesStream ? '/v1/responses' : '/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}` },
}
const BURST = 1000
const pool = makePool(gw.url, args.burst ? BURST : args.streams ? 256 : 10)
let load: string
if (args.burst) {
  const body = chatStreamBody(MOCK_MODELS.stream)
  const measured = []
  for (let i = 0; i < 6; i++) {
    const s = await streams(pool, target, body, BURST, STREAM_CHUNKS)
    if (i >= 3) measured.push(`TTFC p50 ${s.ttfcP50.toFixed(0)} ms, p99 ${s.ttfcP99.toFixed(0)} ms, failed ${s.failed}`)
  }
  load = `${BURST.toLocaleString('en')} streams opened at once, 3 bursts to warm up, then: ${measured.join('; ')}`
} else if (args.streams) {
  const body = JSON.stringify({ model: MOCK_MODELS.stream, messages, stream: true, stream_options: { include_usage: true } })
  const s = await sustainedStreams(pool, target, body, 200, STREAM_CHUNKS, STREAM_CHUNKS * STREAM_INTERVAL_MS, Number(args.seconds) * 1000)
  load = `200 streams kept open: ${s.streams} streams, TTFC p50 ${s.ttfcP50.toFixed(2)} ms, p99 ${s.ttfcP99.toFixed(2)} ms, failed ${s.failed}`
} else if (responsesStream) {
  const body = responsesBody(MOCK_MODELS.instant, true)
  const s = await closedLoop(pool, target, body, 1, Number(args.seconds) * 1000)
  load = `one request at a time: ${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, errors ${s.errors}`
} else {
  const body = translated ? responsesBody(`${CHAT_ONLY_PROVIDER}/${MOCK_MODELS.instant}`, false) : chatBody(MOCK_MODELS.instant)
  const s = await closedLoop(pool, target, body, 10, Number(args.seconds) * 1000)
  load = `closed loop at 10 connections: ${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, errors ${s.errors}`
}
await pool.close()
await gw.stop()
await mock.stop()
// The main thread's profile (thread id 0), not tsx's loader worker.
const file = fs.readdirSync(dir).find((f) => !before.has(f) && /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
if (!file) throw new Error('no profile written')
const what = [
  args.burst ? 'burst' : args.streams ? 'streams' : translated ? 'responses-translated' : responsesStream ? 'responses-stream' : 'chat',
  ...(args['log-bodies'] ? ['log-bodies'] : []),
].join('-')
const md = summarize(path.join(dir, file), Number(args.top), what, load)
fs.writeFileSync(path.join(ROOT, `bench/results/profile-${what}.md`), md)
process.stdout.write(md)
