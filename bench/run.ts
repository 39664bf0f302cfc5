/**
 * Gateway benchmark (`npm run bench`; not part of the tests). On 127.0.0.1 only, it starts a mock
 * OpenAI provider, this gateway as shipped (in a child process, twice: as configured by default
 * and with body logging on), Portkey's gateway as the peer, a bare Node proxy (bench/node-proxy.mjs:
 * what any Node hop adds here) and the duty floor (bench/duty-proxy.ts: a Fastify proxy that only
 * checks the key and prices, records and logs each request, as the gateway must; chat completions
 * only), and measures each against the direct path to the mock with one
 * load generator (bench/loadgen.ts), targets interleaved and rotated, after a warm-up, REPS
 * repetitions (five by default), medians reported.
 *   A  added latency, one request at a time (median of round medians), on chat completions and,
 *      in the same rounds, on every other wire: Anthropic's Messages API to an `anthropic`
 *      provider, the Responses API and Google's generateContent API to a `gemini` provider, the
 *      last two not streamed and streamed (the native paths); the Messages, Responses and
 *      generateContent APIs translated to chat completions; and embeddings
 *   B  closed loop at 10 and 50 connections, instant mock: req/s, p50/p99, CPU and peak RSS at each;
 *      at 10 also every other wire (Messages and Responses native and translated to chat, Gemini
 *      native, embeddings), each target's wires back to back in every round; then, from paired
 *      rounds at 10 connections, the cost of body logging (each gateway and its logging twin), of
 *      logging at info to a file (the gateway and a twin at `--log-level silent`) and of a prepaid
 *      key (the gateway's free key and its prepaid one)
 *   C  open loop at 100, 500 and 1,000 req/s against the 60 ms mock: added p50/p99
 *   D  concurrent streams: 200 and 1,000 opened at once (the thousand after three warm-up rounds),
 *      200 kept open (each replaced as it ends):
 *      time to first and last chunk, added to direct's, chunks lost
 * Writes bench/results/<name>.json and .md (default name: gateway-bench), the .md ending with
 * issue 30's targets: each one's figure for the gateway, the bare proxy and the duty floor, whether
 * the gateway meets it and whether the duty floor itself does.
 * Options: --reps N  --quick (shorter runs)  --scenarios A,B,C,D  --name NAME  --no-peer
 *          --compare DIR [--compare-label L]: also run the gateway of another checkout (before/after)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { Pool } from 'undici'
import { closedLoop, makePool, median, openLoop, sequential, streams, sustainedStreams, type Stats, type StreamStats, type Target } from './loadgen'
import { cpuSeconds, httpReady, memoryMb, resetPeakRss, ROOT, startChild, startDutyProxy, type Child } from './procs'
import { CHAT_ONLY_PROVIDER, startGatewayChild, type GatewayChild } from './gateway-process'
import { buildApp } from '../test/support/build'
import { DELAY_MS, MOCK_GEMINI_MODELS, MOCK_MESSAGES_MODELS, MOCK_MODELS, STREAM_CHUNKS, STREAM_INTERVAL_MS } from './mock-provider'
import { agentTurnBody, chatBody, geminiBody, messages, messagesBody, responsesBody } from './turn'

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
  /** Streams opened at once in D's larger burst; every target's pool (and the bare proxy's upstream pool) holds as many connections. */
  dBurstStreams: 1000,
  dSustainSeconds: Q ? 2 : 3,
  /** Back-to-back rounds of two twins (body logging, the log file, a prepaid key), for what one costs beyond the other (B). */
  pairs: Q ? 3 : 8,
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
const dutyProxy = await startDutyProxy(mockUrl)
children.push(dutyProxy)
/** With a prepaid key beside its free one, its balance too large to run out (B's prepaid pairs). */
const gateway = await startGatewayChild(mockUrl, { root: ROOT, messages: true, gemini: true, chatOnly: true, prepaidUsd: 1_000_000 })
children.push(gateway)
const gatewayLogs = await startGatewayChild(mockUrl, { root: ROOT, logBodies: true, messages: true, gemini: true, chatOnly: true })
children.push(gatewayLogs)
/** The gateway logging nothing, for what its log file costs (B's pairs only: it serves chat alone). */
const gatewaySilent = SCEN.has('B') ? await startGatewayChild(mockUrl, { root: ROOT, logLevel: 'silent' }) : null
if (gatewaySilent) children.push(gatewaySilent)
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
/** The duty floor's target: chat completions only, whole and streamed. */
const DUTY = 'duty floor'
/** A gateway child called on chat completions with one of its keys (its free key unless told). */
const chatTarget = (name: string, g: GatewayChild, key = g.key): Target & { pid: number } => ({
  name,
  origin: g.url,
  path: '/v1/chat/completions',
  headers: { ...json, authorization: `Bearer ${key}` },
  pid: g.pid,
})
const targets: Array<Target & { pid?: number }> = [
  { name: 'direct', origin: mockUrl, path: '/v1/chat/completions', headers: { ...json, authorization: 'Bearer sk-mock-bench' } },
  {
    name: 'node proxy',
    origin: nodeProxy.info.url,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: 'Bearer sk-mock-bench' },
    pid: nodeProxy.pid,
  },
  {
    name: DUTY,
    origin: dutyProxy.info.url,
    path: '/v1/chat/completions',
    headers: { ...json, authorization: `Bearer ${dutyProxy.info.key}` },
    pid: dutyProxy.pid,
  },
  chatTarget('gateway', gateway),
  chatTarget('gateway+logs', gatewayLogs),
]
if (compare && compareLogs) {
  const label = args['compare-label']!
  targets.splice(2, 0, chatTarget(label, compare))
  targets.push(chatTarget(`${label}+logs`, compareLogs))
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
/** The same turn on Anthropic's Messages API, as Claude Code sends it. */
const claudeCodeBody = (model: string) => messagesBody(model, { user_id: 'bench' })
const bodies = {
  instant: chatBody(MOCK_MODELS.instant),
  messagesInstant: claudeCodeBody(MOCK_MESSAGES_MODELS.instant),
  /** Forty exchanges into a Claude Code session: ~200 KB, where the gateway's cost goes with the body's size. */
  agentTurn: agentTurnBody(MOCK_MESSAGES_MODELS.instant),
  /** An OpenAI model on the Messages API: the gateway translates it to chat completions for the `openai` provider. */
  messagesTranslated: claudeCodeBody(MOCK_MODELS.instant),
  delayed: chatBody(MOCK_MODELS.delayed),
  stream: JSON.stringify({ model: MOCK_MODELS.stream, messages, max_tokens: 64, stream: true, stream_options: { include_usage: true } }),
  responses: responsesBody(MOCK_MODELS.instant, false),
  responsesStream: responsesBody(MOCK_MODELS.instant, true),
  /** To the provider that takes chat completions only: the gateway translates it. */
  responsesTranslated: responsesBody(`${CHAT_ONLY_PROVIDER}/${MOCK_MODELS.instant}`, false),
  embeddings: JSON.stringify({ model: MOCK_MODELS.embeddings, input: messages[1].content }),
  gemini: geminiBody,
}

/** Scenario A's wires beyond chat, in the report's order: each one's row label and results key. */
const A_WIRES = [
  { wire: 'messages', key: 'A_messages', label: 'Messages (native)' },
  { wire: 'messagesTranslated', key: 'A_messages_translated', label: 'Messages (translated to chat)' },
  { wire: 'agentTurn', key: 'A_agent_turn', label: "Messages (native), a coding agent's 200 KB turn" },
  { wire: 'responses', key: 'A_responses', label: 'Responses (native)' },
  { wire: 'responsesTranslated', key: 'A_responses_translated', label: 'Responses (translated to chat)' },
  { wire: 'responsesStream', key: 'A_responses_stream', label: 'Responses streamed (native)' },
  { wire: 'gemini', key: 'A_gemini', label: 'Gemini (native)' },
  { wire: 'geminiStream', key: 'A_gemini_stream', label: 'Gemini streamed (native)' },
  { wire: 'geminiTranslated', key: 'A_gemini_translated', label: 'Gemini (translated to chat)' },
  { wire: 'embeddings', key: 'A_embeddings', label: 'Embeddings' },
] as const
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
  const openai = t.name !== 'peer' && t.name !== DUTY
  const responses = { ...t, path: '/v1/responses' }
  const translated = (target: Target, body: string): WireCall =>
    t.name === 'direct' ? { target: t, body: bodies.instant } : GATEWAYS.has(t.name) ? { target, body } : null
  return {
    messages: m ? { target: m, body: bodies.messagesInstant } : null,
    agentTurn: m ? { target: m, body: bodies.agentTurn } : null,
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
/** A target's chat and, of `wires`, those it carries. */
const wiresOf = (t: Target, wires: ReadonlyArray<{ wire: Exclude<Wire, 'chat'> }>): Array<{ wire: Wire; target: Target; body: string }> => {
  const n = otherWires(t)
  return [{ wire: 'chat' as const, target: t, body: bodies.instant }, ...wires.flatMap(({ wire }) => (n[wire] ? [{ wire, ...n[wire] }] : []))]
}
/** The wires the gateway translates onto chat completions (`otherWires`' translated calls). */
const TRANSLATED: ReadonlySet<Wire> = new Set(['messagesTranslated', 'responsesTranslated', 'geminiTranslated'])
/** Scenario B's wires beyond chat, at its first connection count: A's whole answers, but for Gemini translated. */
const B_WIRES = A_WIRES.filter((w) =>
  (['messages', 'messagesTranslated', 'responses', 'responsesTranslated', 'gemini', 'embeddings'] as Wire[]).includes(w.wire),
)

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
/**
 * The coding agent's turn runs after every other scenario, not among A's wires: its 200 KB bodies
 * leave the gateway's heap larger (a scratch run: resident 139 MB before 1,300 turns, 163–171 MB
 * after, 219–225 MB at the peak while they ran), which B's peak RSS at 50 connections would
 * otherwise count (166 MB in the run that had it among A's wires, against 150 before it was added).
 */
const A_LAST: ReadonlySet<Wire> = new Set(['agentTurn'])
type ARounds = Record<Wire, Record<string, Stats[]>>
/**
 * A's warm-up and rounds of `wires`, and of chat unless `withChat` is false, every target's wires
 * back to back, the order rotating.
 */
async function sequentialRounds(wires: ReadonlyArray<(typeof A_WIRES)[number]>, withChat = true): Promise<ARounds> {
  const rounds = Object.fromEntries(['chat', ...wires.map((w) => w.wire)].map((w) => [w, {}])) as ARounds
  // A pool per wire: a target's requests on one wire do not share another wire's connection.
  const wirePool = (t: Target, wire: Wire) => pool(wire === 'chat' ? t : { ...t, name: `${t.name} (${wire})` }, 1)
  const callsOf = (t: Target) => wiresOf(t, wires).filter((w) => withChat || w.wire !== 'chat')
  for (const t of targets) for (const w of callsOf(t)) await sequential(wirePool(w.target, w.wire), w.target, w.body, CFG.aWarmup)
  for (let rep = 0; rep < REPS; rep++) {
    for (const t of rotation(rep)) {
      // Each target's wires back to back, the order rotating, so the machine's drift falls on all of them.
      const ws = callsOf(t)
      for (let i = 0; i < ws.length; i++) {
        const w = ws[(i + rep) % ws.length]
        ;(rounds[w.wire][t.name] ??= []).push(await sequential(wirePool(w.target, w.wire), w.target, w.body, CFG.aRequests))
      }
    }
  }
  return rounds
}
function aSummary(r: Record<string, Stats[]>, name: string) {
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
/** A wire's summary, with its added latency as a multiple of chat's (`chatA`, the same rounds' or A's). */
const versusChat = (r: Record<string, Stats[]>, chatA: Record<string, ReturnType<typeof aSummary>>) =>
  Object.fromEntries(
    Object.keys(r).map((n) => {
      const m = aSummary(r, n)
      const chatAdded = chatA[n]?.added_p50_ms
      return [n, { ...m, added_p50_vs_chat: n === 'direct' || m.added_p50_ms === null || !chatAdded ? null : round(m.added_p50_ms / chatAdded, 2) }]
    }),
  )

if (SCEN.has('A')) {
  const wires = A_WIRES.filter((w) => !A_LAST.has(w.wire))
  say(
    `A: ${CFG.aWarmup} sequential requests to warm up, then ${CFG.aRequests} x ${REPS} rounds per target and wire (chat, ${wires.map((w) => w.label).join(', ')})`,
  )
  const rounds = await sequentialRounds(wires)
  const chatA = Object.fromEntries(targets.map((t) => [t.name, aSummary(rounds.chat, t.name)]))
  results.A = chatA
  for (const w of wires) results[w.key] = versusChat(rounds[w.wire], chatA)
}

// ---------- B: closed loop ----------
type PairedCost = { cost_pct: number | null; pair_pcts: Array<number | null> }
/**
 * What `b` costs beyond its twin `a`, in % of a's req/s, from paired rounds at `c` connections:
 * each round of one right after or before one of the other, the order alternating, so the
 * machine's drift cancels. B's rounds of two targets are further apart, and this machine's direct
 * path moved by 40 % within one of its scenarios.
 */
async function pairedCost(a: Target, b: Target, c: number): Promise<PairedCost> {
  const losses: number[] = []
  for (let i = 0; i < CFG.pairs; i++) {
    const rps = new Map<Target, number>()
    for (const t of i % 2 ? [b, a] : [a, b]) rps.set(t, (await closedLoop(pool(t, c), t, bodies.instant, c, CFG.bSeconds * 1000)).rps)
    losses.push((1 - rps.get(b)! / rps.get(a)!) * 100)
  }
  return { cost_pct: round(median(losses), 1), pair_pcts: losses.map((x) => round(x, 1)) }
}

if (SCEN.has('B')) {
  type Run = Stats & { cpu_pct?: number }
  const B: Record<string, Record<string, unknown>> = {}
  const stats = (r: Run[], pid: number | undefined) => ({
    rps: round(median(r.map((x) => x.rps)), 0),
    p50_ms: round(median(r.map((x) => x.p50)), 3),
    p99_ms: round(median(r.map((x) => x.p99)), 3),
    cpu_pct: pid ? round(median(r.map((x) => x.cpu_pct!)), 0) : null,
    errors: r.reduce((s, x) => s + x.errors, 0),
    firstError: r.find((x) => x.firstError)?.firstError,
    runs: r,
  })
  /** Each target's req/s on a row as a share of the bare proxy's on the same request (none for the two floors). */
  const vsProxy = (n: string, rps: number | null, proxyRps: number | null) =>
    n === 'direct' || n === 'node proxy' || rps === null || !proxyRps ? null : round(rps / proxyRps, 2)
  for (const c of CFG.bConnections) {
    // At the first count, each target's other wires too, back to back with its chat in every round,
    // their order rotating as in A. A translated wire runs through the gateways alone: for direct
    // and the bare proxy it is the chat request it becomes, their chat row.
    const wires = c === CFG.bConnections[0] ? B_WIRES : []
    const callsOf = (t: Target) => wiresOf(t, wires).filter((w) => !TRANSLATED.has(w.wire) || GATEWAYS.has(t.name))
    say(`B: ${c} connections, ${CFG.bSeconds} s x ${REPS} per target and wire (chat${wires.map((w) => `, ${w.label}`).join('')})`)
    const runs: Partial<Record<Wire, Record<string, Run[]>>> = {}
    for (const t of targets) if (t.pid) resetPeakRss(t.pid)
    for (const t of targets) for (const w of callsOf(t)) await closedLoop(pool(t, c), w.target, w.body, c, CFG.warmupMs)
    for (let rep = 0; rep < REPS; rep++) {
      for (const t of rotation(rep)) {
        const ws = callsOf(t)
        for (let i = 0; i < ws.length; i++) {
          const w = ws[(i + rep) % ws.length]
          const cpu0 = t.pid ? cpuSeconds(t.pid) : 0
          const s: Run = await closedLoop(pool(t, c), w.target, w.body, c, CFG.bSeconds * 1000)
          if (t.pid) s.cpu_pct = ((cpuSeconds(t.pid) - cpu0) / s.seconds) * 100
          ;((runs[w.wire] ??= {})[t.name] ??= []).push(s)
        }
      }
    }
    const chat = Object.fromEntries(
      targets.map((t) => [t.name, { ...stats(runs.chat![t.name], t.pid), peak_rss_mb: t.pid ? round(memoryMb(t.pid).peak, 0) : null }]),
    )
    const proxyChatRps = chat['node proxy'].rps
    B[`c${c}`] = Object.fromEntries(targets.map((t) => [t.name, { ...chat[t.name], rps_vs_proxy: vsProxy(t.name, chat[t.name].rps, proxyChatRps) }]))
    for (const { wire } of wires) {
      const measured = runs[wire]!
      // A translated wire's floors are direct's and the bare proxy's chat row: the request the translation becomes.
      const floors = TRANSLATED.has(wire) ? ['direct', 'node proxy'] : []
      const row: Record<string, { rps: number | null; [k: string]: unknown }> = {}
      for (const t of targets) {
        if (measured[t.name]) row[t.name] = stats(measured[t.name], t.pid)
        else if (floors.includes(t.name)) row[t.name] = { rps: chat[t.name].rps, p50_ms: chat[t.name].p50_ms, p99_ms: chat[t.name].p99_ms, chat_row: true }
      }
      const proxyRps = row['node proxy']?.rps ?? null
      B[`c${c}_${wire}`] = Object.fromEntries(Object.entries(row).map(([n, r]) => [n, { ...r, rps_vs_proxy: vsProxy(n, r.rps, proxyRps) }]))
    }
  }
  const c = CFG.bConnections[0]
  const plainGateway = targets.find((t) => t.name === 'gateway')!
  const prepaid = chatTarget('gateway (prepaid key)', gateway, gateway.prepaidKey!)
  const silent = chatTarget('gateway (log silent)', gatewaySilent!)
  for (const t of [prepaid, silent]) await closedLoop(pool(t, c), t, bodies.instant, c, CFG.warmupMs)
  say(`B: body logging, the log file and a prepaid key, ${CFG.pairs} paired rounds of ${CFG.bSeconds} s each at ${c} connections`)
  const logging: Record<string, PairedCost> = {}
  for (const logged of targets.filter((t) => t.name.endsWith('+logs'))) {
    const plain = targets.find((t) => t.name === logged.name.slice(0, -'+logs'.length))!
    logging[logged.name] = await pairedCost(plain, logged, c)
  }
  B.logging = logging
  /** The shipped gateway's log, a line a request at info to its file, against its twin logging nothing. */
  B.log_file = await pairedCost(silent, plainGateway, c)
  /** The gateway's prepaid key (its debit, durable before the answer ends) against its free key. */
  B.prepaid_key = await pairedCost(plainGateway, prepaid, c)
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
/**
 * Runs one way of driving streams for every target, interleaved, and reports it as D does;
 * `connections`: each target's pool, as many as streams open at once; `warmups`: rounds per
 * target before the measured ones.
 */
async function streamScenario(connections: number, drive: (p: Pool, t: Target) => Promise<StreamStats>, warmups = 1) {
  const runs: Record<string, StreamStats[]> = Object.fromEntries(targets.map((t) => [t.name, []]))
  for (let i = 0; i < warmups; i++) for (const t of targets) await drive(pool(t, connections), t)
  for (let rep = 0; rep < REPS; rep++) for (const t of rotation(rep)) runs[t.name].push(await drive(pool(t, connections), t))
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
  /**
   * A thousand at once settle from the third round on, for every target (p99 of rounds 7 s apart,
   * bare proxy: 1,625, 574, 327, 185, 246, 237 ms; gateway: 2,221, 945, 612, 436, 430, 414), so
   * that burst is warmed up three times; the other stream rounds once.
   */
  const burst = (n: number, warmups: number) => {
    say(`D: ${n} streams of ${STREAM_CHUNKS} chunks every ${STREAM_INTERVAL_MS} ms opened at once, ${warmups} warm-up and ${REPS} measured per target`)
    return streamScenario(n, (p, t) => streams(p, t, bodies.stream, n, STREAM_CHUNKS), warmups)
  }
  results.D = await burst(CFG.dStreams, 1)
  say(`D: ${CFG.dStreams} streams kept open for ${CFG.dSustainSeconds} s (each replaced as it ends), x ${REPS} per target`)
  const streamMs = STREAM_CHUNKS * STREAM_INTERVAL_MS
  results.D_sustained = await streamScenario(CFG.dStreams, (p, t) =>
    sustainedStreams(p, t, bodies.stream, CFG.dStreams, STREAM_CHUNKS, streamMs, CFG.dSustainSeconds * 1000),
  )
  // Last: the rows above run on processes in the state they were in before this burst was added.
  results.D_burst = await burst(CFG.dBurstStreams, 3)
}

if (SCEN.has('A')) {
  const last = A_WIRES.filter((w) => A_LAST.has(w.wire))
  say(`A, last (its large bodies would weigh on the scenarios after it): ${last.map((w) => w.label).join(', ')}, against A's chat row`)
  const rounds = await sequentialRounds(last, false)
  for (const w of last) results[w.key] = versusChat(rounds[w.wire], (results.A as Record<string, ReturnType<typeof aSummary>>) ?? {})
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
results.targets = issueTargets(results as any)
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
    const rps = (x: { rps: number; rps_vs_proxy: number | null; errors?: number }) =>
      `${f(x.rps, 0)}${x.rps_vs_proxy === null ? '' : ` (${f(x.rps_vs_proxy)}×)`}${x.errors ? ` (${x.errors} err)` : ''}`
    for (const c of CFG.bConnections) {
      const b = R.B[`c${c}`]
      row(`B: req/s @${c} conns (× node proxy's)`, (n) => rps(b[n]))
      row(`B: p50 / p99 @${c} (ms)`, (n) => `${f(b[n].p50_ms)} / ${f(b[n].p99_ms)}`)
      row(`B: CPU of process @${c}`, (n) => (b[n].cpu_pct === null ? '—' : `${f(b[n].cpu_pct, 0)} %`))
      row(`B: peak RSS @${c} (MB)`, (n) => (b[n].peak_rss_mb === null ? '—' : f(b[n].peak_rss_mb, 0)))
      for (const w of B_WIRES) {
        const m = R.B[`c${c}_${w.wire}`]
        if (!m) continue
        const floors = TRANSLATED.has(w.wire) ? '; direct and node proxy: their chat row, the request it becomes' : ''
        row(`B: req/s @${c}, ${w.label} (× node proxy's${floors})`, (n) => (m[n] ? rps(m[n]) : '—'))
      }
    }
    const c = CFG.bConnections[0]
    const L = R.B.logging
    row(`B: **cost of body logging**, ${CFG.pairs} paired rounds @${c}: median (range)`, (n) => (L[n] ? costCell(L[n]) : '—'))
    row(`B: **cost of logging at info to a file** (against a twin at \`--log-level silent\`), ${CFG.pairs} paired rounds @${c}: median (range)`, (n) =>
      n === 'gateway' ? costCell(R.B.log_file) : '—',
    )
    row(`B: **cost of a prepaid key** (against the free key), ${CFG.pairs} paired rounds @${c}: median (range)`, (n) =>
      n === 'gateway' ? costCell(R.B.prepaid_key) : '—',
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
  if (R.D_burst) streamRows(R.D_burst, `${CFG.dBurstStreams} opened at once`)
  lines.push('')
  const notes: string[] = []
  for (const n of names) {
    const errs = [
      ...A_WIRES.map((w) => R[w.key]?.[n]?.firstError),
      R.B && R.B.c10[n]?.firstError,
      ...B_WIRES.map((w) => R.B?.[`c${CFG.bConnections[0]}_${w.wire}`]?.[n]?.firstError),
      R.C && R.C.r100[n]?.firstError,
      R.D && R.D[n]?.firstError,
      R.D_burst?.[n]?.firstError,
    ].filter(Boolean)
    if (errs.length) notes.push(`- ${n}: first error seen: \`${String(errs[0]).replace(/`/g, "'").slice(0, 160)}\``)
  }
  if (notes.length) lines.push(...notes, '')
  lines.push(
    `Issue 30's targets (the gateway against the bare Node proxy, this run; the duty floor's figure on chat completions where the row is another wire's):`,
    '',
  )
  lines.push('| Target | gateway | node proxy | ratio / cost | goal | met | duty floor (ratio) | floor meets it |', '|---|---|---|---|---|---|---|---|')
  for (const t of R.targets as TargetRow[]) {
    const fig = (x: number | null) => (x === null ? '—' : `${f(x, t.unit === 'ms' ? (Math.abs(x) < 10 ? 3 : 1) : 0)} ${t.unit}`)
    const floor = t.floor === null ? ['—', '—'] : [`${fig(t.floor)} (${t.floorRatio === null ? '—' : `${f(t.floorRatio)}×`})`, t.floorMet ? 'yes' : '**no**']
    const cells =
      t.met === null
        ? ['not run', '', '', t.goal, 'not run', '', '']
        : [fig(t.gateway), fig(t.proxy), t.cost ? costCell(t.cost) : t.ratio === null ? '—' : `${f(t.ratio)}×`, t.goal, t.met ? 'yes' : '**no**', ...floor]
    lines.push(`| ${t.target} | ${cells.join(' | ')} |`)
  }
  lines.push('')
  return lines.join('\n') + '\n'
}

/** A paired cost: its median, and the range of its pairs. */
function costCell(x: PairedCost): string {
  const pairs = x.pair_pcts.filter((p): p is number => p !== null)
  return `${x.cost_pct === null ? 'n/a' : x.cost_pct.toFixed(1)} % (${Math.min(...pairs).toFixed(1)} to ${Math.max(...pairs).toFixed(1)})`
}

/** One of issue 30's targets, for the shipped gateway (the `gateway` target) in this run; `met` null: its scenario did not run. */
interface TargetRow {
  target: string
  goal: string
  unit: string
  gateway: number | null
  proxy: number | null
  /** The gateway's figure over the proxy's. */
  ratio: number | null
  /** For a cost measured in paired rounds: its median and pairs, in % of throughput. */
  cost?: PairedCost
  met: boolean | null
  /** The duty floor's figure (on chat completions for another wire's row), over the proxy's, and whether it meets the goal itself. */
  floor: number | null
  floorRatio: number | null
  floorMet: boolean | null
}

/**
 * Issue 30's targets from this run's results. A figure over several wires or connection counts
 * has a row for each; a translated wire's proxy figure is the proxy's chat row (the chat request
 * the translation becomes), as in B's and A's rows.
 */
function issueTargets(R: any): TargetRow[] {
  const rows: TargetRow[] = []
  const G = 'gateway'
  const P = 'node proxy'
  const NONE = { floor: null, floorRatio: null, floorMet: null }
  /**
   * `gateway` (and the duty floor) within `limit` times `proxy`: at least (a throughput) or at
   * most (a latency); `also`, a further condition on each (`alsoFloor` the floor's).
   */
  const relative = (
    target: string,
    unit: string,
    at: 'least' | 'most',
    limit: number,
    figures: [number, number, number | null] | null,
    also?: [string, boolean, boolean?],
  ) => {
    const goal = `${at === 'least' ? '≥' : '≤'} ${at === 'least' ? `${limit * 100} % of` : `${limit} ×`} the proxy's${also ? `, ${also[0]}` : ''}`
    if (!figures) return rows.push({ target, goal, unit, gateway: null, proxy: null, ratio: null, met: null, ...NONE })
    const [g, p, d] = figures
    const within = (x: number) => (at === 'least' ? x >= limit * p : x <= limit * p)
    const ratio = (x: number) => (p > 0 ? round(x / p, 2) : null)
    const floor = d === null ? NONE : { floor: d, floorRatio: ratio(d), floorMet: within(d) && (also?.[2] ?? true) }
    rows.push({ target, goal, unit, gateway: g, proxy: p, ratio: ratio(g), met: within(g) && (also?.[1] ?? true), ...floor })
  }
  const of = (row: any, k: string, floorRow = row): [number, number, number | null] | null =>
    row?.[G] && row[P] ? [row[G][k], row[P][k], floorRow?.[DUTY]?.[k] ?? null] : null
  const labelOf = (w: { wire: Wire; label: string }) => `${w.label}${TRANSLATED.has(w.wire) ? " (against the proxy's chat row)" : ''}`
  for (const c of CFG.bConnections) relative(`chat, ${c} connections: req/s`, 'req/s', 'least', 0.8, of(R.B?.[`c${c}`], 'rps'))
  const c = CFG.bConnections[0]
  for (const w of B_WIRES.filter((w) => /^(messages|responses)/.test(w.wire)))
    relative(`${labelOf(w)}, ${c} connections: req/s`, 'req/s', 'least', 0.7, of(R.B?.[`c${c}_${w.wire}`], 'rps', R.B?.[`c${c}`]))
  const chatA = R.A
  for (const w of [{ key: 'A', label: 'chat', wire: 'chat' as Wire }, ...A_WIRES]) {
    const m = R[w.key]
    const proxy = TRANSLATED.has(w.wire) ? chatA?.[P] : m?.[P]
    // The floor's chat request stands for every small body, not for a 200 KB one, whose cost goes with its size.
    const floor = w.wire === 'agentTurn' ? null : (chatA?.[DUTY]?.added_p50_ms ?? null)
    relative(`added p50, one at a time, ${labelOf(w)}`, 'ms', 'most', 1.1, m?.[G] && proxy ? [m[G].added_p50_ms, proxy.added_p50_ms, floor] : null)
  }
  relative('added p99 at 500 req/s (60 ms provider)', 'ms', 'most', 1.2, of(R.C?.r500, 'added_p99_ms'))
  relative(`${CFG.dStreams} streams kept open: added TTFC p50`, 'ms', 'most', 1.5, of(R.D_sustained, 'added_ttfc_p50_ms'))
  const inTime = (x: any) => Boolean(x && x.ttfc_p99_ms < 1000 && x.failed + x.incomplete === 0)
  relative(`${CFG.dBurstStreams.toLocaleString('en')} streams opened at once: TTFC p99`, 'ms', 'most', 1.2, of(R.D_burst, 'ttfc_p99_ms'), [
    'under 1,000 ms, none lost',
    inTime(R.D_burst?.[G]),
    inTime(R.D_burst?.[DUTY]),
  ])
  const rss = of(R.B?.c50, 'peak_rss_mb')
  const floorRss = rss?.[2] ?? null
  rows.push({
    target: 'peak RSS at 50 connections',
    goal: '≤ 150 MB',
    unit: 'MB',
    gateway: rss?.[0] ?? null,
    proxy: rss?.[1] ?? null,
    ratio: rss ? round(rss[0] / rss[1], 2) : null,
    met: rss ? rss[0] <= 150 : null,
    ...(rss && floorRss !== null ? { floor: floorRss, floorRatio: round(floorRss / rss[1], 2), floorMet: floorRss <= 150 } : NONE),
  })
  const cost = (target: string, goal: string, x: PairedCost | undefined, met: (pct: number) => boolean) =>
    rows.push({
      target,
      goal,
      unit: '%',
      gateway: null,
      proxy: null,
      ratio: null,
      ...(x ? { cost: x } : {}),
      met: x ? x.cost_pct !== null && met(x.cost_pct) : null,
      ...NONE,
    })
  cost('logging at info to a file: cost in req/s (against `--log-level silent`)', '≤ 5 %', R.B?.log_file, (pct) => pct <= 5)
  cost('prepaid key against free key: difference in req/s', '≤ 5 % apart', R.B?.prepaid_key, (pct) => Math.abs(pct) <= 5)
  return rows
}
