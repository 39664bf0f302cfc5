/**
 * What tracing adds to a request, in CPU: the request's trace as the core drives it (begin with
 * the client's traceparent, one attempt carrying its traceparent on, the record, whose trace is
 * handed to the span thread, which writes its two spans into OTLP protobuf), their batching and
 * the export over HTTP, against the same loop without a tracer. The collector is a child process
 * (bench/tracing.ts --sink) that keeps what it gets and decodes it when asked for the count of
 * spans, after a run, so its CPU is neither this process's nor taken from it while measured, and
 * no span may be dropped unseen.
 * Requests go in rounds of 64, paced to `--rate` a second (a busy gateway's), the event loop free
 * between rounds. The main thread's CPU (what takes the gateway's throughput when it has a core
 * to spare) is counted apart from the whole process's (the span thread's and V8's helpers'), from
 * Linux's schedstat of the main thread. Each tracer serves 4,096 requests before it is measured,
 * so the span thread's start-up (loading what its first export needs) is not counted.
 * Usage: node --import tsx bench/tracing.ts [--requests 50000] [--rate 5000] [--repeats 5]
 */
import http from 'node:http'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { chatRecord } from './chat-record'
import { startChild, threadSeconds } from './procs'
import { newRequestId } from '../src/gateway/pipeline/requestContext'
import { tracingConfig } from '../src/gateway/tracing/tracingConfig'
import { startTracer } from '../src/gateway/tracing/requestTracer'
import type { RequestTracer } from '../src/gateway/core/requestObserver'
import { decodeTraceExport } from '../test/support/otlpReceiver'

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '50000' },
    rate: { type: 'string', default: '5000' },
    repeats: { type: 'string', default: '5' },
    sink: { type: 'boolean', default: false },
    discard: { type: 'boolean', default: false },
  },
})

if (args.sink) {
  // The exports are decoded when the spans are counted (GET /count), after a run, so that the
  // collector's decoding takes no CPU from the gateway while it is measured; with --discard
  // (bench/ab.ts) they are neither kept nor decoded, as a collector on another machine costs
  // the gateway nothing but the sending.
  let spans = 0
  const exports: Buffer[] = []
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (d: Buffer) => parts.push(d))
    req.on('end', () => {
      if (req.url === '/count') {
        for (const body of exports.splice(0)) spans += decodeTraceExport(body).length
        return res.end(String(spans))
      }
      if (!args.discard) exports.push(Buffer.concat(parts))
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + '\n'))
} else {
  const ROUND = 64
  const REQUESTS = Math.ceil(Number(args.requests) / ROUND) * ROUND
  const RATE = Number(args.rate)
  const sink = await startChild(['--import', 'tsx', 'bench/tracing.ts', '--sink'])
  const base = `http://127.0.0.1:${sink.info.port}`
  // A sampler set where the bench runs applies (OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.1…);
  // its requests carry no traceparent, whose sampled flag a parent-based sampler would follow.
  const { OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG } = process.env
  const client = OTEL_TRACES_SAMPLER ? [] : ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']
  const headers = ['host', 'localhost', ...client, 'content-type', 'application/json']
  const records = Array.from({ length: ROUND }, () => chatRecord(newRequestId()))
  for (const r of records) r.attempts = [{ provider: 'openai', model: 'gpt-4o-mini', status: 200, latency_ms: 1, error: null }]
  const providers = () => undefined

  /** This thread's CPU time so far, in µs (Linux counts it in ns for each thread). */
  const threadCpu = () => threadSeconds(process.pid, String(process.pid)) * 1e6
  const processCpu = () => {
    const used = process.cpuUsage()
    return used.user + used.system
  }

  /** Drives `requests` through `tracer` (null: the loop alone) in rounds of ROUND, paced to RATE a second, a busy gateway's (bench/README.md: 4,300–6,000 req/s), not as fast as the loop goes. */
  async function drive(tracer: RequestTracer | null, requests: number): Promise<void> {
    const start = performance.now()
    for (let n = 0; n < requests; n += ROUND) {
      for (const record of records) {
        if (tracer) {
          const trace = tracer.begin(headers)
          trace.attempt(0, performance.now())
          trace.recorded(record, null)
        }
      }
      const due = start + ((n + ROUND) / RATE) * 1000
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))
    }
  }

  /** CPU µs a request over `REQUESTS`, the main thread's and the whole process's, with `tracer` doing its part of each (null: the loop alone); its shutdown (the last export) counts. */
  async function run(tracer: RequestTracer | null): Promise<{ main: number; all: number }> {
    const main = threadCpu()
    const all = processCpu()
    await drive(tracer, REQUESTS)
    await tracer?.shutdown()
    return { main: (threadCpu() - main) / REQUESTS, all: (processCpu() - all) / REQUESTS }
  }

  const count = async () => Number(await (await fetch(`${base}/count`)).text())
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG }
  /** Requests a tracer serves before it is measured: 16 full batches of spans, so the span thread has loaded what its exports need, once a gateway, not a request's. */
  const WARM = ROUND * 64
  /** A tracer started, given time to settle (its modules loaded) and warmed up by WARM requests. */
  const tracer = async () => {
    const started = startTracer(tracingConfig(env, true)!, providers, (message) => process.stderr.write(`${message}\n`))
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await drive(started, WARM)
    return started
  }
  await run(await tracer()) // warm-up
  const rows: Array<{ loop: { main: number; all: number }; traced: { main: number; all: number } }> = []
  for (let i = 0; i < Number(args.repeats); i++) {
    const before = await count()
    const traced = await run(await tracer())
    const received = (await count()) - before
    const sent = (WARM + REQUESTS) * 2
    if (!OTEL_TRACES_SAMPLER && received !== sent) throw new Error(`the collector got ${received} spans of ${sent}: some were dropped`)
    rows.push({ loop: await run(null), traced })
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const added = (of: 'main' | 'all') => {
    const xs = rows.map((r) => r.traced[of] - r.loop[of])
    return `median ${median(xs).toFixed(1)} (range ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
  }
  process.stdout.write(
    `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus()[0]?.model}: ${REQUESTS.toLocaleString('en')} traced requests ` +
      `(a SERVER span and a CLIENT span each, exported; sampler ${OTEL_TRACES_SAMPLER ?? 'parentbased_always_on'}${OTEL_TRACES_SAMPLER_ARG ? ` ${OTEL_TRACES_SAMPLER_ARG}` : ''}), ` +
      `${rows.length} repeats at ${RATE.toLocaleString('en')} a second.\n` +
      `CPU µs a request added by tracing, main thread: ${added('main')}\n` +
      `CPU µs a request added by tracing, whole process (V8's helper threads too): ${added('all')}\n`,
  )
  await sink.stop()
}
