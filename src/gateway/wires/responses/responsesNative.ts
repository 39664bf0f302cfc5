import type { Sink } from '../../core/sink'
import { OK, type Finished } from '../../core/wire'
import type { ClientAbort } from '../../upstream/clientAbort'
import { costOf } from '../../pipeline/cost'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import { normalizeResponsesUsage } from '../../pricing/usage'
import type { UpstreamRequest } from '../../providers/adapter'
import type { Redactor } from '../../secrets/redactor'
import type { UpstreamResponse } from '../../upstream/client'
import { readJson, sendJson } from '../answer'
import { promptOf, upstreamResponsesBody, type ResponsesBody } from './responsesBody'
import { relayResponsesStream } from './responsesStream'

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
export async function deliverNative(
  ctx: RequestContext,
  body: ResponsesBody,
  upstream: UpstreamResponse,
  sink: Sink,
  signal: ClientAbort,
  redactor: Redactor,
): Promise<Finished> {
  const stored = body.store !== false
  if (ctx.stream) return relayResponsesStream(ctx, sink, upstream, { signal, redactor, stored, prompt: promptOf(body) })
  const answer = await readJson(ctx.target!.provider.id, upstream)
  if (stored && typeof answer.json.id === 'string') ctx.upstreamId = answer.json.id
  ctx.usage = normalizeResponsesUsage(answer.json)
  ctx.cost = costOf(ctx, ctx.usage)
  await sendJson(ctx, sink, answer.json, answer.text)
  return OK
}
