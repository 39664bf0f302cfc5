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
import { chatToResponse, type KeptResponse, type ResponseShape } from './chatToResponse'
import type { Conversation, Conversations } from './conversations'
import { applyResponsesPreset, promptOf, validateResponsesBody, type ResponsesBody } from './responsesBody'
import { deliverNative, nativeRequest } from './responsesNative'
import { responsesToChat } from './responsesToChat'
import { translateTools } from './responsesTools'

/** A provider's chat answer, JSON or stream, delivered as a Responses response, kept where the request allows. */
async function deliverTranslated(
  ctx: RequestContext,
  body: ResponsesBody,
  upstream: UpstreamResponse,
  sink: Sink,
  signal: ClientAbort,
  redactor: Redactor,
  conv: Conversation,
  keep: ((response: KeptResponse) => void) | null,
): Promise<Finished> {
  const providerId = ctx.target!.provider.id
  const adapter = adapterFor(ctx.target!.provider.kind)
  // The names the tools were sent under, to map the model's calls back.
  const shape: ResponseShape = { model: ctx.model ?? body.model, body, names: translateTools(body).names, keep }
  if (ctx.stream) {
    const events = new ResponsesEvents(ctx, sink, shape)
    return relayChatStream(ctx, sink, upstream, adapter.streamTranslator(ctx.target!.provider, redactor), events, { prompt: promptWith(body, conv), signal })
  }
  const answer = await readJson(providerId, upstream)
  const { completion, usage } = adapter.chatResponse(answer.json, ctx.target!.provider)
  ctx.usage = usage
  ctx.cost = costOf(ctx, usage)
  const response = chatToResponse(completion, usage, shape)
  keep?.(response)
  await sendJson(ctx, sink, response)
  return OK
}

/** What the prompt is estimated from (a reservation, a stream cut short): the request and the earlier turns it continues. */
const promptWith = (body: ResponsesBody, conv: Conversation): unknown => [promptOf(body), conv.context]

/** The headers Codex identifies its session by: they go to a provider that speaks Responses. */
export const RESPONSES_FORWARDED = ['session-id', 'thread-id', 'originator', 'x-client-request-id', 'x-codex-*']

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
 *
 * The state the API keeps between calls is the gateway's where it answers on a translated path
 * (`conversations`): `previous_response_id` and `item_reference` are resolved before routing, and
 * a translated answer is kept unless the request said `store: false`.
 */
export function responsesWire(conversations: Conversations): InboundWire<ResponsesBody> {
  return {
    endpoint: 'responses',
    forwardHeaders: RESPONSES_FORWARDED,
    read(body) {
      const b = validateResponsesBody(body)
      return { body: b, model: b.model, stream: b.stream === true, envelope: b.gw }
    },
    applyPreset: applyResponsesPreset,
    resolve: (ctx, body) => conversations.resolve(ctx, body),
    control: (body, ctx) => ({
      chat: true,
      prompt: promptWith(body, conversations.of(ctx)),
      limitField: 'max_output_tokens',
    }),
    request(ctx, body, target, forwarded) {
      const native = servesResponses(target.provider)
      const sent = conversations.bodyFor(ctx, body, target, native)
      if (native) return nativeRequest('responses', sent, target, forwarded)
      return translatedChatRequest(ctx, target, (t) => responsesToChat(sent, t))
    },
    deliver(ctx, body, upstream, sink, signal, redactor) {
      if (servesResponses(ctx.target!.provider)) return deliverNative(ctx, body, upstream, sink, signal, redactor)
      const keep = conversations.keeps(body) ? (response: KeptResponse) => ctx.hold(conversations.keep(ctx, response)) : null
      return deliverTranslated(ctx, body, upstream, sink, signal, redactor, conversations.of(ctx), keep)
    },
  }
}
