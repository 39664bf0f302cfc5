import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { OK, type Delivered } from '../../src/gateway/core/wire'
import { ApiError } from '../../src/gateway/errors'
import { ZERO_USAGE } from '../../src/gateway/pricing/usage'
import type { SseEvent } from '../../src/shared/sse'
import { endStream, failStream, pumpSse, type SseHandler } from '../../src/gateway/wires/pumpSse'
import { FakeDelivery, RecordingSink } from '../support/fakeDelivery'
import { FakeUpstream, sse } from '../support/fakeUpstream'

/** A handler that keeps every read's events, ends early where `stop` says, and fails as the relays do. */
function keeping(stop: (ev: SseEvent) => boolean = () => false) {
  const reads: SseEvent[][] = []
  const failures: ApiError[] = []
  const cut = { usage: { ...ZERO_USAGE, completion_tokens: 3 }, estimated: true }
  const h: SseHandler = {
    handle(events) {
      reads.push(events)
      const last = events.find(stop)
      return last ? { ...OK, usage: null, logged: last.data } : null
    },
    fail(error) {
      failures.push(error)
      return { status: 200, outcome: 'error', error, ...cut }
    },
    partial: () => cut,
  }
  return { h, reads, failures, cut, events: () => reads.flat() }
}

function pumping(stop?: (ev: SseEvent) => boolean) {
  const sink = new RecordingSink()
  const out = new FakeDelivery(sink)
  const upstream = new FakeUpstream(out.signal)
  const handler = keeping(stop)
  const done = pumpSse(upstream.response, out, handler.h)
  return { sink, out, upstream, handler, done }
}

describe('pumpSse: a provider’s event stream read by read', () => {
  it('joins events split across reads (inside `data:`, a multi-byte character, between \\r and \\n) and tells every read to the idle timeout', async () => {
    const { upstream, handler, done } = pumping()
    const text = Buffer.from(`: keep-alive\r\n\r\n${sse({ n: 1, text: 'héllo 🌍' }, 'first').replaceAll('\n', '\r\n')}${sse({ n: 2 })}${sse('[DONE]')}`)
    const at = (s: string, from = 0) => text.indexOf(s, from)
    const cuts = [at('\n', at('event: first')), at('data:', at('first')) + 2, at('é') + 1, at('🌍') + 2, at('data:', at('🌍')) + 3]
    cuts.forEach((cut, i) => upstream.send(text.subarray(cuts[i - 1] ?? 0, cut)))
    upstream.send(text.subarray(cuts.at(-1)))
    upstream.end()
    assert.equal(await done, null, 'the body ended: nothing ended the stream early')
    assert.deepEqual(handler.events(), [
      { event: 'first', data: '{"n":1,"text":"héllo 🌍"}' },
      { event: null, data: '{"n":2}' },
      { event: null, data: '[DONE]' },
    ])
    assert.equal(upstream.heard, cuts.length + 1)
    assert.ok(
      handler.reads.some((r) => r.length === 0),
      'reads that complete no event hand over none',
    )
  })

  it('a last event without its blank line still counts when the body ends', async () => {
    const { upstream, handler, done } = pumping()
    upstream.send('data: {"n":1}\n\ndata: {"n"', ':2}')
    upstream.end()
    assert.equal(await done, null)
    assert.deepEqual(
      handler.events().map((e) => e.data),
      ['{"n":1}', '{"n":2}'],
    )
  })

  it('an event that ends the stream early settles it and stops reading the provider', async () => {
    const { upstream, handler, done } = pumping((ev) => ev.data === '"stop"')
    upstream.send(sse('"a"') + sse('"stop"') + sse('"after, same read"'))
    const ended = (await done) as Delivered
    assert.equal(ended.logged, '"stop"')
    assert.equal(upstream.body.destroyed, true, 'the upstream body is let go')
    upstream.send(sse('"later"'))
    assert.deepEqual(
      handler.events().map((e) => e.data),
      ['"a"', '"stop"', '"after, same read"'],
    )
  })

  it('a connection that breaks mid-stream fails it with the provider named', async () => {
    const { upstream, handler, done } = pumping()
    upstream.send(sse('"a"'))
    upstream.cut()
    const ended = (await done) as Delivered
    assert.equal(ended.outcome, 'error')
    assert.equal(handler.failures.length, 1)
    assert.match(handler.failures[0].message, /\bp\b/)
    assert.equal(ended.usage, handler.cut.usage)
  })

  it('a client that leaves is not a failure: aborted, with what was generated', async () => {
    const { out, upstream, handler, done } = pumping()
    upstream.send(sse('"a"'))
    out.signal.abort()
    const ended = (await done) as Delivered
    assert.deepEqual(ended, { status: 200, outcome: 'aborted', ...handler.cut })
    assert.equal(handler.failures.length, 0)
  })

  it('a reader that is behind pauses the provider until it catches up', async () => {
    const { sink, upstream, handler, done } = pumping()
    sink.behind = true
    upstream.send(sse('"a"'))
    await sink.until(() => sink.waits === 1)
    assert.equal(upstream.body.isPaused(), true)
    upstream.send(sse('"b"'))
    assert.equal(handler.events().length, 1, 'nothing more is read while paused')
    assert.ok(upstream.body.readableLength > 0, 'the provider’s bytes wait in the body')
    sink.catchUp()
    upstream.end()
    assert.equal(await done, null)
    assert.deepEqual(
      handler.events().map((e) => e.data),
      ['"a"', '"b"'],
    )
  })
})

describe('endStream and failStream: how every relay ends', () => {
  const usage = { ...ZERO_USAGE, prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 }
  const refused = new ApiError(503, 'server_error', 'The charge could not be stored', 'ledger_unavailable')

  it('a complete stream is priced, then its last events (the gw block among them) go out in one end', async () => {
    const sink = new RecordingSink()
    const out = new FakeDelivery(sink, undefined, true, true)
    const done = await endStream(
      out,
      usage,
      (gw) => [{ type: 'done', gw }],
      () => 'logged',
      () => assert.fail('nothing fails'),
    )
    assert.deepEqual(out.closedWith, usage)
    assert.deepEqual(sink.ended, { last: [{ type: 'done', gw: FakeDelivery.gw }], error: null })
    assert.deepEqual(done, { ...OK, usage, logged: 'logged' })
  })

  it('the end waits for what must be stored first, and a refusal withholds it: the stream fails instead', async () => {
    const sink = new RecordingSink()
    const out = new FakeDelivery(sink)
    out.refuse(refused)
    const done = await endStream(
      out,
      usage,
      (gw) => [{ type: 'done', gw }],
      () => null,
      (error) => failStream(sink, [], error, { usage, estimated: false }),
    )
    assert.deepEqual(sink.ended, { last: [], error: refused })
    assert.deepEqual(done, { status: 200, outcome: 'error', error: refused, usage, estimated: false })
  })

  it('failStream sends what is owed, then the error event unless those events told the failure', () => {
    const sink = new RecordingSink()
    failStream(sink, [{ owed: 1 }], refused, { usage: null, estimated: false })
    assert.deepEqual(sink.ended, { last: [{ owed: 1 }], error: refused })
    failStream(sink, [{ failed: 1 }], refused, { usage: null, estimated: false }, true)
    assert.deepEqual(sink.ended, { last: [{ failed: 1 }], error: null })
  })
})
