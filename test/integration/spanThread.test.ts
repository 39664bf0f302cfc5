import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import type { Worker } from 'node:worker_threads'
import { SpanHandoff } from '../../src/gateway/tracing/spanHandoff'
import { DEFAULT_BATCHING } from '../../src/gateway/tracing/spanQueue'
import { IdPool, spanIdHex } from '../../src/gateway/tracing/spanIds'
import { appendTrace } from '../../src/gateway/tracing/traceRow'
import { SPAN_KIND, STATUS_CODE, startOtlpReceiver } from '../support/otlpReceiver'
import { recordFixture } from '../support/recordFixture'
import { waitUntil } from '../support/waitUntil'

const ids = new IdPool()

/** The niceness of each of this process's threads (Linux's /proc: the 19th field of a thread's stat, counted after its name). */
const niceness = () =>
  fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  })

describe('the span thread', () => {
  it('writes and exports the traces handed to it; should it die, that is said once, and later spans are written and exported on the main thread', async () => {
    const receiver = await startOtlpReceiver()
    const warned: string[] = []
    const spans = new SpanHandoff(
      {
        url: `${receiver.url}/v1/traces`,
        headers: {},
        resource: { 'service.name': 'span-thread-test' },
        batching: { ...DEFAULT_BATCHING, scheduledDelayMillis: 10 },
      },
      (message) => warned.push(message),
    )
    /** A request that failed over: its first attempt answered 502, the second candidate was passed over. */
    const trace = (id: string) => {
      const record = recordFixture({ at: Date.now(), id, outcome: 'error', status: 502 }, { model: 'gpt-4o-mini', provider: 'openai', upstreamModel: null })
      record.error = { status: 502, type: 'api_error', code: 'upstream_error', message: 'the provider failed' }
      record.attempts = [
        { provider: 'openai', model: 'gpt-4o-mini', status: 502, latency_ms: 2, error: 'HTTP 502' },
        { provider: 'backup', model: 'small', status: null, latency_ms: 0, error: 'skipped: cooling down' },
      ]
      const startMs = Date.now()
      const span = { traceId: ids.traceId(), spanId: ids.spanId(), traceState: '', parentSpanId: null, startMs }
      const attempt = { spanId: ids.spanId(), startMs: startMs + 1, endMs: startMs + 3 }
      appendTrace(spans.row, span, startMs + 5, [attempt], record, null, () => undefined)
      spans.ended()
      return { server: spanIdHex(span.spanId), attempt: spanIdHex(attempt.spanId) }
    }
    const exported = async (id: string, expected: { server: string; attempt: string }) => {
      await waitUntil(() => receiver.spans.filter((s) => s.spanId === expected.server || s.spanId === expected.attempt).length === 2, {
        what: `the spans of ${id} exported`,
      })
      const server = receiver.spans.find((s) => s.spanId === expected.server)!
      const attempt = receiver.spans.find((s) => s.spanId === expected.attempt)!
      assert.equal(server.kind, SPAN_KIND.server)
      assert.equal(server.flags, 0x101, 'sampled; a root span, so no remote parent')
      assert.equal(server.name, 'chat gpt-4o-mini')
      assert.equal(server.attributes['gw.request_id'], id)
      assert.equal(server.attributes['error.type'], 'upstream_error')
      assert.deepEqual(server.status, { code: STATUS_CODE.error, message: 'the provider failed' })
      assert.deepEqual(
        server.events.map((e) => [e.name, e.attributes['gw.provider'], e.attributes['gw.reason']]),
        [['gw.attempt.skipped', 'backup', 'skipped: cooling down']],
      )
      assert.equal(attempt.kind, SPAN_KIND.client)
      assert.equal(attempt.parentSpanId, server.spanId)
      assert.equal(attempt.attributes['http.response.status_code'], 502)
      assert.equal(server.resource['service.name'], 'span-thread-test')
    }

    await exported('req_in_thread', trace('req_in_thread'))
    assert.deepEqual(warned, [])
    // Requests come first when the cores are busy: the span thread runs 10 nicer than the rest of the process, which stays as it was.
    const main = os.getPriority()
    if (process.platform === 'linux' && main < 19)
      assert.deepEqual(
        niceness().filter((n) => n !== main),
        [Math.min(19, main + 10)],
      )

    // The thread dies under it (as it would of an uncaught error or out of memory).
    await (spans as unknown as { worker: Worker }).worker.terminate()
    await waitUntil(() => warned.length > 0, { what: 'the failure said' })
    assert.match(warned[0], /the span thread failed \(it exited with code 1\); spans are written on the main thread from now on/)

    const last = trace('req_on_main')
    await spans.shutdown()
    await exported('req_on_main', last)
    assert.equal(warned.length, 1, 'said once')
    await receiver.close()
  })
})
