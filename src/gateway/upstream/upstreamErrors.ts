import { errors as undiciErrors } from 'undici'
import { ApiError } from '../errors'
import { envVarFor } from '../secrets/secretStore'
import { SseLimitError } from './sse'

interface ParsedError {
  message: string
  /** The provider's error type when it uses OpenAI's (or Anthropic's) vocabulary; null otherwise (Gemini's `status` is no such type). */
  type: string | null
  /** A string code only: OpenRouter's and Gemini's numeric codes repeat the HTTP status and are dropped. */
  code: string | null
  param: string | null
  /** Gemini's `details[].reason` values (`API_KEY_INVALID`, …). */
  reasons: string[]
  /** OpenRouter's `metadata` object (moderation reasons, the provider's raw error), when present. */
  metadata: Record<string, unknown> | null
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Reads the error shapes providers use: OpenAI's, Gemini's array, OpenRouter's numeric code, vLLM's flat object, plain text. */
export function parseUpstreamError(text: string): ParsedError {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { message: text.trim().slice(0, 500) || 'no error message', type: null, code: null, param: null, reasons: [], metadata: null }
  }
  // Gemini: `[{"error": {"code": 400, "message": …, "status": "INVALID_ARGUMENT", "details": […]}}]`.
  if (Array.isArray(body)) body = body.find(isObject) ?? body[0]
  const o = isObject(body) ? body : {}
  const e = isObject(o.error) ? o.error : o
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null)
  const details = Array.isArray(e.details) ? e.details : []
  return {
    message: str(e.message) ?? (typeof o.error === 'string' ? o.error : JSON.stringify(body).slice(0, 500)),
    type: typeof e.type === 'string' ? e.type : null,
    code: typeof e.code === 'string' ? e.code : null,
    param: str(e.param),
    reasons: details.flatMap((d) => (isObject(d) && typeof d.reason === 'string' ? [d.reason] : [])),
    metadata: isObject(e.metadata) ? e.metadata : null,
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
): ApiError {
  const e = parseUpstreamError(text)
  const from = `${providerId} answered ${status}: ${e.message}`
  // Gemini refuses a bad key with 400 INVALID_ARGUMENT: that is the gateway's credential, not the caller's request.
  const keyRefused = e.reasons.includes('API_KEY_INVALID')
  // OpenRouter's 403 is its moderation flagging the caller's input, not a refused credential.
  const moderated = status === 403 && e.metadata !== null && (Array.isArray(e.metadata.reasons) || 'flagged_input' in e.metadata)
  if (moderated) {
    const listed = e.metadata!.reasons
    const reasons = Array.isArray(listed) ? listed.filter((r) => typeof r === 'string') : []
    return new ApiError(400, 'invalid_request_error', `${providerId}: ${e.message}${reasons.length ? ` (${reasons.join(', ')})` : ''}`, 'content_policy_violation', null)
  }
  if ([400, 404, 409, 413, 422].includes(status) && !keyRefused) {
    return new ApiError(status, e.type ?? openAIType(status), `${providerId}: ${e.message}`, e.code, e.param)
  }
  if (status === 401 || status === 403 || keyRefused) {
    return new ApiError(
      502,
      'upstream_error',
      `${from}. The gateway's credential for ${providerId} was refused; replace it with \`gw providers set ${providerId} --api-key-stdin\` or ${envVarFor(providerId)}.`,
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
    return new ApiError(429, e.type ?? openAIType(429), from, e.code ?? 'rate_limit_exceeded', null, retry)
  }
  if (status === 503 || status === 529) return new ApiError(503, 'server_error', from, 'provider_unavailable')
  if (status === 504 || status === 408) return new ApiError(504, 'server_error', from, 'provider_timeout')
  return new ApiError(502, 'server_error', from, 'upstream_error')
}

/** Network-level failures: no HTTP status from the provider at all. */
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

/** Providers sometimes echo the credential they were given in an error; it must not travel further. */
export function redactSecret(err: ApiError, secret: string | null): ApiError {
  if (!secret || !err.message.includes(secret)) return err
  return new ApiError(err.status, err.type, err.message.replaceAll(secret, '[redacted]'), err.code, err.param, err.headers)
}
