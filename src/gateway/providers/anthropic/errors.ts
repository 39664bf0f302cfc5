import { ApiError } from '../../errors'
import type { Redactor } from '../../secrets/redactor'
import { parseUpstreamError, upstreamHttpError } from '../../upstream/upstreamErrors'

type Headers = Record<string, string | string[] | undefined>

/** Anthropic's `error.details.error_code` for an organisation's own spend limit: a 429 no retry can cure. */
function errorCode(text: string): string | null {
  try {
    const code = JSON.parse(text)?.error?.details?.error_code
    return typeof code === 'string' ? code : null
  } catch {
    return null
  }
}

/**
 * Anthropic's `{type: "error", error: {type, message}}` before the first byte, in OpenAI's shape
 * (reference §4.8). Errors the caller can fix keep their status with OpenAI's error type; the
 * gateway's own account running out of credit or hitting its spend limit is the gateway's
 * problem and not worth a retry (502, x-should-retry: false); the rest (401/403 → 502,
 * 429 → 429 with retry-after, 500 → 502, 504 → 504, 529 overloaded → 503) is the shared mapping.
 */
export function anthropicHttpError(providerId: string, status: number, text: string, headers: Headers, redactor: Redactor): ApiError {
  const e = parseUpstreamError(text, redactor)
  if (e.type === 'billing_error' || errorCode(text) === 'enforced_spend_limit_reached') {
    return new ApiError(502, 'insufficient_quota', `${providerId} answered ${status}: ${e.message}`, 'provider_insufficient_quota', null, {
      'x-should-retry': 'false',
    })
  }
  if (status === 400 || status === 404 || status === 413) {
    const code = status === 413 ? 'request_too_large' : status === 404 && /model/i.test(e.message) ? 'model_not_found' : null
    return new ApiError(status, 'invalid_request_error', `${providerId}: ${e.message}`, code, null)
  }
  return upstreamHttpError(providerId, status, text, headers, redactor)
}

/** An `error` event after the 200: the relay ends the stream with it in OpenAI's shape. */
export function anthropicStreamError(providerId: string, data: string, redactor: Redactor): ApiError {
  const e = parseUpstreamError(data, redactor)
  const message = `${providerId} failed mid-stream (${e.type ?? 'error'}): ${e.message}`
  if (e.type === 'overloaded_error') return new ApiError(503, 'server_error', message, 'provider_unavailable')
  return new ApiError(502, 'server_error', message, 'upstream_error')
}
