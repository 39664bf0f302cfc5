import type { IncomingHttpHeaders } from 'node:http'
import type { ContractError } from '../../contract'
import type { ApiError, OpenAIErrorBody } from '../errors'
import { anthropicErrorReply, isMessagesPath } from './anthropicGrammar'
import { googleErrorReply } from './geminiGrammar'
import type { ErrorReply } from './replySink'

/** The management API answers in the contract's error shape; every other route in OpenAI's or Anthropic's. */
export const isManagementPath = (url: string): boolean => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')

const isModelsPath = (url: string): boolean => url === '/v1/models' || url.startsWith('/v1/models?') || url.startsWith('/v1/models/')

/**
 * Whether a request is on Anthropic's wire: the Messages API's routes always, and the model list
 * when its caller is an Anthropic client (its SDKs send `anthropic-version` on every request).
 */
export const isAnthropicRequest = (url: string, headers: IncomingHttpHeaders): boolean =>
  isMessagesPath(url) || (isModelsPath(url) && headers['anthropic-version'] !== undefined)

/** Google's routes: all of `/v1beta`, and its methods (`models/{model}:{method}`) under `/v1`. */
const isGeminiPath = (url: string): boolean => url.startsWith('/v1beta/') || url === '/v1beta' || /^\/v1\/models\/[^?]*(:|%3A)/i.test(url)

/**
 * Whether a request is on Google's wire: its routes always, and the model list when its caller is
 * a Google client (its SDK sends `x-goog-api-client` and the key in `x-goog-api-key` or `?key=`).
 * Their errors, the framework's among them, are in Google's shape.
 */
export const isGoogleRequest = (url: string, headers: IncomingHttpHeaders): boolean =>
  isGeminiPath(url) || (isModelsPath(url) && (headers['x-goog-api-key'] !== undefined || headers['x-goog-api-client'] !== undefined || /[?&]key=/.test(url)))

/** The headers that carry a request's id: `x-request-id` on every answer, and `request-id` where Anthropic's SDKs read it. */
export const requestIdHeaders = (url: string | null, headers: IncomingHttpHeaders | null, id: string): Record<string, string> =>
  url !== null && isAnthropicRequest(url, headers ?? {}) ? { 'x-request-id': id, 'request-id': id } : { 'x-request-id': id }

type ManagementErrorBody = { error: ContractError }

/**
 * An error's body in the documented shape of the route `url` belongs to, OpenAI's or the
 * management API's. Where the route cannot be known (the connection failed before its request
 * line could be read), the body carries both shapes' fields, so either side's client reads it.
 */
function errorBody(url: string | null, e: ApiError): OpenAIErrorBody | ManagementErrorBody {
  if (url !== null && !isManagementPath(url)) return e.toBody()
  const management: ContractError = { status: e.status, code: e.code ?? e.type, message: e.message, ...(e.param !== null && { field: e.param }) }
  return { error: url === null ? { ...e.toBody().error, ...management } : management }
}

/**
 * The one rule for which shape an error takes, for every way a request can fail (a route, the
 * framework, the HTTP parser): Anthropic's on Anthropic's wire, Google's on Google's, the
 * contract's on the management API, OpenAI's everywhere else. `headers` are the request's, when they could be read.
 */
export function errorReply(url: string | null, headers: IncomingHttpHeaders | null, e: ApiError): ErrorReply {
  if (url !== null && isAnthropicRequest(url, headers ?? {})) return anthropicErrorReply(e)
  if (url !== null && isGoogleRequest(url, headers ?? {})) return googleErrorReply(e)
  return { status: e.status, headers: e.headers, body: errorBody(url, e) }
}
