import type { TraceId } from './spanIds'

/**
 * Whether a request's spans are sampled, from its trace id and whether the client's span (its
 * `traceparent`) was sampled: null when it sent none.
 */
export type Sampler = (traceId: TraceId, parentSampled: boolean | null) => boolean

/*
 * OpenTelemetry's six standard samplers, as its sdk-trace has them (2.x), read from the trace id's
 * words rather than its hex and without a context object: asked through OpenTelemetry's own, a
 * request spent ~1 µs on the event loop making what they read. test/unit/sampler.test.ts holds
 * each to OpenTelemetry's, decision by decision.
 */

const always = () => true
const never = () => false

/**
 * TraceIdRatioBased: the trace id's four words xor-ed, under the ratio of 2^32 − 1 (every trace at
 * ratio 1). A sampler of the trace id alone, so a trace is sampled or not wherever it is decided.
 */
function ratioOf(ratio: number): Sampler {
  const bound = ratio >= 1 ? 0x100000000 : Math.floor(ratio * 0xffffffff)
  return ({ w0, w1, w2, w3 }) => (w0 ^ w1 ^ w2 ^ w3) >>> 0 < bound
}

/** ParentBased with OpenTelemetry's defaults: a client's span decides (sampled or not), `root` decides a trace begun here. */
const parentBased =
  (root: Sampler): Sampler =>
  (traceId, parentSampled) =>
    parentSampled === null ? root(traceId, null) : parentSampled

/**
 * The sampler `OTEL_TRACES_SAMPLER` (and `_ARG`) name (only OpenTelemetry's sdk-node reads the
 * variables, so they are read here). By default every request is traced unless the client's
 * `traceparent` says its trace is not sampled (parentbased_always_on).
 */
export function samplerFrom(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on'
  const ratio = () => {
    const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim()
    if (!arg) return 1
    const n = Number(arg)
    if (!(n >= 0 && n <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a probability from 0 to 1 for ${name}, got "${arg}"`)
    return n
  }
  switch (name) {
    case 'always_on':
      return always
    case 'always_off':
      return never
    case 'traceidratio':
      return ratioOf(ratio())
    case 'parentbased_always_on':
      return parentBased(always)
    case 'parentbased_always_off':
      return parentBased(never)
    case 'parentbased_traceidratio':
      return parentBased(ratioOf(ratio()))
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER: "${name}" is not a sampler the gateway has (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)`,
      )
  }
}
