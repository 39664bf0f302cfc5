/**
 * What metrics on add to a request, and what a scrape costs: the observer's work per record
 * (`RequestTallies.recorded`, on the request path) and one `/metrics` exposition, over records of
 * 5 wires × 4 models × a few statuses (as a busy gateway's series), timed in-process.
 *
 * Usage: node --import tsx bench/metrics-observer.ts [--records 1000000]
 */
import { parseArgs } from 'node:util'
import { GatewayMetrics } from '../src/gateway/metrics/gatewayMetrics'
import { OpenStreams } from '../src/gateway/core/openStreams'
import type { RequestRecord } from '../src/gateway/store/requestsRepo'
import { chatRecord } from './chat-record'
import { median } from './loadgen'

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '1000000' } } })
const N = Number(args.records)

const wires: RequestRecord['endpoint'][] = ['chat.completions', 'messages', 'responses', 'generateContent', 'embeddings']
const models = ['gpt-4o-mini', 'gpt-4o', 'claude-haiku-4-5', 'gemini-2.5-flash']
/** 1,000 distinct records, cycled: every series is hit, as under a mixed load. */
const records: RequestRecord[] = Array.from({ length: 1000 }, (_, i) => {
  const r = chatRecord(`req_${i}`, { prompt_tokens: 10 + (i % 500), completion_tokens: 5 + (i % 90) }, 1 + (i % 3000), i % 2 === 0)
  const failed = i % 50 === 0
  return {
    ...r,
    endpoint: wires[i % wires.length],
    upstream_model: models[i % models.length],
    status: failed ? 502 : 200,
    outcome: failed ? 'error' : 'ok',
    ttfb_ms: i % 400,
    attempts: [{ provider: 'openai', model: models[i % models.length], status: failed ? 502 : 200, latency_ms: 5, error: null }],
  }
})

const metrics = new GatewayMetrics({
  records: { backlog: () => ({ records: 0, bytes: 0, failingSince: null, lagMs: 3 }) },
  cooldown: { coolingCount: () => 0, started: 0 },
  streams: new OpenStreams(),
  store: { pools: () => [] },
  clock: Date.now,
})
const tallies = metrics.tallies

const perRecordNs: number[] = []
for (let round = 0; round < 7; round++) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < N; i++) tallies.recorded(records[i % records.length])
  perRecordNs.push(Number(process.hrtime.bigint() - start) / N)
}
const scrapeMs: number[] = []
let bytes = 0
for (let i = 0; i < 20; i++) {
  const start = process.hrtime.bigint()
  bytes = (await metrics.text()).length
  scrapeMs.push(Number(process.hrtime.bigint() - start) / 1e6)
}
console.log(`observer: ${median(perRecordNs.slice(2)).toFixed(0)} ns a record (median of 5 rounds of ${N.toLocaleString('en-US')}, after 2 warm-up rounds)`)
console.log(`scrape: ${median(scrapeMs.slice(5)).toFixed(2)} ms for ${tallies.requests.length} request series (${(bytes / 1024).toFixed(0)} KB of text)`)
