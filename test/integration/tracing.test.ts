import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import OpenAI from 'openai'
import { startGateway } from '../../src/gateway/server'
import { startTestGateway, tempDir, testStoreFor, type TestGateway } from '../support/harness'
import { otelLoaded, SPAN_KIND, STATUS_CODE, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver'
import { waitUntil } from '../support/waitUntil'
import type { RequestRecord } from '../../src/gateway/store/requestsRepo'

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c'
const CLIENT_SPAN = 'b7ad6b7169203331'
const PROMPT = 'the words of a private prompt'

const operator = { user: { id: 'operator', username: 'cli:test', role: 'admin' as const, created_at: 0 }, sessionToken: null, address: 'local', operator: true }

describe('OpenTelemetry traces', () => {
  let receiver: OtlpReceiver
  /** Propagation off, content capture off. */
  let plain: TestGateway
  /** Propagation on (--trace-propagate), content capture on (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT), one retry. */
  let propagating: TestGateway

  before(async () => {
    receiver = await startOtlpReceiver()
    // Batches go out every 20 ms, so a test waits for its spans rather than for the gateway to close.
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token',
    }
    plain = await startTestGateway({}, {}, env)
    propagating = await startTestGateway({ tracePropagate: true }, { maxRetries: 1 }, { ...env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })
  })
  after(async () => {
    await plain?.close()
    await propagating?.close()
    await receiver?.close()
  })

  /** A request's SERVER span and its children (CLIENT spans, in start order), once exported. */
  async function spansOf(record: RequestRecord): Promise<{ server: ReceivedSpan; attempts: ReceivedSpan[] }> {
    let server: ReceivedSpan | undefined
    await waitUntil(() => (server = receiver.spans.find((s) => s.attributes['gw.request_id'] === record.id)) !== undefined, {
      what: `the span of ${record.id} exported`,
    })
    const attempts = () => receiver.spans.filter((s) => s.parentSpanId === server!.spanId).sort((a, b) => (a.startNs < b.startNs ? -1 : 1))
    const sent = record.attempts.filter((a) => !a.error?.startsWith('skipped:')).length
    await waitUntil(() => attempts().length >= sent, { what: `${sent} attempt spans of ${record.id}` })
    assert.equal(receiver.spans.filter((s) => s.attributes['gw.request_id'] === record.id).length, 1, 'one span per request')
    return { server: server!, attempts: attempts() }
  }

  const chat = (t: TestGateway, headers: Record<string, string>, model = 'gpt-4o-mini') =>
    t.client.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }] }, { headers }).withResponse()

  it("one SERVER span per request carrying the record's GenAI and gateway attributes, the child of the client's span; one CLIENT span per attempt", async () => {
    assert.ok(otelLoaded(), 'tracing on loads OpenTelemetry (what the tracing-off test asserts is not loaded)')
    const gw = plain.running.gateway
    await gw.store.presets.save(
      { name: 'traced', model: 'gpt-4o-mini', system_prompt: null, temperature: null, top_p: null, max_tokens: null, fallbacks: [], description: null },
      'test',
    )
    await gw.configChanged()
    const { response } = await chat(
      plain,
      { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'vendor=abc', 'x-gw-session-id': 'sess-1' },
      'policy/traced',
    )
    const record = await plain.record(response.headers.get('x-request-id'))
    const { server, attempts } = await spansOf(record)

    assert.equal(server.kind, SPAN_KIND.server)
    assert.equal(server.traceId, CLIENT_TRACE, "the client's trace, continued")
    assert.equal(server.parentSpanId, CLIENT_SPAN, "the client's span is the parent")
    assert.equal(server.flags, 0x301, 'sampled, its parent known to be remote')
    assert.equal(server.traceState, 'vendor=abc')
    assert.equal(server.name, 'chat policy/traced')
    assert.deepEqual(server.status, { code: STATUS_CODE.unset, message: '' })
    assert.equal(server.resource['service.name'], 'gw-gateway')
    assert.ok(record.usage && record.cost?.final_usd && record.source_tool)
    assert.deepEqual(server.attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'policy/traced',
      'gen_ai.response.model': record.upstream_model,
      'gen_ai.usage.input_tokens': record.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': record.usage.completion_tokens,
      'gw.cost.usd': record.cost.final_usd,
      'gw.preset': 'traced',
      'gw.session_id': 'sess-1',
      'gw.source_tool': record.source_tool,
      'gw.request_id': record.id,
      'gw.endpoint': 'chat.completions',
      'gw.outcome': 'ok',
      'gw.provider': 'openai',
      'gw.instance': record.instance,
      'http.response.status_code': 200,
    })

    assert.equal(attempts.length, 1)
    const [attempt] = attempts
    assert.equal(attempt.kind, SPAN_KIND.client)
    assert.equal(attempt.traceId, CLIENT_TRACE)
    assert.equal(attempt.name, `chat ${record.upstream_model}`)
    assert.equal(attempt.flags, 0x101, 'sampled, its parent (the request span) known to be local')
    assert.deepEqual(attempt.attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': record.attempts[0].model,
      'gw.provider': 'openai',
      'http.response.status_code': 200,
    })
    assert.ok(server.startNs <= attempt.startNs && attempt.endNs <= server.endNs, 'the attempt lies within the request')
    assert.equal(plain.fake.received.at(-1)!.headers.traceparent, undefined, 'no traceparent to the provider unless configured')
    assert.equal(plain.fake.received.at(-1)!.headers.tracestate, undefined)
    assert.equal(receiver.exports.at(-1)!.authorization, 'Bearer collector-token', "OTEL_EXPORTER_OTLP_HEADERS' header goes with each export")
  })

  it('a retried attempt: two CLIENT spans, the failed one in error, each the parent of what the provider received when propagation is on', async () => {
    propagating.fake.script({ kind: 'status', status: 500 })
    const { response } = await chat(propagating, {})
    const record = await propagating.record(response.headers.get('x-request-id'))
    assert.deepEqual(
      record.attempts.map((a) => a.status),
      [500, 200],
    )
    const { server, attempts } = await spansOf(record)
    assert.equal(server.parentSpanId, '', 'no traceparent from the client: a new trace')
    assert.equal(server.status.code, STATUS_CODE.unset)
    assert.equal(attempts.length, 2)
    assert.equal(attempts[0].status.code, STATUS_CODE.error)
    assert.equal(attempts[0].status.message, record.attempts[0].error)
    assert.equal(attempts[0].attributes['http.response.status_code'], 500)
    assert.equal(attempts[0].attributes['error.type'], '500')
    assert.equal(attempts[1].status.code, STATUS_CODE.unset)
    assert.equal(attempts[1].attributes['http.response.status_code'], 200)
    assert.deepEqual(
      propagating.fake.received.slice(-2).map((r) => r.headers.traceparent),
      attempts.map((a) => `00-${server.traceId}-${a.spanId}-01`),
      "each attempt carries its own span's traceparent to the provider",
    )
  })

  it("propagation on: the client's trace and tracestate go on to the provider under the attempt's span", async () => {
    const { response } = await chat(propagating, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'vendor=abc' })
    const record = await propagating.record(response.headers.get('x-request-id'))
    const { server, attempts } = await spansOf(record)
    assert.equal(server.parentSpanId, CLIENT_SPAN)
    const sent = propagating.fake.received.at(-1)!.headers
    assert.equal(sent.traceparent, `00-${CLIENT_TRACE}-${attempts[0].spanId}-01`)
    assert.equal(sent.tracestate, 'vendor=abc')
  })

  it("a client's trace that is not sampled: no span exported, its trace still carried on when propagation is on", async () => {
    const unsampled = 'f'.repeat(32)
    for (const t of [plain, propagating]) {
      const { response } = await chat(t, { traceparent: `00-${unsampled}-${CLIENT_SPAN}-00` })
      const skipped = await t.record(response.headers.get('x-request-id'))
      // Spans leave in the order they ended: once a later request's is in, the skipped one's would be.
      const { response: later } = await chat(t, {})
      await spansOf(await t.record(later.headers.get('x-request-id')))
      assert.equal(
        receiver.spans.some((s) => s.traceId === unsampled || s.attributes['gw.request_id'] === skipped.id),
        false,
      )
    }
    const unsampledSent = propagating.fake.received.at(-2)!
    assert.equal(plain.fake.received.at(-2)!.headers.traceparent, undefined)
    assert.match(String(unsampledSent.headers.traceparent), new RegExp(`^00-${unsampled}-[0-9a-f]{16}-00$`))
  })

  it('a failed request: its span in error, with the error type and the status the client got', async () => {
    plain.fake.script({ kind: 'status', status: 400 })
    const failed = await chat(plain, {}).catch((e: { status: number; headers: Headers }) => e)
    assert.equal((failed as { status: number }).status, 400)
    const record = await plain.record((failed as { headers: Headers }).headers.get('x-request-id'))
    const { server, attempts } = await spansOf(record)
    assert.equal(server.status.code, STATUS_CODE.error)
    assert.equal(server.status.message, record.error!.message)
    assert.equal(server.attributes['error.type'], record.error!.code ?? record.error!.type)
    assert.equal(server.attributes['http.response.status_code'], record.status)
    assert.equal(server.attributes['gw.outcome'], 'error')
    assert.equal(attempts.length, 1)
    assert.equal(attempts[0].status.code, STATUS_CODE.error)
  })

  it("a fallback the key's policy refuses: an event on the request's span, not an attempt span", async () => {
    const gw = plain.running.gateway
    await gw.store.presets.save(
      {
        name: 'guarded',
        model: 'gpt-4o-mini',
        system_prompt: null,
        temperature: null,
        top_p: null,
        max_tokens: null,
        fallbacks: ['gpt-4o'],
        description: null,
      },
      'test',
    )
    const { secret } = await gw.store.keys.create('mini only', { policy: { allowed_models: ['gpt-4o-mini'] } })
    await gw.configChanged()
    plain.fake.script({ kind: 'status', status: 500 })
    const client = new OpenAI({ baseURL: plain.baseURL, apiKey: secret, maxRetries: 0 })
    const failed = (await client.chat.completions
      .create({ model: 'policy/guarded', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as {
      headers: Headers
    }
    const record = await plain.record(failed.headers.get('x-request-id'))
    assert.deepEqual(
      record.attempts.map((a) => [a.model, a.status]),
      [
        ['gpt-4o-mini', 500],
        ['gpt-4o', null],
      ],
    )
    const { server, attempts } = await spansOf(record)
    assert.equal(attempts.length, 1)
    assert.deepEqual(server.events, [
      { name: 'gw.attempt.skipped', attributes: { 'gw.provider': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gw.reason': record.attempts[1].error } },
    ])
    assert.match(record.attempts[1].error!, /^skipped: /)
  })

  it('prompt and completion text only with body logging on and content capture asked for', async () => {
    const bodyOf = async (t: TestGateway) => {
      const { response } = await chat(t, {})
      const { server } = await spansOf(await t.record(response.headers.get('x-request-id')))
      const all = JSON.stringify(receiver.spans.filter((s) => s.traceId === server.traceId).map((s) => [s.attributes, s.events]))
      return { server, mentioned: all.includes(PROMPT) }
    }
    // Capture asked for, body logging off.
    assert.equal((await bodyOf(propagating)).mentioned, false)
    for (const t of [plain, propagating]) {
      await t.running.gateway.store.settings.write({ log_bodies: true })
      await t.running.gateway.configChanged()
    }
    // Body logging on, capture not asked for.
    assert.equal((await bodyOf(plain)).mentioned, false)
    // Both.
    const both = await bodyOf(propagating)
    assert.equal(both.mentioned, true)
    assert.equal(JSON.parse(both.server.attributes['gw.request.body'] as string).messages[0].content, PROMPT)
    assert.match(both.server.attributes['gw.response.body'] as string, /Hello from the fake provider/)
  })

  it("gateway.status says where spans go and what they carry, without the collector's credentials", async () => {
    const { result } = await propagating.running.admin.invoke('gateway.status', {}, operator)
    assert.ok(result.ok)
    assert.deepEqual((result.value as { tracing: unknown }).tracing, { endpoint: `${receiver.url}/v1/traces`, propagate: true, capture_content: true })
  })

  it('a protocol other than http/protobuf stops the start, naming its variable', async () => {
    const dataDir = tempDir()
    await assert.rejects(
      startGateway(
        { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
        { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' } },
      ),
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc: the gateway exports traces over OTLP\/HTTP with protobuf only/,
    )
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
})

describe('OpenTelemetry traces: the standard variables, shutdown and a dead collector', () => {
  let receiver: OtlpReceiver
  before(async () => {
    receiver = await startOtlpReceiver()
  })
  after(() => receiver?.close())

  const chatOnce = async (t: TestGateway) => {
    const { response } = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse()
    return t.record(response.headers.get('x-request-id'))
  }

  it("shutdown sends the last spans, under OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES' resource", async () => {
    // A batch due in a minute: only the shutdown sends it.
    const t = await startTestGateway(
      {},
      {},
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '60000',
        OTEL_SERVICE_NAME: 'gateway-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=overridden',
      },
    )
    const record = await chatOnce(t)
    assert.equal(receiver.spans.filter((s) => s.attributes['gw.request_id'] === record.id).length, 0, 'not sent before the shutdown')
    await t.close()
    const [server] = receiver.spans.filter((s) => s.attributes['gw.request_id'] === record.id)
    assert.ok(server, 'sent by the shutdown')
    assert.equal(server.resource['service.name'], 'gateway-eu', 'OTEL_SERVICE_NAME over the resource attributes')
    assert.equal(server.resource['deployment.environment'], 'prod')
    assert.equal(server.resource['telemetry.sdk.language'], 'nodejs')
    assert.equal(receiver.spans.filter((s) => s.traceId === server.traceId).length, 2, 'its attempt span too')
  })

  it('OTEL_TRACES_SAMPLER=always_off: nothing exported; traceidratio with ratio 0 neither, and the propagated traceparent says so', async () => {
    const before = receiver.spans.length
    for (const [sampler, propagate] of [
      ['always_off', false],
      ['traceidratio', true],
    ] as const) {
      const t = await startTestGateway(
        { tracePropagate: propagate },
        {},
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_TRACES_SAMPLER: sampler,
          OTEL_TRACES_SAMPLER_ARG: '0',
        },
      )
      await chatOnce(t)
      if (propagate) assert.match(String(t.fake.received.at(-1)!.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/)
      await t.close()
    }
    assert.equal(receiver.spans.length, before)
  })

  it("traceidratio samples by the gateway's own trace ids as OpenTelemetry's sampler reads them: the exported and the propagated agree", async () => {
    const t = await startTestGateway(
      { tracePropagate: true },
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' },
    )
    const traces: Array<{ id: string; sampled: boolean }> = []
    for (let i = 0; i < 24; i++) {
      await chatOnce(t)
      const traceparent = String(t.fake.received.at(-1)!.headers.traceparent)
      traces.push({ id: traceparent.slice(3, 35), sampled: traceparent.endsWith('-01') })
    }
    await t.close()
    // OpenTelemetry's TraceIdRatioBasedSampler: the trace id's four 32-bit words xor-ed, under the ratio of 2^32 − 1.
    const accumulated = (id: string) => [0, 8, 16, 24].reduce((acc, at) => (acc ^ parseInt(id.slice(at, at + 8), 16)) >>> 0, 0)
    const exported = new Set(receiver.spans.map((s) => s.traceId))
    for (const { id, sampled } of traces) {
      assert.equal(sampled, accumulated(id) < Math.floor(0.5 * 0xffffffff), `trace ${id} sampled as its id says`)
      assert.equal(exported.has(id), sampled, `trace ${id} exported only if sampled`)
    }
    assert.ok(traces.some((x) => x.sampled) && traces.some((x) => !x.sampled), 'at one half, some of 24 sampled and some not')
  })

  it('a sampler or batching the gateway does not have stops the start, naming its variable', async () => {
    for (const [env, message] of [
      [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, /OTEL_TRACES_SAMPLER: "jaeger_remote" is not a sampler the gateway has/],
      [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG must be a probability from 0 to 1/],
      [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, /OTEL_BSP_MAX_QUEUE_SIZE must be a whole number of at least 1, got "0"/],
    ] as const) {
      const dataDir = tempDir()
      await assert.rejects(
        startGateway(
          { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
          { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env } },
        ),
        message,
      )
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('a dead collector: requests answered and recorded as ever, and the gateway closes within OTEL_BSP_EXPORT_TIMEOUT', async () => {
    const dead = await startOtlpReceiver()
    const url = dead.url
    await dead.close()
    const t = await startTestGateway({}, {}, { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: '1', OTEL_BSP_EXPORT_TIMEOUT: '300' })
    for (let i = 0; i < 5; i++) assert.equal((await chatOnce(t)).outcome, 'ok')
    const closing = performance.now()
    await t.close()
    assert.ok(performance.now() - closing < 3000, `closed in ${Math.round(performance.now() - closing)} ms`)
  })
})
