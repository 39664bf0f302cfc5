/**
 * Whether this gateway traces requests and where the spans go, read from OpenTelemetry's standard
 * environment variables. Nothing of OpenTelemetry is loaded here: with tracing off (no endpoint
 * set), this is all a gateway ever reads of it.
 */
export interface TracingConfig {
  /** Where spans are sent, over OTLP/HTTP with protobuf: the traces path included. */
  url: string
  /** The same without credentials (user, password, query), for the Settings screen. */
  shownUrl: string
  /** Whether the attempt's `traceparent` goes to the provider (`--trace-propagate`, `GW_TRACE_PROPAGATE`). */
  propagate: boolean
  /** Whether logged prompts and completions go into spans (the GenAI conventions' switch; body logging must be on too). */
  captureContent: boolean
  /** Where the rest is read from when tracing starts: headers, resource attributes, the sampler. */
  env: NodeJS.ProcessEnv
}

/** The only OTLP protocol this gateway exports with (the specification's default). */
const PROTOCOL = 'http/protobuf'

const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true'

/** An http(s) URL; `collector:4318` parses as a URL of scheme `collector:`, and is refused like any other. */
function checkedUrl(url: string, variable: string): URL {
  const parsed = URL.canParse(url) ? new URL(url) : null
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new Error(`${variable}: "${url}" is not an http or https URL (for example http://127.0.0.1:4318)`)
  }
  return parsed
}

/**
 * The tracing configuration `env` asks for, or null when tracing is off: no
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL as it is) or `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (a base URL, `/v1/traces` added), or `OTEL_SDK_DISABLED=true`. A protocol other than
 * http/protobuf is refused by name rather than exported in a way the collector does not expect.
 */
export function tracingConfig(env: NodeJS.ProcessEnv, propagate: boolean): TracingConfig | null {
  if (isTrue(env.OTEL_SDK_DISABLED)) return null
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!specific && !base) return null
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[variable]?.trim()
    if (!protocol) continue
    if (protocol !== PROTOCOL) {
      throw new Error(`${variable}=${protocol}: the gateway exports traces over OTLP/HTTP with protobuf only; set it to ${PROTOCOL} or leave it unset`)
    }
    break
  }
  const url = specific
    ? checkedUrl(specific, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : checkedUrl(`${base!.replace(/\/$/, '')}/v1/traces`, 'OTEL_EXPORTER_OTLP_ENDPOINT')
  const shown = new URL(url)
  shown.username = ''
  shown.password = ''
  shown.search = ''
  return {
    url: url.href,
    shownUrl: shown.href,
    propagate,
    captureContent: isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
    env,
  }
}

/** What the Settings screen shows of tracing: where spans go (never a credential) and what they carry. */
export const tracingStatus = (config: TracingConfig | null) =>
  config && { endpoint: config.shownUrl, propagate: config.propagate, capture_content: config.captureContent }
