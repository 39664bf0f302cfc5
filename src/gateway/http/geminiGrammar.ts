import type { ApiError } from '../errors'
import type { ErrorReply, Grammar } from './replySink'

/** Google's canonical status name and HTTP code for the gateway's status (Google's error model, wire-format §8). */
const STATUSES: Record<number, [status: string, code: number]> = {
  400: ['INVALID_ARGUMENT', 400],
  401: ['UNAUTHENTICATED', 401],
  // Google has no 402: a balance or spend limit is a permission the key lacks until someone acts.
  402: ['PERMISSION_DENIED', 403],
  403: ['PERMISSION_DENIED', 403],
  404: ['NOT_FOUND', 404],
  408: ['DEADLINE_EXCEEDED', 504],
  409: ['ABORTED', 409],
  413: ['INVALID_ARGUMENT', 400],
  431: ['INVALID_ARGUMENT', 400],
  429: ['RESOURCE_EXHAUSTED', 429],
  500: ['INTERNAL', 500],
  501: ['UNIMPLEMENTED', 501],
  503: ['UNAVAILABLE', 503],
  504: ['DEADLINE_EXCEEDED', 504],
}

/**
 * Google's status for the gateway's error. One the gateway knows no retry can fix (`x-should-retry:
 * false`: a provider refusing the gateway's own credential, out of credit, or without a key) is
 * FAILED_PRECONDITION, as Google answers when billing must be set up first: Gemini CLI reads no
 * header and asks again after every 429 and 5xx, ten times over about four minutes by default.
 */
function googleStatus(error: ApiError): [string, number] {
  const [status, code] = STATUSES[error.status] ?? (error.status >= 500 ? ['UNAVAILABLE', 503] : ['INVALID_ARGUMENT', 400])
  const retried = code === 429 || code >= 500
  return retried && error.headers['x-should-retry'] === 'false' ? ['FAILED_PRECONDITION', 400] : [status, code]
}

/** `type.googleapis.com/google.rpc.RetryInfo`, from the gateway's retry-after, where it gives one. */
function details(error: ApiError): object[] | undefined {
  const out: object[] = []
  const after = Number(error.headers['retry-after'])
  if (Number.isFinite(after) && after > 0) out.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${after}s` })
  if (error.param !== null) {
    out.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: error.param, description: error.message }],
    })
  }
  if (error.code !== null) out.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code.toUpperCase(), domain: 'gw-gateway' })
  return out.length ? out : undefined
}

/** `{"error":{"code","message","status","details"}}` with Google's status for the gateway's. */
export function googleErrorBody(error: ApiError): { error: Record<string, unknown> } {
  const [status, code] = googleStatus(error)
  return { error: { code, message: error.message, status, details: details(error) } }
}

export function googleErrorReply(error: ApiError): ErrorReply {
  return { status: googleStatus(error)[1], headers: error.headers, body: googleErrorBody(error) }
}

const dataFrame = (event: object, text?: string) => `data: ${text !== undefined && !text.includes('\n') ? text : JSON.stringify(event)}\n\n`

/**
 * `streamGenerateContent?alt=sse`: each chunk one `data:` line, no end marker; an error inside the
 * stream is Google's error body as one more event.
 */
export const geminiSseGrammar: Grammar = {
  apiKeyHeader: 'x-goog-api-key',
  queryKey: true,
  frame: dataFrame,
  done: '',
  streamError: (error) => `data: ${JSON.stringify(googleErrorBody(error))}\n\n`,
  errorReply: googleErrorReply,
}

/**
 * `streamGenerateContent` without `alt=sse`: one JSON array written element by element as the
 * chunks come (Google's default). Stateful (the first element opens the array), so one per request.
 */
export class GeminiArrayGrammar implements Grammar {
  readonly apiKeyHeader = 'x-goog-api-key'
  readonly queryKey = true
  readonly contentType = 'application/json; charset=utf-8'
  private opened = false

  private next(): string {
    if (this.opened) return ',\r\n'
    this.opened = true
    return '['
  }

  frame(event: object, text?: string): string {
    return this.next() + (text ?? JSON.stringify(event))
  }

  get done(): string {
    return this.opened ? ']' : '[]'
  }

  streamError(error: ApiError): string {
    return `${this.next()}${JSON.stringify(googleErrorBody(error))}]`
  }

  errorReply = googleErrorReply
}
