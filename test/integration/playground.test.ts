import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { PlaygroundEvent } from '../../src/contract/playground'
import { startTestGateway, type TestGateway } from '../support/harness'

/**
 * The Playground calls the inference core directly (no HTTP, no internal credential): the same
 * pipeline and record as an API call, delivered as Playground events.
 */
describe('Playground on the inference core', () => {
  let t: TestGateway
  let keyId: string
  const operator = {
    user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 },
    sessionToken: null,
    address: 'local',
    operator: true,
  }

  const chat = async (input: Record<string, unknown>) => {
    const events: PlaygroundEvent[] = []
    const { result } = await t.running.admin.invoke(
      'playground.chat',
      { key_id: keyId, messages: [{ role: 'user', content: 'hi' }], ...input },
      operator,
      (e) => events.push(e),
    )
    assert.ok(result.ok, JSON.stringify(result))
    return events
  }

  before(async () => {
    t = await startTestGateway()
    keyId = (await t.running.gateway.store.keys.create('playground')).info.id
    await t.running.gateway.configChanged()
  })
  after(() => t.close())

  it('streams the answer as deltas, then routing and cost under the request id of its record', async () => {
    t.fake.script({ kind: 'reply', content: 'Hello from the fake provider.' })
    const events = await chat({ model: 'gpt-4o-mini', temperature: 0.5 })
    const [sent] = events
    assert.equal(sent.type, 'request', 'the body sent comes first')
    if (sent.type !== 'request') return
    assert.equal(sent.wire, 'chat', 'chat completions unless another wire is chosen')
    assert.deepEqual(sent.body, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.5,
      stream: true,
      stream_options: { include_usage: true },
    })
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e as { content: string }).content)
    assert.equal(deltas.join(''), 'Hello from the fake provider.')
    const done = events.at(-1)
    assert.equal(done?.type, 'done')
    if (done?.type !== 'done') return
    assert.equal(done.finish_reason, 'stop')
    assert.equal(done.gw.request_id, done.request_id)
    assert.equal(done.request_id, sent.request_id)
    const record = await t.record(done.request_id)
    assert.deepEqual([record.source, record.outcome, record.status, record.stream, record.endpoint], ['playground', 'ok', 200, true, 'chat.completions'])
    assert.ok(record.cost?.final_usd && record.cost.final_usd > 0)
    const upstream = t.fake.received.at(-1)!
    assert.equal(upstream.body.stream, true)
    assert.equal(upstream.headers['gw-internal-token'], undefined)
  })

  it('tells a refusal before the answer as one error event with its status, and records it', async () => {
    const events = await chat({ model: 'openai-nope/x' })
    assert.deepEqual(
      events.map((e) => e.type),
      ['request', 'error'],
    )
    const e = events[1]
    assert.equal(e.type, 'error')
    if (e.type !== 'error') return
    assert.equal(e.status, 404)
    assert.equal(e.error.code, 'model_not_found')
    const record = await t.record(e.request_id)
    assert.deepEqual([record.source, record.outcome, record.status], ['playground', 'error', 404])
  })

  it('tells a provider failure in the middle of the stream after the text so far', async () => {
    t.fake.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'error-event' })
    const events = await chat({ model: 'gpt-4o-mini' })
    assert.ok(events.some((e) => e.type === 'delta'))
    const last = events.at(-1)!
    assert.equal(last.type, 'error')
    assert.equal(events.filter((e) => e.type === 'error').length, 1)
    if (last.type !== 'error') return
    const record = await t.record(last.request_id)
    assert.deepEqual([record.source, record.outcome], ['playground', 'error'])
  })
})
