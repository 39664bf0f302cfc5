import type { Target } from '../../pipeline/resolveModel'
import { normalizeResponsesUsage } from '../../pricing/usage'
import type { UpstreamRequest } from '../../providers/adapter'
import type { AnswerGrammar } from '../deliver'
import { relayNativeStream } from '../nativeStream'
import { promptOf, upstreamResponsesBody, type ResponsesBody } from './responsesBody'
import { responsesEvents } from './responsesStream'

/** The same wire upstream: the body as sent but for the model and the `gw` envelope, with the caller's forwarded headers. */
export const nativeRequest = (path: string, body: ResponsesBody, target: Target, forwarded: Record<string, string> | null): UpstreamRequest => ({
  path,
  body: upstreamResponsesBody(body, target.upstreamModel),
  ...(forwarded ? { headers: forwarded } : {}),
})

/**
 * The provider's answer as it wrote it, priced from its Responses usage, with `gw` on the response
 * object. The id of an answer the provider stores goes into the record, for `GET /v1/responses/{id}`.
 */
export function nativeResponses(body: ResponsesBody): AnswerGrammar {
  const stored = body.store !== false
  return {
    whole: ({ json, text }) => ({
      body: json,
      asSent: text,
      usage: normalizeResponsesUsage(json),
      upstreamId: stored && typeof json.id === 'string' ? json.id : null,
    }),
    relay: (upstream, out) => relayNativeStream(out, upstream, responsesEvents(out, { stored, prompt: promptOf(body) })),
  }
}
