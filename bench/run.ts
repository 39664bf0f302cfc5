/**
 * Gateway benchmark (`npm run bench`; not part of the tests). On 127.0.0.1 only, it starts a mock
 * OpenAI provider, this gateway as shipped (in a child process, twice: as configured by default
 * and with body logging on), Portkey's gateway as the peer and a bare Node proxy (bench/node-proxy.mjs:
 * what any Node hop adds here), and measures each against the direct path to the mock with one
 * load generator (bench/loadgen.ts), targets interleaved and rotated, after a warm-up, REPS
 * repetitions (five by default), medians reported.
 *   A  added latency, one request at a time (median of round medians), on chat completions and,
 *      in the same rounds, on every other wire: Anthropic's Messages API to an `anthropic`
 *      provider, the Responses API and Google's generateContent API to a `gemini` provider, the
 *      last two not streamed and streamed (the native paths); the Messages, Responses and
 *      generateContent APIs translated to chat completions; and embeddings
 *   B  closed loop at 10 and 50 connections, instant mock: req/s, p50/p99, CPU and peak RSS at each;
 *      then body logging's cost from rounds of each gateway and its logging twin back to back
 *   C  open loop at 100, 500 and 1,000 req/s against the 60 ms mock: added p50/p99
 *   D  200 concurrent streams, opened at once and kept open (each replaced as it ends): added time
 *      to first and last chunk, chunks lost
 * Writes bench/results/<name>.json and .md (default name: gateway-bench).
 * Options: --reps N  --quick (shorter runs)  --scenarios A,B,C,D  --name NAME  --no-peer
 *          --compare DIR [--compare-label L]: also run the gateway of another checkout (before/after)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { Pool } from 'undici'
import { closedLoop, makePool, median, openLoop, sequential, streams, sustainedStreams, type Stats, type StreamStats, type Target } from './loadgen'
import { cpuSeconds, httpReady, memoryMb, resetPeakRss, ROOT, startChild, type Child } from './procs'
import { CHAT_ONLY_PROVIDER, startGatewayChild, type GatewayChild } from './gateway-process'
import { buildApp } from '../test/support/build'
import { DELAY_MS, MOCK_GEMINI_MODELS, MOCK_MESSAGES_MODELS, MOCK_MODELS, STREAM_CHUNKS, STREAM_INTERVAL_MS } from './mock-provider'

const { values: args } = parseArgs({
  options: {
    /** Five, not three: a round's p99 (C) and TTFC (D) move with the machine's hiccups, and the median of five rides out two bad rounds. */
    reps: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    scenarios: { type: 'string', default: 'A,B,C,D' },
    name: { type: 'string', default: 'gateway-bench' },
    'no-peer': { type: 'boolean', default: false },
    'peer-port': { type: 'string', default: '0' },
    /** Another checkout (e.g. the code before an optimisation) to run as one more target, interleaved with this one. */
    compare: { type: 'string' },
    'compare-label': { type: 'string', default: 'gateway (before)' },
  },
})
const REPS = Number(args.reps)
const Q = args.quick
const SCEN = new Set(args.scenarios!.split(',').map((s) => s.trim().toUpperCase()))
const CFG = {
  aRequests: Q ? 150 : 300,
  /** Sequential requests per target before A's rounds: fewer leave the gateway's code half-compiled (added p50 0.65–0.74 ms after 300–700, 0.33–0.44 ms after 2,000–5,000). */
  aWarmup: Q ? 1000 : 3000,
  bSeconds: Q ? 2 : 4,
  bConnections: [10, 50],
  cSeconds: Q ? 2 : 3,
  cRates: [100, 500, 1000],
  dStreams: 200,
  dSustainSeconds: Q ? 2 : 3,
  /** Back-to-back rounds of each gateway and its logging twin, for logging's cost (B). */
  logPairs: Q ? 3 : 8,
  warmupMs: Q ? 800 : 1500,
}

const say = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`)
const round = (x: number, d = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : null)

// ---------- processes ----------
const children: Child[] = []
const cleanup = async () => {
  await Promise.all(children.map((c) => c.stop().catch(() => {})))
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)))

const freePort = async () => {
  const net = await import('node:net')
  return new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
}

say('building the app (skipped when out/ is newer than the sources)')
buildApp()
say('starting mock provider, gateways and peer')
const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
children.push(mock)
const mockUrl = mock.info.url
const nodeProxy = await startChild(['bench/node-proxy.mjs', '--upstream', mockUrl])
children.push(nodeProxy)
const gateway = await startGatewayChild(mockUrl, { root: ROOT, messages: true, gemini: true, chatOnly: true })
children.push(gateway)
const gatewayLogs = await startGatewayChild(mockUrl, { root: ROOT, logBodies: true, messages: true, gemini: true, chatOnly: true })
children.push(gatewayLogs)
let compare: GatewayChild | null = null
let compareLogs: GatewayChild | null = null
if (args.compare) {
  const dir = path.resolve(args.compare)
  compare = await startGatewayChild(mockUrl, { root: dir })
  compareLogs = await startGatewayChild(mockUrl, { root: dir, logBodies: true })
  children.push(compare, compareLogs)
}
let peer: Child | null = null
let peerUrl = ''
if (!args['no-peer']) {
  const port = Number(args['peer-port']) || (await freePort())
  peerUrl = `http://127.0.0.1:${port}`
  peer = await startChild(['node_modules/@portkey-ai/gateway/build/start-server.js', '--headless', `--port=${port}`], {
    ready: () => httpReady(peerUrl),
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  children.push(peer)
}

const json = { 'content-type': 'application/json' }
const targets: Array<Target & { pid?: number }> = [
  { name: 'direct', origin: mockUrl, path: '/v1/chat/completions', headers: { ...json, authorization: 'Bearer sk-mock-bench' } },
  {
    name: 'node proxy',
    origin: nodeProxy.info.url,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: 'Bearer sk-mock-bench' },
    pid: nodeProxy.pid,
  },
  { name: 'gateway', origin: gateway.url, path: '/v1/chat/completions', headers: { ...json, authorization: `Bearer ${gateway.key}` }, pid: gateway.pid },
  {
    name: 'gateway+logs',
    origin: gatewayLogs.url,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: `Bearer ${gatewayLogs.key}` },
    pid: gatewayLogs.pid,
  },
]
if (compare && compareLogs) {
  const label = args['compare-label']!
  targets.splice(2, 0, {
    name: label,
    origin: compare.url,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: `Bearer ${compare.key}` },
    pid: compare.pid,
  })
  targets.push({
    name: `${label}+logs`,
    origin: compareLogs.url,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: `Bearer ${compareLogs.key}` },
    pid: compareLogs.pid,
  })
}
if (peer) {
  targets.push({
    name: 'peer',
    origin: peerUrl,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: 'Bearer sk-mock-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${mockUrl}/v1` },
    pid: peer.pid,
  })
}
/** This checkout's gateways: the only targets that translate one wire to another. */
const GATEWAYS = new Set(['gateway', 'gateway+logs'])
/**
 * The targets with rows on the Messages and Gemini wires: direct to the mock, through the bare
 * proxy, and through this gateway natively to its `anthropic` and `gemini` providers. The peer
 * and a --compare checkout have none.
 */
const NATIVE_TARGETS = new Set(['direct', 'node proxy', ...GATEWAYS])
/** The same targets on /v1/messages, as Claude Code calls them (bearer key, anthropic-version). */
const messagesTargets = new Map(
  targets
    .filter((t) => NATIVE_TARGETS.has(t.name))
    .map((t) => [t.name, { ...t, path: '/v1/messages', headers: { ...t.headers, 'anthropic-version': '2023-06-01' } }]),
)
/** A target called as Gemini CLI and `@google/genai` call Google: the key in x-goog-api-key, at `models/{model}:{method}`. */
const asGoogleClient = (t: Target, model: string, method: string): Target => {
  const { authorization, ...headers } = t.headers
  return { ...t, path: `/v1beta/models/${model}:${method}`, headers: { ...headers, 'x-goog-api-key': authorization.slice('Bearer '.length) } }
}
const messages = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'Say hello in one short sentence.' },
]
/** The same turn on Anthropic's Messages API, as Claude Code sends it. */
const messagesBody = (model: string) =>
  JSON.stringify({ model, system: messages[0].content, messages: messages.slice(1), max_tokens: 64, metadata: { user_id: 'bench' } })
/** The same turn on the Responses API, as Codex sends it (streamed, as Codex always asks) or not, kept nowhere (`store: false`). */
const responsesBody = (model: string, stream: boolean) =>
  JSON.stringify({ model, instructions: messages[0].content, input: messages[1].content, max_output_tokens: 64, store: false, ...(stream ? { stream } : {}) })
const bodies = {
  instant: JSON.stringify({ model: MOCK_MODELS.instant, messages, max_tokens: 64, user: 'bench' }),
  messagesInstant: messagesBody(MOCK_MESSAGES_MODELS.instant),
  /** An OpenAI model on the Messages API: the gateway translates it to chat completions for the `openai` provider. */
  messagesTranslated: messagesBody(MOCK_MODELS.instant),
  delayed: JSON.stringify({ model: MOCK_MODELS.delayed, messages, max_tokens: 64, user: 'bench' }),
  stream: JSON.stringify({ model: MOCK_MODELS.stream, messages, max_tokens: 64, stream: true, stream_options: { include_usage: true } }),
  responses: responsesBody(MOCK_MODELS.instant, false),
  responsesStream: responsesBody(MOCK_MODELS.instant, true),
  /** To the provider that takes chat completions only: the gateway translates it. */
  responsesTranslated: responsesBody(`${CHAT_ONLY_PROVIDER}/${MOCK_MODELS.instant}`, false),
  embeddings: JSON.stringify({ model: MOCK_MODELS.embeddings, input: messages[1].content }),
  /** Google's wire names the model and whether to stream in the path: one body for all its rows. */
  gemini: JSON.stringify({
    systemInstruction: { parts: [{ text: messages[0].content }] },
    contents: [{ role: 'user', parts: [{ text: messages[1].content }] }],
    generationConfig: { maxOutputTokens: 64 },
  }),
}

/** Scenario A's wires beyond chat, in the report's order: each one's row label and results key. */
const A_WIRES = [
  { wire: 'messages', key: 'A_messages', label: 'Messages (native)' },
  { wire: 'messagesTranslated', key: 'A_messages_translated', label: 'Messages (translated to chat)' },
  { wire: 'responses', key: 'A_responses', label: 'Responses (native)' },
  { wire: 'responsesTranslated', key: 'A_responses_translated', label: 'Responses (translated to chat)' },
  { wire: 'responsesStream', key: 'A_responses_stream', label: 'Responses streamed (native)' },
  { wire: 'gemini', key: 'A_gemini', label: 'Gemini (native)' },
  { wire: 'geminiStream', key: 'A_gemini_stream', label: 'Gemini streamed (native)' },
  { wire: 'geminiTranslated', key: 'A_gemini_translated', label: 'Gemini (translated to chat)' },
  { wire: 'embeddings', key: 'A_embeddings', label: 'Embeddings' },
] as const

/** Each repetition visits the targets in a rotated order so none always runs first or last. */
const rotation = (rep: number) => targets.map((_, i) => targets[(i + rep) % targets.length])

const pools = new Map<string, Pool>()
const pool = (t: Target, connections: number) => {
  const k = `${t.name}:${connections}`
  let p = pools.get(k)
  if (!p) pools.set(k, (p = makePool(t.origin, connections)))
  return p
}

const results: Record<string, unknown> = {}
const started = Date.now()

// ---------- A: one request at a time ----------
if (SCEN.has('A')) {
  say(
    `A: ${CFG.aWarmup} sequential requests to warm up, then ${CFG.aRequests} x ${REPS} rounds per target and wire (chat, ${A_WIRES.map((w) => w.label).join(', ')})`,
  )
  type Wire = 'chat' | (typeof A_WIRES)[number]['wire']
  type WireCall = { target: Target; body: string } | null
  /**
   * A target's other wires, where it carries them: the native Messages, Responses and Gemini
   * paths and embeddings (the peer speaks chat completions only), and the Messages, Responses and
   * Gemini wires translated onto the mock's chat completions, through this gateway only (a bare
   * proxy cannot translate); a translated row's direct path is the chat request it becomes, the
   * floor its added latency is measured from.
   */
  const otherWires = (t: Target): Record<Exclude<Wire, 'chat'>, WireCall> => {
    const m = messagesTargets.get(t.name)
    const native = NATIVE_TARGETS.has(t.name)
    const openai = t.name !== 'peer'
    const responses = { ...t, path: '/v1/responses' }
    const translated = (target: Target, body: string): WireCall =>
      t.name === 'direct' ? { target: t, body: bodies.instant } : GATEWAYS.has(t.name) ? { target, body } : null
    return {
      messages: m ? { target: m, body: bodies.messagesInstant } : null,
      messagesTranslated: m ? translated(m, bodies.messagesTranslated) : null,
      responses: openai ? { target: responses, body: bodies.responses } : null,
      responsesTranslated: translated(responses, bodies.responsesTranslated),
      responsesStream: openai ? { target: responses, body: bodies.responsesStream } : null,
      gemini: native ? { target: asGoogleClient(t, MOCK_GEMINI_MODELS.instant, 'generateContent'), body: bodies.gemini } : null,
      geminiStream: native ? { target: asGoogleClient(t, MOCK_GEMINI_MODELS.instant, 'streamGenerateContent?alt=sse'), body: bodies.gemini } : null,
      geminiTranslated: translated(asGoogleClient(t, MOCK_MODELS.instant, 'generateContent'), bodies.gemini),
      embeddings: openai ? { target: { ...t, path: '/v1/embeddings' }, body: bodies.embeddings } : null,
    }
  }
  const wiresOf = (t: Target): Array<{ wire: Wire; target: Target; body: string }> => {
    const n = otherWires(t)
    return [{ wire: 'chat' as const, target: t, body: bodies.instant }, ...A_WIRES.flatMap(({ wire }) => (n[wire] ? [{ wire, ...n[wire] }] : []))]
  }
  const rounds = Object.fromEntries(['chat', ...A_WIRES.map((w) => w.wire)].map((w) => [w, {}])) as Record<Wire, Record<string, Stats[]>>
  // A pool per wire: a target's requests on one wire do not share another wire's connection.
  const wirePool = (t: Target, wire: Wire) => pool(wire === 'chat' ? t : { ...t, name: `${t.name} (${wire})` }, 1)
  for (const t of targets) for (const w of wiresOf(t)) await sequential(wirePool(w.target, w.wire), w.target, w.body, CFG.aWarmup)
  for (let rep = 0; rep < REPS; rep++) {
    for (const t of rotation(rep)) {
      // Each target's wires back to back, the order rotating, so the machine's drift falls on all of them.
      const ws = wiresOf(t)
      for (let i = 0; i < ws.length; i++) {
        const w = ws[(i + rep) % ws.length]
        ;(rounds[w.wire][t.name] ??= []).push(await sequential(wirePool(w.target, w.wire), w.target, w.body, CFG.aRequests))
      }
    }
  }
  const summary = (r: Record<string, Stats[]>, name: string) => {
    const p50 = (n: string) => median(r[n].map((x) => x.p50))
    const p99 = (n: string) => median(r[n].map((x) => x.p99))
    return {
      p50_ms: round(p50(name), 3),
      p99_ms: round(p99(name), 3),
      added_p50_ms: round(p50(name) - p50('direct'), 3),
      added_p99_ms: round(p99(name) - p99('direct'), 3),
      errors: r[name].reduce((s, x) => s + x.errors, 0),
      firstError: r[name].find((x) => x.firstError)?.firstError,
      rounds: r[name],
    }
  }
  const chatA = Object.fromEntries(targets.map((t) => [t.name, summary(rounds.chat, t.name)]))
  results.A = chatA
  /** Another wire's summary, with its added latency as a multiple of chat's in the same rounds. */
  const versusChat = (wire: Wire) =>
    Object.fromEntries(
      Object.keys(rounds[wire]).map((n) => {
        const m = summary(rounds[wire], n)
        const chatAdded = chatA[n].added_p50_ms
        return [n, { ...m, added_p50_vs_chat: n === 'direct' || m.added_p50_ms === null || !chatAdded ? null : round(m.added_p50_ms / chatAdded, 2) }]
      }),
    )
  for (const w of A_WIRES) results[w.key] = versusChat(w.wire)
}

// ---------- B: closed loop ----------
if (SCEN.has('B')) {
  const B: Record<string, Record<string, unknown>> = {}
  for (const c of CFG.bConnections) {
    say(`B: ${c} connections, ${CFG.bSeconds} s x ${REPS} per target`)
    const runs: Record<string, Array<Stats & { cpu_pct?: number }>> = Object.fromEntries(targets.map((t) => [t.name, []]))
    for (const t of targets) if (t.pid) resetPeakRss(t.pid)
    for (const t of targets) await closedLoop(pool(t, c), t, bodies.instant, c, CFG.warmupMs)
    for (let rep = 0; rep < REPS; rep++) {
      for (const t of rotation(rep)) {
        const cpu0 = t.pid ? cpuSeconds(t.pid) : 0
        const s: Stats & { cpu_pct?: number } = await closedLoop(pool(t, c), t, bodies.instant, c, CFG.bSeconds * 1000)
        if (t.pid) s.cpu_pct = ((cpuSeconds(t.pid) - cpu0) / s.seconds) * 100
        runs[t.name].push(s)
      }
    }
    B[`c${c}`] = Object.fromEntries(
      targets.map((t) => {
        const r = runs[t.name]
        return [
          t.name,
          {
            rps: round(median(r.map((x) => x.rps)), 0),
            p50_ms: round(median(r.map((x) => x.p50)), 3),
            p99_ms: round(median(r.map((x) => x.p99)), 3),
            cpu_pct: t.pid ? round(median(r.map((x) => x.cpu_pct!)), 0) : null,
            peak_rss_mb: t.pid ? round(memoryMb(t.pid).peak, 0) : null,
            errors: r.reduce((s, x) => s + x.errors, 0),
            firstError: r.find((x) => x.firstError)?.firstError,
            runs: r,
          },
        ]
      }),
    )
  }
  // Logging's cost from paired rounds: each logging gateway right after or before its plain
  // twin, the order alternating, so the machine's drift cancels. B's rounds of the two are
  // further apart, and this machine's direct path moved by 40 % within one of its scenarios.
  const c = CFG.bConnections[0]
  say(`B: body logging, ${CFG.logPairs} paired rounds of ${CFG.bSeconds} s at ${c} connections`)
  const logging: Record<string, { cost_pct: number | null; pair_pcts: Array<number | null> }> = {}
  for (const logged of targets.filter((t) => t.name.endsWith('+logs'))) {
    const plain = targets.find((t) => t.name === logged.name.slice(0, -'+logs'.length))!
    const losses: number[] = []
    for (let i = 0; i < CFG.logPairs; i++) {
      const rps = new Map<Target, number>()
      for (const t of i % 2 ? [logged, plain] : [plain, logged]) rps.set(t, (await closedLoop(pool(t, c), t, bodies.instant, c, CFG.bSeconds * 1000)).rps)
      losses.push((1 - rps.get(logged)! / rps.get(plain)!) * 100)
    }
    logging[logged.name] = { cost_pct: round(median(losses), 1), pair_pcts: losses.map((x) => round(x, 1)) }
  }
  B.logging = logging
  results.B = B
}

// ---------- C: open loop against the 60 ms mock ----------
if (SCEN.has('C')) {
  const C: Record<string, unknown> = {}
  for (const rate of CFG.cRates) {
    say(`C: ${rate} req/s, ${CFG.cSeconds} s x ${REPS} per target`)
    const runs: Record<string, Array<Stats & { achievedRps: number }>> = Object.fromEntries(targets.map((t) => [t.name, []]))
    for (const t of targets) await openLoop(pool(t, 256), t, bodies.delayed, rate, CFG.warmupMs)
    for (let rep = 0; rep < REPS; rep++)
      for (const t of rotation(rep)) runs[t.name].push(await openLoop(pool(t, 256), t, bodies.delayed, rate, CFG.cSeconds * 1000))
    const p = (n: string, k: 'p50' | 'p99') => median(runs[n].map((x) => x[k]))
    C[`r${rate}`] = Object.fromEntries(
      targets.map((t) => [
        t.name,
        {
          p50_ms: round(p(t.name, 'p50')),
          p99_ms: round(p(t.name, 'p99')),
          added_p50_ms: round(p(t.name, 'p50') - p('direct', 'p50')),
          added_p99_ms: round(p(t.name, 'p99') - p('direct', 'p99')),
          achieved_rps: round(median(runs[t.name].map((x) => x.achievedRps)), 0),
          errors: runs[t.name].reduce((s, x) => s + x.errors, 0),
          firstError: runs[t.name].find((x) => x.firstError)?.firstError,
          runs: runs[t.name],
        },
      ]),
    )
  }
  results.C = C
}

// ---------- D: concurrent streams ----------
/** Runs one way of driving streams for every target, interleaved, and reports it as D does. */
async function streamScenario(drive: (p: Pool, t: Target) => Promise<StreamStats>) {
  const runs: Record<string, StreamStats[]> = Object.fromEntries(targets.map((t) => [t.name, []]))
  for (const t of targets) await drive(pool(t, 256), t)
  for (let rep = 0; rep < REPS; rep++) for (const t of rotation(rep)) runs[t.name].push(await drive(pool(t, 256), t))
  const m = (n: string, k: 'ttfcP50' | 'ttfcP99' | 'ttlcP50' | 'ttlcP99') => median(runs[n].map((x) => x[k]))
  return Object.fromEntries(
    targets.map((t) => {
      const r = runs[t.name]
      return [
        t.name,
        {
          ttfc_p50_ms: round(m(t.name, 'ttfcP50'), 3),
          ttfc_p99_ms: round(m(t.name, 'ttfcP99'), 3),
          ttlc_p50_ms: round(m(t.name, 'ttlcP50'), 3),
          added_ttfc_p50_ms: round(m(t.name, 'ttfcP50') - m('direct', 'ttfcP50'), 3),
          added_ttfc_p99_ms: round(m(t.name, 'ttfcP99') - m('direct', 'ttfcP99'), 3),
          added_ttlc_p50_ms: round(m(t.name, 'ttlcP50') - m('direct', 'ttlcP50'), 3),
          streams: r.reduce((s, x) => s + x.streams, 0),
          failed: r.reduce((s, x) => s + x.failed, 0),
          incomplete: r.reduce((s, x) => s + x.incomplete, 0),
          chunks_lost: r.reduce((s, x) => s + x.chunksExpected - x.chunksReceived, 0),
          firstError: r.find((x) => x.firstError)?.firstError,
          runs: r,
        },
      ]
    }),
  )
}

if (SCEN.has('D')) {
  say(`D: ${CFG.dStreams} streams of ${STREAM_CHUNKS} chunks every ${STREAM_INTERVAL_MS} ms opened at once, x ${REPS} per target`)
  results.D = await streamScenario((p, t) => streams(p, t, bodies.stream, CFG.dStreams, STREAM_CHUNKS))
  say(`D: ${CFG.dStreams} streams kept open for ${CFG.dSustainSeconds} s (each replaced as it ends), x ${REPS} per target`)
  const streamMs = STREAM_CHUNKS * STREAM_INTERVAL_MS
  results.D_sustained = await streamScenario((p, t) => sustainedStreams(p, t, bodies.stream, CFG.dStreams, STREAM_CHUNKS, streamMs, CFG.dSustainSeconds * 1000))
}

const rssEnd = Object.fromEntries(targets.filter((t) => t.pid).map((t) => [t.name, round(memoryMb(t.pid!).rss, 0)]))
for (const p of pools.values()) await p.close()
await cleanup()

// ---------- report ----------
const pkg = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string
const meta = {
  date: new Date().toISOString(),
  duration_s: Math.round((Date.now() - started) / 1000),
  machine: {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
  },
  versions: {
    node: process.version,
    gateway: JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
    peer: `@portkey-ai/gateway ${pkg('@portkey-ai/gateway')}`,
    fastify: pkg('fastify'),
    undici: pkg('undici'),
    'better-sqlite3': pkg('better-sqlite3'),
  },
  config: { ...CFG, reps: REPS, mock_delay_ms: DELAY_MS, stream_chunks: STREAM_CHUNKS, stream_interval_ms: STREAM_INTERVAL_MS },
  rss_end_mb: rssEnd,
}
const report = { ...meta, results }
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true })
fs.writeFileSync(path.join(ROOT, `bench/results/${args.name}.json`), JSON.stringify(report, null, 2) + '\n')
const md = markdown(report)
fs.writeFileSync(path.join(ROOT, `bench/results/${args.name}.md`), md)
process.stdout.write(md)
process.exit(0)

function markdown(r: typeof report): string {
  const R = r.results as any
  const names = targets.map((t) => t.name)
  const f = (x: unknown, d = 2) => (typeof x === 'number' ? x.toFixed(d) : 'n/a')
  const lines: string[] = []
  lines.push(
    `Measured ${r.date.slice(0, 10)} on ${r.machine.cpus} × ${r.machine.cpu_model} (${r.machine.platform}), Node ${r.versions.node}; peer ${r.versions.peer}. Load generator, mock and gateway share the cores. Medians of ${REPS} interleaved repetitions after warm-up.`,
  )
  lines.push('')
  lines.push(`| Scenario | ${names.join(' | ')} |`)
  lines.push(`|---|${names.map(() => '---').join('|')}|`)
  const row = (label: string, cell: (n: string) => string) => lines.push(`| ${label} | ${names.map(cell).join(' | ')} |`)
  if (R.A) {
    row('A: p50, one at a time (ms)', (n) => f(R.A[n].p50_ms, 3))
    row('A: **added p50** (ms)', (n) => (n === 'direct' ? '—' : f(R.A[n].added_p50_ms, 3)))
    const wireRows = (M: Record<string, { p50_ms: number; added_p50_ms: number; added_p50_vs_chat: number | null; errors: number }>, label: string) => {
      const err = (n: string) => (M[n]?.errors ? ` (${M[n].errors} err)` : '')
      row(`A: p50, ${label}, one at a time (ms)`, (n) => (M[n] ? `${f(M[n].p50_ms, 3)}${err(n)}` : '—'))
      row(`A: **added p50, ${label}** (ms; × chat's)`, (n) => (n === 'direct' || !M[n] ? '—' : `${f(M[n].added_p50_ms, 3)} (${f(M[n].added_p50_vs_chat)}×)`))
    }
    for (const w of A_WIRES) wireRows(R[w.key], w.label)
  }
  if (R.B) {
    for (const c of CFG.bConnections) {
      const b = R.B[`c${c}`]
      row(`B: req/s @${c} conns`, (n) => `${f(b[n].rps, 0)}${b[n].errors ? ` (${b[n].errors} err)` : ''}`)
      row(`B: p50 / p99 @${c} (ms)`, (n) => `${f(b[n].p50_ms)} / ${f(b[n].p99_ms)}`)
      row(`B: CPU of process @${c}`, (n) => (b[n].cpu_pct === null ? '—' : `${f(b[n].cpu_pct, 0)} %`))
      row(`B: peak RSS @${c} (MB)`, (n) => (b[n].peak_rss_mb === null ? '—' : f(b[n].peak_rss_mb, 0)))
    }
    const L = R.B.logging
    row(`B: **cost of body logging**, ${CFG.logPairs} paired rounds @${CFG.bConnections[0]}: median (range)`, (n) =>
      L[n] ? `${f(L[n].cost_pct, 1)} % (${f(Math.min(...L[n].pair_pcts), 1)} to ${f(Math.max(...L[n].pair_pcts), 1)})` : '—',
    )
  }
  if (R.C) {
    for (const rate of CFG.cRates) {
      const c = R.C[`r${rate}`]
      row(`C: ${rate} req/s, 60 ms mock: p50 / p99 (ms)`, (n) => `${f(c[n].p50_ms)} / ${f(c[n].p99_ms)}${c[n].errors ? ` (${c[n].errors} err)` : ''}`)
      row(`C: ${rate} req/s: **added** p50 / p99 (ms)`, (n) => (n === 'direct' ? '—' : `${f(c[n].added_p50_ms)} / ${f(c[n].added_p99_ms)}`))
    }
  }
  const streamRows = (D: any, how: string) => {
    row(`D: TTFC p50 / p99, ${how} (ms)`, (n) => (D[n].failed ? 'failed' : `${f(D[n].ttfc_p50_ms)} / ${f(D[n].ttfc_p99_ms)}`))
    row(`D: **added TTFC** p50 / p99, ${how} (ms)`, (n) =>
      n === 'direct' ? '—' : D[n].failed ? 'failed' : `${f(D[n].added_ttfc_p50_ms)} / ${f(D[n].added_ttfc_p99_ms)}`,
    )
    row(`D: time to last chunk p50, ${how} (ms)`, (n) => (D[n].failed ? 'failed' : f(D[n].ttlc_p50_ms, 1)))
    row(`D: streams / failed / incomplete / chunks lost, ${how}`, (n) => `${D[n].streams} / ${D[n].failed} / ${D[n].incomplete} / ${D[n].chunks_lost}`)
  }
  if (R.D) streamRows(R.D, `${CFG.dStreams} opened at once`)
  if (R.D_sustained) streamRows(R.D_sustained, `${CFG.dStreams} kept open`)
  lines.push('')
  const notes: string[] = []
  for (const n of names) {
    const errs = [
      ...A_WIRES.map((w) => R[w.key]?.[n]?.firstError),
      R.B && R.B.c10[n]?.firstError,
      R.C && R.C.r100[n]?.firstError,
      R.D && R.D[n]?.firstError,
    ].filter(Boolean)
    if (errs.length) notes.push(`- ${n}: first error seen: \`${String(errs[0]).replace(/`/g, "'").slice(0, 160)}\``)
  }
  if (notes.length) lines.push(...notes, '')
  return lines.join('\n') + '\n'
}
