import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveConfig } from '../../src/gateway/config'
import { tracingConfig, tracingStatus } from '../../src/gateway/tracing/tracingConfig'

describe('tracingConfig: OpenTelemetry standard variables', () => {
  it('is off without an endpoint, or with OTEL_SDK_DISABLED=true', () => {
    assert.equal(tracingConfig({}, false), null)
    assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false), null)
    assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }, false), null)
    assert.notEqual(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' }, false), null)
  })

  it('adds /v1/traces to the base endpoint; takes the traces endpoint as it is, before the base one', () => {
    assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, false)!.url, 'http://c:4318/v1/traces')
    assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/otlp/' }, false)!.url, 'http://c:4318/otlp/v1/traces')
    const specific = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/ingest' }
    assert.equal(tracingConfig(specific, false)!.url, 'https://t.example/ingest')
  })

  it('shows the endpoint without its credentials', () => {
    const c = tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:s3cret@t.example/v1/traces?api_key=k3y' }, true)!
    assert.equal(c.url, 'https://user:s3cret@t.example/v1/traces?api_key=k3y')
    assert.deepEqual(tracingStatus(c), { endpoint: 'https://t.example/v1/traces', propagate: true, capture_content: false })
    assert.equal(tracingStatus(null), null)
  })

  it('content capture: the GenAI conventions switch, true only when it says true', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }
    assert.equal(tracingConfig({ ...env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }, false)!.captureContent, true)
    assert.equal(tracingConfig({ ...env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '1' }, false)!.captureContent, false)
    assert.equal(tracingConfig(env, false)!.captureContent, false)
  })

  it('refuses a protocol other than http/protobuf, naming the variable; the traces one wins over the general one', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }
    assert.throws(() => tracingConfig({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, false), /^Error: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: /)
    assert.throws(() => tracingConfig({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }, false), /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http\/json/)
    assert.ok(tracingConfig({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, false))
    // No endpoint, no tracing: the protocol is not read.
    assert.equal(tracingConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, false), null)
  })

  it('refuses an endpoint that is not a URL, naming the variable', () => {
    assert.throws(
      () => tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }, false),
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "collector:4318" is not an http or https URL/,
    )
  })

  it('propagation: --trace-propagate, else GW_TRACE_PROPAGATE (1/0, true/false, on/off), off by default', () => {
    assert.equal(resolveConfig({ dataDir: '/tmp/x' }, {}).tracePropagate, false)
    assert.equal(resolveConfig({ dataDir: '/tmp/x' }, { GW_TRACE_PROPAGATE: '1' }).tracePropagate, true)
    assert.equal(resolveConfig({ dataDir: '/tmp/x', tracePropagate: true }, { GW_TRACE_PROPAGATE: 'false' }).tracePropagate, true)
    assert.throws(
      () => resolveConfig({ dataDir: '/tmp/x' }, { GW_TRACE_PROPAGATE: 'maybe' }),
      /GW_TRACE_PROPAGATE must be 1 or 0 \(true\/false, on\/off\), got "maybe"/,
    )
  })
})
