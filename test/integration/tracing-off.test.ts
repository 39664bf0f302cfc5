import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startTestGateway, type TestGateway } from '../support/harness'
import { otelLoaded } from '../support/otlpReceiver'

/** In a file of its own: the process must never have started a gateway with tracing on. */
describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let t: TestGateway
  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it('adds nothing to a request and never loads OpenTelemetry', async () => {
    const { response } = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse()
    await t.record(response.headers.get('x-request-id'))
    const gw = t.running.gateway
    assert.equal(gw.tracer, null)
    assert.deepEqual(gw.observers, [])
    assert.equal(otelLoaded(), false)
    assert.equal(t.fake.received.at(-1)!.headers.traceparent, undefined)
  })

  it('gateway.status says tracing is off', async () => {
    const operator = {
      user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 },
      sessionToken: null,
      address: 'local',
      operator: true,
    }
    const { result } = await t.running.admin.invoke('gateway.status', {}, operator)
    assert.ok(result.ok)
    assert.equal((result.value as { tracing: unknown }).tracing, null)
  })
})
