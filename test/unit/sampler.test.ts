import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler as OpenTelemetrySampler,
} from '@opentelemetry/sdk-trace'
import { IdPool, spanIdHex, traceIdHex } from '../../src/gateway/tracing/spanIds'
import { samplerFrom } from '../../src/gateway/tracing/sampler'

/** OpenTelemetry's sampler of each name, with the ratio given. */
const OPEN_TELEMETRY: Record<string, (ratio: number) => OpenTelemetrySampler> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (ratio) => new TraceIdRatioBasedSampler(ratio),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (ratio) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
}

describe("sampler: OpenTelemetry's standard samplers, read from the trace id's words", () => {
  it('decides as OpenTelemetry does for every sampler, ratio and kind of parent, over 2,000 trace ids', () => {
    const ids = new IdPool()
    const traces = Array.from({ length: 2000 }, () => ids.traceId())
    for (const [name, theirs] of Object.entries(OPEN_TELEMETRY)) {
      for (const ratio of name.includes('ratio') ? [0, 0.001, 0.25, 0.5, 0.999, 1] : [1]) {
        const sample = samplerFrom({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: String(ratio) })
        const sampler = theirs(ratio)
        const decided = { yes: 0, no: 0 }
        for (const traceId of traces) {
          const hex = traceIdHex(traceId)
          for (const parentSampled of [null, true, false]) {
            const context =
              parentSampled === null
                ? ROOT_CONTEXT
                : trace.setSpanContext(ROOT_CONTEXT, {
                    traceId: hex,
                    spanId: spanIdHex(ids.spanId()),
                    traceFlags: parentSampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
                    isRemote: true,
                  })
            const expected = sampler.shouldSample(context, hex, 'gateway', SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED
            assert.equal(sample(traceId, parentSampled), expected, `${name} ${ratio}, trace ${hex}, parent ${parentSampled}`)
            decided[expected ? 'yes' : 'no']++
          }
        }
        // Each sampler is asked where its answer can go either way (a ratio of 0.25 both samples and not).
        if (ratio > 0.1 && ratio < 0.9) assert.ok(decided.yes > 0 && decided.no > 0, `${name} ${ratio}: ${JSON.stringify(decided)}`)
      }
    }
  })

  it('is the default parentbased_always_on, and names what it does not have', () => {
    const ids = new IdPool()
    const sample = samplerFrom({})
    assert.equal(sample(ids.traceId(), null), true)
    assert.equal(sample(ids.traceId(), false), false)
    assert.throws(() => samplerFrom({ OTEL_TRACES_SAMPLER: 'jaeger_remote' }), /OTEL_TRACES_SAMPLER: "jaeger_remote" is not a sampler the gateway has/)
    assert.throws(
      () => samplerFrom({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }),
      /OTEL_TRACES_SAMPLER_ARG must be a probability from 0 to 1/,
    )
  })
})
