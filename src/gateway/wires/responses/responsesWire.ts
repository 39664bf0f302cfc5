import type { Sink } from '../../core/sink'
import { OK, type Finished, type InboundWire } from '../../core/wire'
import type { ClientAbort } from '../../upstream/clientAbort'
import { costOf } from '../../pipeline/cost'
import type { RequestContext } from '../../pipeline/requestContext'
import { adapterFor } from '../../providers/kinds'
import { servesResponses } from '../../providers/registry'
import type { Redactor } from '../../secrets/redactor'
import type { UpstreamResponse } from '../../upstream/client'
import { readJson, sendJson } from '../answer'
import { relayChatStream } from '../chat/chatStream'
import { translatedChatRequest } from '../translatedChat'
import { ResponsesEvents } from './chatStreamToResponses'
import { chatToResponse, type ResponseShape } from './chatToResponse'
import { applyResponsesPreset, promptOf, validateResponsesBody, type ResponsesBody } from './responsesBody'
import { deliverNative, nativeRequest } from './responsesNative'
import { responsesToChat } from './responsesToChat'
import { translateTools } from './responsesTools'

/** A provider's chat answer, JSON or stream, delivered as a Responses response. */
async function deliverTranslated(
  ctx: RequestContext,
  body: ResponsesBody,
  upstream: UpstreamResponse,
  sink: Sink,
  signal: ClientAbort,
  redactor: Redactor,
): Promise<Finished> {
  const providerId = ctx.target!.provider.id
  const adapter = adapterFor(ctx.target!.provider.kind)
  // The names the tools were sent under, to map the model's calls back.
  const shape: ResponseShape = { model: ctx.model ?? body.model, body, names: translateTools(body).names }
  if (ctx.stream) {
    const events = new ResponsesEvents(ctx, sink, shape)
    return relayChatStream(ctx, sink, upstream, adapter.streamTranslator(providerId, redactor), events, { prompt: promptOf(body), signal })
  }
  const answer = await readJson(providerId, upstream)
  const { completion, usage } = adapter.chatResponse(answer.json, providerId)
  ctx.usage = usage
  ctx.cost = costOf(ctx, usage)
  await sendJson(ctx, sink, chatToResponse(completion, usage, shape))
  return OK
}

/**
 * OpenAI's Responses API. To a provider that serves it (`servesResponses`) the body goes as sent
 * but for its model (and a preset's changes) and without the `gw` envelope, with the headers Codex
 * identifies its session by, so every field the gateway does not know (input items, hosted and
 * namespace tools, reasoning, include, store, client_metadata…) reaches it, and the answer comes
 * back as the provider wrote it. To any other provider (chat-only servers, Anthropic through its
 * adapter) it is translated to chat completions and the answer back, streamed as the Responses
 * events; what has no counterpart is dropped and listed in the record's `ignored`, or refused
 * where the answer would mean something else; the forwarded headers stay behind. Which path a
 * request takes is the target's to say, in `request` and `deliver` alike, so a fallback may cross.
 */
export const responsesWire: InboundWire<ResponsesBody> = {
  endpoint: 'responses',
  forwardHeaders: ['session-id', 'thread-id', 'originator', 'x-client-request-id', 'x-codex-*'],
  read(body) {
    const b = validateResponsesBody(body)
    return { body: b, model: b.model, stream: b.stream === true, envelope: b.gw }
  },
  applyPreset: applyResponsesPreset,
  control: (body) => ({
    chat: true,
    prompt: promptOf(body),
    limitField: 'max_output_tokens',
  }),
  request(ctx, body, target, forwarded) {
    if (servesResponses(target.provider)) return nativeRequest('responses', body, target, forwarded)
    return translatedChatRequest(ctx, target, (t) => responsesToChat(body, t))
  },
  deliver(ctx, body, upstream, sink, signal, redactor) {
    if (servesResponses(ctx.target!.provider)) return deliverNative(ctx, body, upstream, sink, signal, redactor)
    return deliverTranslated(ctx, body, upstream, sink, signal, redactor)
  },
}
