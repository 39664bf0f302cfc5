import { errors as undiciErrors } from 'undici'
import { ApiError } from '../errors'
import type { Redactor } from '../secrets/redactor'
import { envVarFor } from '../secrets/secretStore'
import { SseLimitError } from '../../shared/sse'
import { isObj } from '../jsonObject'

interface ParsedError {
  message: string
  /** The provider's error type when it uses OpenAI's (or Anthropic's) vocabulary; null otherwise (Gemini's `status` is no such type). */
  type: string | null
  /** A string code only: OpenRouter's and Gemini's numeric codes repeat the HTTP status and are dropped. */
  code: string | null
  param: string | null
  /** Gemini's `details[].reason` values (`API_KEY_INVALID`, …). */
  reasons: string[]
  /** Gemini's wait before a retry, in its body (a `google.rpc.RetryInfo` detail's `retryDelay`, `"17s"`), in milliseconds. */
  retryDelayMs: number | null
  /** OpenRouter's moderation verdict (`metadata.reasons` or `flagged_input`): the reasons given, null when there is none. */
  moderation: string[] | null
}

/** A plain-text or unrecognised error body is cut to this length. */
const MAX_EXCERPT = 500
/** A provider's own message, code or type is cut to this length. */
const MAX_FIELD = 8000
/**
 * Text read past a cut before it is scrubbed: more than any credential is long, so one straddling
 * the cut goes whole, while a megabyte error page costs no more to scrub than a short one.
 */
const SCRUB_SLACK = 1000

/** A protobuf Duration as JSON (`"17s"`, `"0.5s"`, `"1.000340s"`). */
const DURATION = /^(\d{1,9}(?:\.\d{1,9})?)s$/

/** The `retryDelay` of the first error detail that has one (`google.rpc.RetryInfo`), in milliseconds. */
function retryDelayOf(details: unknown[]): number | null {
  for (const d of details) {
    const m = isObj(d) && typeof d.retryDelay === 'string' ? DURATION.exec(d.retryDelay) : null
    if (m) return Math.round(Number(m[1]) * 1000)
  }
  return null
}

/**
 * Reads the error shapes providers use: OpenAI's, Gemini's array, OpenRouter's numeric code,
 * vLLM's flat object, plain text. This is where a provider's error text becomes the gateway's, so
 * every string it returns has been through the redactor: a provider that echoes the credential it
 * was sent does not pass it on.
 */
export function parseUpstreamError(text: string, redactor: Redactor): ParsedError {
  const clean = (v: string, max = MAX_FIELD) => redactor.scrub(v.slice(0, max + SCRUB_SLACK)).slice(0, max)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return {
      message: clean(text.trim(), MAX_EXCERPT) || 'no error message',
      type: null,
      code: null,
      param: null,
      reasons: [],
      retryDelayMs: null,
      moderation: null,
    }
  }
  // Gemini: `[{"error": {"code": 400, "message": …, "status": "INVALID_ARGUMENT", "details": […]}}]`.
  if (Array.isArray(body)) body = body.find(isObj) ?? body[0]
  const o = isObj(body) ? body : {}
  const e = isObj(o.error) ? o.error : o
  const str = (v: unknown) => (typeof v === 'string' ? clean(v) : typeof v === 'number' ? String(v) : null)
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((r): r is string => typeof r === 'string').map((r) => clean(r)) : [])
  const details = Array.isArray(e.details) ? e.details : []
  const metadata = isObj(e.metadata) ? e.metadata : null
  return {
    message: str(e.message) ?? (typeof o.error === 'string' ? clean(o.error) : clean(JSON.stringify(body), MAX_EXCERPT)),
    type: typeof e.type === 'string' ? clean(e.type) : null,
    code: typeof e.code === 'string' ? clean(e.code) : null,
    param: str(e.param),
    reasons: strings(details.map((d) => (isObj(d) ? d.reason : null))),
    retryDelayMs: retryDelayOf(details),
    moderation: metadata && (Array.isArray(metadata.reasons) || 'flagged_input' in metadata) ? strings(metadata.reasons) : null,
  }
}

/** OpenAI's error type for an HTTP status, for providers whose errors carry none (Gemini, OpenRouter). */
function openAIType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded'
  return status >= 500 ? 'server_error' : 'invalid_request_error'
}

/**
 * What the client sees when a provider answers with an error before the first byte. Errors the
 * caller can fix (a bad parameter, an unknown upstream model) keep their status; failures of the
 * provider or of the gateway's own credentials become 502/503/504, never a 401 (the caller's key
 * was fine) and never a 200.
 */
export function upstreamHttpError(
  providerId: string,
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined>,
  redactor: Redactor,
): ApiError {
  const e = parseUpstreamError(text, redactor)
  const from = `${providerId} answered ${status}: ${e.message}`
  // Gemini refuses a bad key with 400 INVALID_ARGUMENT: that is the gateway's credential, not the caller's request.
  const keyRefused = e.reasons.includes('API_KEY_INVALID')
  // OpenRouter's 403 is its moderation flagging the caller's input, not a refused credential.
  if (status === 403 && e.moderation) {
    const listed = e.moderation.length ? ` (${e.moderation.join(', ')})` : ''
    return new ApiError(400, 'invalid_request_error', `${providerId}: ${e.message}${listed}`, 'content_policy_violation', null)
  }
  if ([400, 404, 409, 413, 422].includes(status) && !keyRefused) {
    return new ApiError(status, e.type ?? openAIType(status), `${providerId}: ${e.message}`, e.code, e.param)
  }
  if (status === 401 || status === 403 || keyRefused) {
    return new ApiError(
      502,
      'upstream_error',
      `${from.replace(/\.$/, '')}. The gateway's credential for ${providerId} was refused; replace it with \`gw providers set ${providerId} --api-key-stdin\` or ${envVarFor(providerId)}.`,
      'provider_auth_failed',
      null,
      { 'x-should-retry': 'false' },
    )
  }
  if (status === 402 || e.code === 'insufficient_quota' || e.type === 'insufficient_quota') {
    return new ApiError(status === 402 ? 502 : 429, 'insufficient_quota', from, 'provider_insufficient_quota', null, {
      'x-should-retry': 'false',
    })
  }
  if (status === 429) {
    const retry: Record<string, string> = {}
    for (const h of ['retry-after', 'retry-after-ms']) {
      const v = headers[h]
      if (typeof v === 'string') retry[h] = v
    }
    // Google says how long to wait in its body, not in a header: the client and the routing read it as one.
    if (Object.keys(retry).length === 0 && e.retryDelayMs !== null) {
      retry['retry-after-ms'] = String(e.retryDelayMs)
      retry['retry-after'] = String(Math.ceil(e.retryDelayMs / 1000))
    }
    return new ApiError(429, e.type ?? openAIType(429), from, e.code ?? 'rate_limit_exceeded', null, retry)
  }
  if (status === 503 || status === 529) return new ApiError(503, 'server_error', from, 'provider_unavailable')
  if (status === 504 || status === 408) return new ApiError(504, 'server_error', from, 'provider_timeout')
  return new ApiError(502, 'server_error', from, 'upstream_error')
}

/**
 * Network-level failures: no HTTP status from the provider at all. The detail is undici's or
 * Node's own text, which names no header value and quotes no response bytes, so it needs no redactor.
 */
export function upstreamNetworkError(providerId: string, err: unknown): ApiError {
  if (err instanceof undiciErrors.ConnectTimeoutError || err instanceof undiciErrors.HeadersTimeoutError) {
    return new ApiError(504, 'server_error', `${providerId} did not answer in time (${(err as Error).message})`, 'provider_timeout')
  }
  if (err instanceof undiciErrors.BodyTimeoutError) {
    return new ApiError(504, 'server_error', `${providerId} stopped sending data (idle timeout)`, 'provider_timeout')
  }
  const code = (err as { code?: string }).code
  const detail = code ? `${code}: ${(err as Error).message}` : (err as Error).message
  return new ApiError(502, 'server_error', `${providerId} could not be reached (${detail})`, 'provider_unreachable')
}

/** What ends a stream that failed while it was being read: a provider that broke the SSE bounds, or the network. */
export function upstreamStreamError(providerId: string, err: unknown): ApiError {
  if (err instanceof SseLimitError) return new ApiError(502, 'server_error', `${providerId} ${err.message}; the stream was cut`, 'upstream_error')
  return upstreamNetworkError(providerId, err)
}

/** A stream that ended without its finishing event: the answer is cut short, whatever the wire. */
export const upstreamIncomplete = (providerId: string) =>
  new ApiError(502, 'server_error', `${providerId} ended the stream before the answer was complete`, 'upstream_incomplete')
