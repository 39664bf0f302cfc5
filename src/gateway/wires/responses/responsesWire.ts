import type { InboundWire } from '../../core/wire'
import { listOf } from '../../pipeline/promptFingerprint'
import { servesResponses } from '../../providers/registry'
import { deliverWith, type AnswerGrammar } from '../deliver'
import { translatedGrammar } from '../translatedAnswer'
import { translatedChatRequest } from '../translatedChat'
import { ResponsesEvents } from './chatStreamToResponses'
import { chatToResponse, type KeptResponse, type ResponseShape } from './chatToResponse'
import type { Conversation, Conversations } from './conversations'
import { applyResponsesPreset, promptOf, validateResponsesBody, type ResponsesBody } from './responsesBody'
import { nativeRequest, nativeResponses } from './responsesNative'
import { responsesToChat } from './responsesToChat'
import { translateTools } from './responsesTools'

/** A provider's chat answer, whole or streamed, as a Responses response, kept where the request allows. */
function translatedResponses(body: ResponsesBody, model: string, conv: Conversation, keep: ((response: KeptResponse) => void) | null): AnswerGrammar {
  // The names the tools were sent under, to map the model's calls back.
  const shape: ResponseShape = { model, body, names: translateTools(body).names, createdAt: Math.floor(conv.at / 1000), keep }
  return translatedGrammar({
    whole(completion, usage) {
      const response = chatToResponse(completion, usage, shape)
      keep?.(response)
      return { body: response }
    },
    events: (out) => new ResponsesEvents(out, shape),
    prompt: promptWith(body, conv),
  })
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
export function responsesWire(conversations: Conversations): InboundWire {
  return {
    endpoint: 'responses',
    forwardHeaders: RESPONSES_FORWARDED,
    read(sent) {
      let body = validateResponsesBody(sent)
      const model = body.model
      // Set by `resolve`, which the core runs before anything reads it.
      let conv!: Conversation
      return {
        model,
        stream: body.stream === true,
        envelope: body.gw,
        get body() {
          return body
        },
        applyPreset: (preset) => {
          body = applyResponsesPreset(body, preset)
        },
        promptParts: () => ({
          system: body.instructions,
          tools: listOf(body.tools),
          messages: typeof body.input === 'string' ? [body.input] : listOf(body.input),
        }),
        async resolve(ctx) {
          conv = await conversations.resolve(ctx, body)
        },
        control: () => ({ chat: true, prompt: promptWith(body, conv), limitField: 'max_output_tokens' }),
        request(ctx, target, forwarded) {
          const native = servesResponses(target.provider)
          const toSend = conversations.bodyFor(conv, body, target, native)
          if (native) return nativeRequest('responses', toSend, target, forwarded)
          return translatedChatRequest(ctx, target, (t) => responsesToChat(toSend, t))
        },
        deliver(upstream, out) {
          if (servesResponses(out.target.provider)) return deliverWith(nativeResponses(body), upstream, out)
          const keep = conversations.keeps(body) ? (response: KeptResponse) => out.hold(conversations.keep(conv, response)) : null
          return deliverWith(translatedResponses(body, model, conv, keep), upstream, out)
        },
      }
    },
  }
}
