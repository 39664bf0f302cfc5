/**
 * What tracing adds to a request, in CPU: the request's trace as the core drives it (begin with
 * the client's traceparent, one attempt carrying its traceparent on, the record), the batching
 * span processor, the OTLP protobuf serialisation and the export over HTTP, against the same loop
 * without a tracer. The collector is a child process (bench/tracing.ts --sink) that decodes what it
 * gets and counts the spans, so its CPU is not this process's, and no span may be dropped unseen.
 * Requests go in rounds of 64, paced to `--rate` a second (a busy gateway's), the event loop free
 * between rounds for the exports.
 * Usage: node --import tsx bench/tracing.ts [--requests 50000] [--rate 5000] [--repeats 5]
 */
import http from 'node:http'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { chatRecord } from './chat-record'
import { startChild } from './procs'
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
  },
})

if (args.sink) {
  let spans = 0
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (d: Buffer) => parts.push(d))
    req.on('end', () => {
      if (req.url === '/count') return res.end(String(spans))
      spans += decodeTraceExport(Buffer.concat(parts)).length
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

  /** CPU µs a request over `REQUESTS`, with `tracer` doing its part of each (null: the loop alone). */
  async function run(tracer: RequestTracer | null): Promise<number> {
    const cpu = process.cpuUsage()
    const start = performance.now()
    for (let n = 0; n < REQUESTS; n += ROUND) {
      for (const record of records) {
        if (tracer) {
          const trace = tracer.begin(headers)
          trace.attempt(0, performance.now())
          trace.recorded(record, null)
        }
      }
      // Paced to RATE a second, a busy gateway's (bench/README.md: 4,300–6,000 req/s), not as fast as the loop goes.
      const due = start + ((n + ROUND) / RATE) * 1000
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))
    }
    await tracer?.shutdown()
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / REQUESTS
  }

  const count = async () => Number(await (await fetch(`${base}/count`)).text())
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG }
  const tracer = () => startTracer(tracingConfig(env, true)!, providers)
  await run(tracer()) // warm-up
  const rows: Array<{ loop: number; traced: number }> = []
  for (let i = 0; i < Number(args.repeats); i++) {
    const before = await count()
    const traced = await run(tracer())
    const received = (await count()) - before
    if (!OTEL_TRACES_SAMPLER && received !== REQUESTS * 2) throw new Error(`the collector got ${received} spans of ${REQUESTS * 2}: some were dropped`)
    rows.push({ loop: await run(null), traced })
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const added = rows.map((r) => r.traced - r.loop)
  process.stdout.write(
    `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus()[0]?.model}: ${REQUESTS.toLocaleString('en')} traced requests ` +
      `(a SERVER span and a CLIENT span each, exported; sampler ${OTEL_TRACES_SAMPLER ?? 'parentbased_always_on'}${OTEL_TRACES_SAMPLER_ARG ? ` ${OTEL_TRACES_SAMPLER_ARG}` : ''}), ` +
      `${rows.length} repeats at ${RATE.toLocaleString('en')} a second.\n` +
      `CPU µs a request added by tracing: median ${median(added).toFixed(1)} (range ${Math.min(...added).toFixed(1)}–${Math.max(...added).toFixed(1)})\n`,
  )
  await sink.stop()
}
