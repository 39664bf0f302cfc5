import type { Sink } from '../../core/sink'
import { OK, type Finished } from '../../core/wire'
import type { ClientAbort } from '../../pipeline/clientAbort'
import { costOf } from '../../pipeline/cost'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import { normalizeResponsesUsage } from '../../pricing/usage'
import type { UpstreamRequest } from '../../providers/adapter'
import type { Redactor } from '../../secrets/redactor'
import type { UpstreamResponse } from '../../upstream/client'
import { readJson, sendJson } from '../answer'
import { upstreamResponsesBody, type ResponsesBody } from './responsesBody'
import { relayResponsesStream } from './responsesStream'

/** The same wire upstream: the body as sent but for the model and the `gw` envelope. */
export const nativeRequest = (body: ResponsesBody, target: Target): UpstreamRequest => ({
  path: 'responses',
  body: upstreamResponsesBody(body, target.upstreamModel),
})

/** The provider's answer as it wrote it, priced from its Responses usage, with `gw` on the response object. */
export async function deliverNative(ctx: RequestContext, upstream: UpstreamResponse, sink: Sink, signal: ClientAbort, redactor: Redactor): Promise<Finished> {
  if (ctx.stream) return relayResponsesStream(ctx, sink, upstream, signal, redactor)
  const answer = await readJson(ctx.target!.provider.id, upstream)
  ctx.usage = normalizeResponsesUsage(answer.json.usage)
  ctx.cost = costOf(ctx, ctx.usage)
  await sendJson(ctx, sink, answer.json, answer.text)
  return OK
}
