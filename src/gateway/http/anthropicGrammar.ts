import type { ApiError } from '../errors'
import { namedFrame, type ErrorReply, type Grammar } from './replySink'

/** Anthropic's error type and status for the gateway's status (its errors page); the message stays the gateway's. */
const KINDS: Record<number, [type: string, status: number]> = {
  401: ['authentication_error', 401],
  402: ['billing_error', 402],
  403: ['permission_error', 403],
  404: ['not_found_error', 404],
  // The client's own upload was too slow: the timeout type, with the status that says whose timeout
  // it was (504 would blame the gateway's provider); the SDKs retry both alike.
  408: ['timeout_error', 408],
  413: ['request_too_large', 413],
  // Headers over the limit are a request too large; 413 is what Anthropic answers it with, and no retry cures it.
  431: ['request_too_large', 413],
  429: ['rate_limit_error', 429],
  // The gateway's "no provider can take it now" is Anthropic's "overloaded": both mean retry later.
  503: ['overloaded_error', 529],
  504: ['timeout_error', 504],
}

const anthropicKind = (status: number): [type: string, status: number] =>
  KINDS[status] ?? (status >= 500 ? ['api_error', status] : ['invalid_request_error', 400])

/** `{"type":"error","error":{"type","message"}}` with Anthropic's status; a bad credential is never worth a retry. */
export function anthropicErrorReply(error: ApiError): ErrorReply {
  const [type, status] = anthropicKind(error.status)
  const headers = status === 401 ? { ...error.headers, 'x-should-retry': 'false' } : error.headers
  return { status, headers, body: { type: 'error', error: { type, message: error.message } } }
}

/** Anthropic's: named events (`event: <type>`), no end marker (message_stop is an event), errors as an `error` event. */
export const anthropicGrammar: Grammar = {
  apiKeyHeader: 'x-api-key',
  frame: namedFrame,
  done: '',
  streamError: (error) => `event: error\ndata: ${JSON.stringify(anthropicErrorReply(error).body)}\n\n`,
  errorReply: anthropicErrorReply,
}

/** The Messages API's routes: their errors, framework ones included, are in Anthropic's shape. */
export const isMessagesPath = (url: string): boolean => url === '/v1/messages' || url.startsWith('/v1/messages?') || url.startsWith('/v1/messages/')
