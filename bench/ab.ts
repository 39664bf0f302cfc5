/**
 * A paired before/after of one change: this checkout's gateway against another checkout's
 * (`--vs DIR`, built), both as `npm run serve` runs them, driven in alternating rounds so the
 * machine's drift falls on both. Per round it reads each gateway process's CPU over the round
 * (all its threads, and its main thread apart, to the nanosecond from /proc's schedstat), so what a change buys shows as CPU per request or per relayed
 * event, which moves far less with the machine than req/s or latency do; and each process's peak
 * RSS over the whole run.
 *
 * Usage: node --import tsx bench/ab.ts --vs DIR [--mode chat|streams|responses-translated|messages|responses-stream|gemini-stream|agent-turn]
 *                                       [--rounds 6] [--seconds 4] [--connections 10] [--rate N] [--prepaid]
 *                                       [--env K=V]... [--after-env K=V]... [--otlp-sink]
 * --rate N (chat, messages, responses-translated): an open loop at N requests a second instead of
 *   the closed loop, so the machine has CPU to spare: what a setting costs the event loop (its
 *   main thread's CPU a request) shows apart from what its other threads take from the load
 *   generator and the fake provider, which on two cores share the gateway's. Its rounds report
 *   p50 and p99 latency.
 * --prepaid: the requests carry a key with a prepaid balance (each answer's debit in the ledger).
 * --together: each round drives both gateways at once (--connections each) instead of one after
 *   the other, so that the host's changes of speed within a run fall on both alike: on this machine
 *   the same code against itself, 12 rounds of 3 s, paired CPU a request −0.1 % (rounds −4.1 to
 *   +12.8) together against −1.9 % (−5.7 to +23.7) in turns. The two share the cores, so CPU a
 *   request is higher than either alone; compare the paired percentage.
 * --env K=V (repeatable): an environment variable for both gateways (tracing on, on both sides).
 * --after-env K=V (repeatable): an environment variable for this checkout's gateway only, so one
 *   setting is measured on the same code (`--vs .`), e.g. tracing on against off.
 * --otlp-sink: an OTLP/HTTP collector in a child process (bench/tracing.ts --sink --discard: it
 *   answers 200 and drops what it gets, as cheap as a collector elsewhere); `{sink}` in an
 *   --env or --after-env value is its URL.
 * chat: closed loop on chat completions (instant mock), req/s and CPU µs a request.
 * streams: 200 chat streams kept open (20 content chunks 20 ms apart each), TTFC and CPU µs a
 *   relayed event (each stream is 23 events: role, 20 content, finish, usage; [DONE] not counted).
 * burst: scenario D's 1,000 chat streams opened at once, one burst a round (--seconds is ignored),
 *   after three warm-up bursts per side as run.ts does (a burst's p99 settles from the third);
 *   TTFC p50 and p99 of each round, and CPU µs a stream.
 * responses-stream, gemini-stream: scenario A's native streamed rows (the mock's whole stream at
 *   once: 28 Responses events, 20 Gemini chunks), one request at a time (--connections is
 *   ignored); each round also sends the same request straight to the mock, and reports the added
 *   p50 latency (gateway p50 minus direct p50) besides CPU µs a request.
 * agent-turn: the same, with a coding agent's turn of ~190 KB on Messages, native to Anthropic's
 *   kind (turn.ts's agentTurnBody), where the gateway's cost goes with the body's size.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { closedLoop, makePool, median, openLoop, streams, sustainedStreams } from './loadgen'
import { envPairs, memoryMb, ROOT, startChild, threadCpuSeconds } from './procs'
import { CHAT_ONLY_PROVIDER, startGatewayChild, type GatewayChild } from './gateway-process'
import { buildApp } from '../test/support/build'
import { agentTurnBody, chatBody, chatStreamBody, geminiBody, messages, messagesBody, responsesBody } from './turn'
import { MOCK_GEMINI_MODELS, MOCK_MESSAGES_MODELS, MOCK_MODELS, STREAM_CHUNKS, STREAM_INTERVAL_MS } from './mock-provider'

const { values: args } = parseArgs({
  options: {
    vs: { type: 'string' },
    mode: { type: 'string', default: 'chat' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
    rate: { type: 'string' },
    prepaid: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
    'after-env': { type: 'string', multiple: true, default: [] },
    'otlp-sink': { type: 'boolean', default: false },
    together: { type: 'boolean', default: false },
  },
})
if (!args.vs) throw new Error('--vs DIR (another checkout, built) is required')
const mode = args.mode!
const ROUNDS = Number(args.rounds)
const MS = Number(args.seconds) * 1000
/** One request at a time: the modes that measure added latency against the mock itself. */
const SERIAL = mode === 'responses-stream' || mode === 'gemini-stream' || mode === 'agent-turn'
/** Streams opened at once in `burst` mode, as scenario D's larger burst (bench/run.ts). */
const BURST = 1000
const CONNS = SERIAL ? 1 : Number(args.connections)
/** Requests a second of an open loop (--rate); null for the closed loop. */
const RATE = args.rate === undefined ? null : Number(args.rate)
if (RATE !== null && (SERIAL || mode === 'streams' || mode === 'burst' || !(RATE > 0)))
  throw new Error('--rate takes a number of requests a second, with chat, messages or responses-translated')
/** Events a chat stream relays: the role chunk, the content chunks, the finish chunk and the usage chunk. */
const EVENTS_PER_STREAM = STREAM_CHUNKS + 3

buildApp()
const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
const sink = args['otlp-sink'] ? await startChild(['--import', 'tsx', 'bench/tracing.ts', '--sink', '--discard']) : null
/** The variables of `--env` or `--after-env` (K=V each; `{sink}` in V is the OTLP sink's URL). */
const envOf = (option: 'env' | 'after-env') =>
  Object.fromEntries(
    Object.entries(envPairs(args[option]!, option)).map(([k, v]) => [k, v.replaceAll('{sink}', sink ? `http://127.0.0.1:${sink.info.port}` : '{sink}')]),
  )
const bothEnv = envOf('env')
const afterEnv = envOf('after-env')
const options = { messages: true, gemini: mode === 'gemini-stream', chatOnly: true, ...(args.prepaid ? { prepaidUsd: 1e6 } : {}) }
const sides: Array<{ name: string; gw: GatewayChild }> = [
  { name: 'after', gw: await startGatewayChild(mock.info.url, { root: ROOT, ...options, env: { ...bothEnv, ...afterEnv } }) },
  { name: 'before', gw: await startGatewayChild(mock.info.url, { root: path.resolve(args.vs), ...options, env: bothEnv }) },
]

/** `googleKey`: the key goes in `x-goog-api-key`, as Google's clients send it. */
const requests: Record<string, { path: string; body: string; googleKey?: boolean }> = {
  chat: { path: '/v1/chat/completions', body: chatBody(MOCK_MODELS.instant) },
  streams: { path: '/v1/chat/completions', body: chatStreamBody(MOCK_MODELS.stream) },
  burst: { path: '/v1/chat/completions', body: chatStreamBody(MOCK_MODELS.stream) },
  'responses-translated': {
    path: '/v1/responses',
    body: JSON.stringify({
      model: `${CHAT_ONLY_PROVIDER}/${MOCK_MODELS.instant}`,
      instructions: messages[0].content,
      input: messages[1].content,
      store: false,
    }),
  },
  messages: { path: '/v1/messages', body: messagesBody(MOCK_MESSAGES_MODELS.instant) },
  'agent-turn': { path: '/v1/messages', body: agentTurnBody(MOCK_MESSAGES_MODELS.instant) },
  // As bench/run.ts sends scenario A's rows.
  'responses-stream': { path: '/v1/responses', body: responsesBody(MOCK_MODELS.instant, true) },
  'gemini-stream': {
    path: `/v1beta/models/${MOCK_GEMINI_MODELS.instant}:streamGenerateContent?alt=sse`,
    body: geminiBody,
    googleKey: true,
  },
}
const req = requests[mode]
if (!req) throw new Error(`--mode is one of ${Object.keys(requests).join(', ')}`)

const target = (gw: GatewayChild) => {
  const key = args.prepaid ? gw.prepaidKey! : gw.key
  const auth: Record<string, string> = req.googleKey ? { 'x-goog-api-key': key } : { authorization: `Bearer ${key}`, 'x-api-key': key }
  return { name: 'gateway', origin: gw.url, path: req.path, headers: { 'content-type': 'application/json', ...auth } }
}
/** The mock itself, for the serial modes' added latency (it takes any key). */
const direct = { path: req.path, headers: { 'content-type': 'application/json', authorization: 'Bearer mock', 'x-goog-api-key': 'mock' } }
const directPool = makePool(mock.info.url, 1)

type Round = { rate: number; cpuUs: number; mainUs: number; p50?: number; p99?: number; ttfcP50?: number; ttfcP99?: number; addedP50?: number }
const rounds: Record<string, Round[]> = { after: [], before: [] }
const pools = new Map(sides.map((s) => [s.name, makePool(s.gw.url, mode === 'burst' ? BURST : mode === 'streams' ? 256 : CONNS)]))

async function one(side: (typeof sides)[number], ms: number): Promise<Round> {
  const pool = pools.get(side.name)!
  const t = target(side.gw)
  const cpu0 = threadCpuSeconds(side.gw.pid)
  /** µs a unit of work, the process's (all threads) and its main thread's. */
  const perUnit = (units: number) => {
    const cpu = threadCpuSeconds(side.gw.pid)
    return { cpuUs: ((cpu.all - cpu0.all) * 1e6) / units, mainUs: ((cpu.main - cpu0.main) * 1e6) / units }
  }
  if (mode === 'burst') {
    const s = await streams(pool, t, req.body, BURST, STREAM_CHUNKS)
    if (s.failed || s.incomplete) throw new Error(`${side.name}: ${s.failed} failed, ${s.incomplete} incomplete: ${s.firstError}`)
    return { rate: s.streams, ...perUnit(s.streams), ttfcP50: s.ttfcP50, ttfcP99: s.ttfcP99 }
  }
  if (mode === 'streams') {
    const s = await sustainedStreams(pool, t, req.body, 200, STREAM_CHUNKS, STREAM_CHUNKS * STREAM_INTERVAL_MS, ms)
    const cpu = perUnit(s.streams * EVENTS_PER_STREAM)
    if (s.failed || s.incomplete) throw new Error(`${side.name}: ${s.failed} failed, ${s.incomplete} incomplete: ${s.firstError}`)
    return { rate: s.streams / (ms / 1000), ...cpu, ttfcP50: s.ttfcP50, ttfcP99: s.ttfcP99 }
  }
  const s = RATE === null ? await closedLoop(pool, t, req.body, CONNS, ms) : await openLoop(pool, t, req.body, RATE, ms)
  const cpu = perUnit(s.count)
  if (s.errors) throw new Error(`${side.name}: ${s.errors} errors: ${s.firstError}`)
  const round: Round = { rate: s.rps, ...cpu, p50: s.p50, p99: s.p99 }
  if (SERIAL) {
    const floor = await closedLoop(directPool, direct, req.body, 1, ms / 4)
    if (floor.errors) throw new Error(`direct: ${floor.errors} errors: ${floor.firstError}`)
    round.addedP50 = s.p50 - floor.p50
  }
  return round
}

// The serial modes warm up as scenario A does (thousands of requests: the code is still being compiled after hundreds).
for (const side of sides) for (let i = mode === 'burst' ? 3 : 1; i > 0; i--) await one(side, SERIAL ? 6000 : 2000)
for (let r = 0; r < ROUNDS; r++) {
  if (args.together) {
    const both = await Promise.all(sides.map((side) => one(side, MS)))
    sides.forEach((side, i) => rounds[side.name].push(both[i]))
    continue
  }
  const order = r % 2 === 0 ? sides : [...sides].reverse()
  for (const side of order) rounds[side.name].push(await one(side, MS))
}
// Each gateway's peak resident set over the whole run, warm-up included (VmHWM).
const peakRss = new Map(sides.map((s) => [s.name, memoryMb(s.gw.pid).peak]))
for (const s of sides) await s.gw.stop()
await mock.stop()
await sink?.stop()
for (const p of pools.values()) await p.close()
await directPool.close()

const STREAMED = mode === 'streams' || mode === 'burst'
const unit = mode === 'streams' ? 'event' : mode === 'burst' ? 'stream' : 'request'
const fmt = (xs: number[], d = 1) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`
const lines = [
  `${mode}${args.prepaid ? ' (prepaid key)' : ''}${
    Object.keys(bothEnv).length
      ? ` (both: ${Object.entries(bothEnv)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')})`
      : ''
  }${
    Object.keys(afterEnv).length
      ? ` (after: ${Object.entries(afterEnv)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')})`
      : ''
  }, ${ROUNDS} ${args.together ? 'rounds with both at once' : 'alternating rounds'}${
    mode === 'burst'
      ? `, ${BURST.toLocaleString('en')} streams opened at once`
      : ` of ${MS / 1000} s${
          mode === 'streams' ? ', 200 streams kept open' : RATE !== null ? `, an open loop at ${RATE} req/s` : `, ${CONNS} connection${CONNS === 1 ? '' : 's'}`
        }`
  }:`,
]
for (const s of sides) {
  const r = rounds[s.name]
  const extra = STREAMED
    ? `, TTFC p50 ${fmt(
        r.map((x) => x.ttfcP50!),
        2,
      )} ms, p99 ${fmt(
        r.map((x) => x.ttfcP99!),
        2,
      )} ms`
    : `${
        RATE === null
          ? ''
          : `, p50 ${fmt(
              r.map((x) => x.p50!),
              2,
            )} ms`
      }, p99 ${fmt(
        r.map((x) => x.p99!),
        2,
      )} ms${
        SERIAL
          ? `, added p50 ${fmt(
              r.map((x) => x.addedP50! * 1000),
              0,
            )} µs`
          : ''
      }`
  lines.push(
    `  ${s.name.padEnd(6)} ${
      mode === 'burst'
        ? ''
        : `${mode === 'streams' ? 'streams/s' : 'req/s'} ${fmt(
            r.map((x) => x.rate),
            0,
          )}, `
    }CPU µs/${unit} ${fmt(r.map((x) => x.cpuUs))} (main thread ${fmt(r.map((x) => x.mainUs))})${extra}, peak RSS ${peakRss.get(s.name)!.toFixed(0)} MB`,
  )
}
const pair = rounds.after.map((a, i) => (a.cpuUs / rounds.before[i].cpuUs - 1) * 100)
const mainPair = rounds.after.map((a, i) => (a.mainUs / rounds.before[i].mainUs - 1) * 100)
lines.push(`  CPU per ${unit}, after vs before, paired by round: ${fmt(pair)} % (main thread ${fmt(mainPair)} %)`)
if (mode !== 'burst') {
  // In turns this is the throughput each gateway got of the same machine; together it favours the side with more busy threads, which the scheduler shares the cores among.
  const ratePair = rounds.after.map((a, i) => (a.rate / rounds.before[i].rate - 1) * 100)
  lines.push(`  ${mode === 'streams' ? 'streams/s' : 'req/s'}, after vs before, paired by round: ${fmt(ratePair)} %`)
}
if (mode === 'burst') {
  const p99 = rounds.after.map((a, i) => a.ttfcP99! - rounds.before[i].ttfcP99!)
  lines.push(`  TTFC p99, after minus before, paired by round: ${fmt(p99)} ms`)
  for (const s of sides)
    lines.push(`  ${s.name.padEnd(6)} TTFC p50/p99 by round (ms): ${rounds[s.name].map((x) => `${x.ttfcP50!.toFixed(0)}/${x.ttfcP99!.toFixed(0)}`).join(', ')}`)
}
if (SERIAL) {
  const added = rounds.after.map((a, i) => (a.addedP50! - rounds.before[i].addedP50!) * 1000)
  lines.push(`  added p50, after minus before, paired by round: ${fmt(added, 0)} µs`)
}
process.stdout.write(lines.join('\n') + '\n')
