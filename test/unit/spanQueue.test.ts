import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SpanQueue, type BatchExporter, type Batching, type SpanBatch } from '../../src/gateway/tracing/spanQueue'
import { waitUntil } from '../support/waitUntil'

/** A collector's side of the exporter, answered by the test: each batch waits until `answer` is called. */
function heldExporter() {
  const batches: Array<{ batch: SpanBatch; done: (error: Error | null) => void }> = []
  let shutdown = false
  const exporter: BatchExporter = {
    export: (batch, done) => batches.push({ batch, done }),
    shutdown: async () => {
      shutdown = true
    },
  }
  return { exporter, batches, isShutDown: () => shutdown }
}

const batching = (b: Partial<Batching>): Batching => ({
  scheduledDelayMillis: 60_000,
  exportTimeoutMillis: 60_000,
  maxQueueSize: 100,
  maxExportBatchSize: 10,
  ...b,
})

/** What the queue warned of. */
const warned: string[] = []
const warn = (message: string) => warned.push(message)

/** Writes `n` one-byte "spans" (their number), as beginSpan and endSpan would write each. */
function end(queue: SpanQueue, n: number, from = 0): number {
  let written = 0
  for (let i = 0; i < n; i++) {
    const w = queue.take()
    if (w === null) continue
    w.raw(Uint8Array.of(from + i))
    queue.added()
    written++
  }
  return written
}

describe('SpanQueue: the batch span processor of the specification, for spans already in protobuf', () => {
  it('a full batch goes out at once, one export at a time, the next when the one before is done', async () => {
    const { exporter, batches } = heldExporter()
    const queue = new SpanQueue(batching({ maxExportBatchSize: 3 }), exporter, warn)
    end(queue, 7)
    assert.equal(batches.length, 1, 'one export under way; the second full batch waits for it')
    assert.deepEqual([...batches[0].batch.spans], [0, 1, 2])
    assert.equal(batches[0].batch.count, 3)
    batches[0].done(null)
    await waitUntil(() => batches.length === 2, { what: 'the second batch sent' })
    assert.deepEqual([...batches[1].batch.spans], [3, 4, 5])
    batches[1].done(new Error('the collector said 400'))
    // The seventh span waits for its batch to fill, or for the schedule (a minute away).
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(batches.length, 2)
  })

  it('a batch not full goes out OTEL_BSP_SCHEDULE_DELAY after its first span', async () => {
    const { exporter, batches } = heldExporter()
    const queue = new SpanQueue(batching({ scheduledDelayMillis: 30 }), exporter, warn)
    const started = performance.now()
    end(queue, 2)
    await waitUntil(() => batches.length === 1, { what: 'the batch sent on schedule' })
    assert.ok(performance.now() - started >= 25)
    assert.equal(batches[0].batch.count, 2)
  })

  it('with OTEL_BSP_MAX_QUEUE_SIZE spans waiting, a span ending is dropped and counted; handing a batch over makes room', async () => {
    const { exporter, batches } = heldExporter()
    const queue = new SpanQueue(batching({ maxQueueSize: 5, maxExportBatchSize: 2 }), exporter, warn)
    // 2 go out at once (the export hangs, as a dead collector's does); 5 fill the queue; 3 are dropped.
    warned.length = 0
    assert.equal(end(queue, 10), 7)
    batches[0].done(null)
    await waitUntil(() => batches.length === 2, { what: 'the next batch handed over' })
    assert.deepEqual(warned, ['tracing: 3 spans dropped, the export queue being full (OTEL_BSP_MAX_QUEUE_SIZE=5)'])
    assert.equal(end(queue, 3, 10), 2, 'room for the two spans handed over')
    batches[1].done(new Error('the collector said 400'))
    await waitUntil(() => warned.length === 3, { what: 'the failed export and the drop told' })
    assert.deepEqual(warned.slice(1), [
      'tracing: 2 spans not exported: the collector said 400',
      'tracing: 1 span dropped, the export queue being full (OTEL_BSP_MAX_QUEUE_SIZE=5)',
    ])
  })

  it('an export given no answer is given up on after OTEL_BSP_EXPORT_TIMEOUT; its late answer changes nothing', async () => {
    const { exporter, batches } = heldExporter()
    const queue = new SpanQueue(batching({ maxExportBatchSize: 1, exportTimeoutMillis: 30 }), exporter, warn)
    end(queue, 2)
    warned.length = 0
    await waitUntil(() => batches.length === 2, { what: 'the second batch, after the first timed out' })
    assert.deepEqual(warned, ['tracing: 1 span not exported: no answer in 30 ms (OTEL_BSP_EXPORT_TIMEOUT)'])
    batches[0].done(null)
    end(queue, 1, 2)
    assert.equal(batches.length, 2, 'the second export is still the one under way')
  })

  it('shutdown sends every span ended, waits for the exports, stops the exporter, and drops spans after', async () => {
    const { exporter, batches, isShutDown } = heldExporter()
    const queue = new SpanQueue(batching({ maxExportBatchSize: 4 }), exporter, warn)
    end(queue, 6)
    const stopped = queue.shutdown()
    batches[0].done(null)
    await waitUntil(() => batches.length === 2, { what: 'the last spans sent' })
    assert.deepEqual([...batches[1].batch.spans], [4, 5])
    assert.equal(isShutDown(), false, 'the exporter stops once the last batch is answered')
    batches[1].done(null)
    await stopped
    assert.equal(isShutDown(), true)
    assert.equal(queue.take(), null)
  })
})
