import type { InboundWire } from '../../core/wire'
import { listOf } from '../../pipeline/promptFingerprint'
import { sessionOfUserId } from '../../pipeline/recogniseTool'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import { normalizeAnthropicUsage } from '../../providers/anthropic/usage'
import { deliverWith, type AnswerGrammar } from '../deliver'
import { relayNativeStream } from '../nativeStream'
import { translatedGrammar } from '../translatedAnswer'
import { translatedChatRequest } from '../translatedChat'
import { chatToMessage } from './chatToMessage'
import { MessagesEvents } from './chatStreamToMessages'
import { applyMessagesPreset, validateMessagesBody, type MessagesBody } from './messagesBody'
import { messagesToChat } from './messagesToChat'
import { anthropicEvents } from './messagesStream'

/** A provider that speaks Messages itself: the body goes as sent, the answer comes back as written. */
export const isNative = (target: Target): boolean => target.provider.kind === 'anthropic'

/**
 * The native body for one target. Its max_tokens is lowered to the model's output limit only where
 * the gateway chose the model (an alias or a preset): Claude Code asks 128,000 of its own haiku
 * model, which claude-haiku-4-5 (64,000) refuses outright. A model the caller named keeps what the
 * caller sent, and the provider's answer to it.
 */
function nativeBody(ctx: RequestContext, body: MessagesBody, target: Target): MessagesBody {
  const limit = target.priced?.entry.max_output_tokens
  const asked = body.max_tokens
  const steered = ctx.alias !== null || ctx.preset !== null
  if (!steered || limit === undefined || typeof asked !== 'number' || asked <= limit) return { ...body, model: target.upstreamModel }
  ctx.ignore({ name: 'max_tokens', reason: `${asked} is above ${target.upstreamModel}'s output limit of ${limit}; ${limit} was sent` })
  return { ...body, model: target.upstreamModel, max_tokens: limit }
}

/** A provider's chat answer, whole or streamed, in Messages' shape. */
function translatedMessages(body: MessagesBody, model: string): AnswerGrammar {
  const shape = { model, stopSequences: body.stop_sequences }
  return translatedGrammar({
    whole(completion, usage, out) {
      const { message, badArguments } = chatToMessage(completion, usage, shape)
      for (const i of badArguments) {
        out.ignore({
          name: `tool_calls[${i}].function.arguments`,
          reason: `${out.target.provider.id} sent arguments that are not a JSON object; the tool_use input is {}`,
        })
      }
      return { body: message }
    },
    events: (out) => new MessagesEvents(out, shape),
    prompt: [body.system, body.messages],
  })
}

/** Anthropic's answer as it wrote it: whole, priced from its usage, or its events relayed one by one. */
const nativeMessages: AnswerGrammar = {
  whole: (answer) => ({ body: answer.json, asSent: answer.text, usage: normalizeAnthropicUsage((answer.json.usage ?? {}) as object) }),
  relay: (upstream, out) => relayNativeStream(out, upstream, anthropicEvents(out)),
}

/**
 * Anthropic's Messages API. To a provider of kind `anthropic` the body goes as sent but for its
 * model (and a preset's changes), with the caller's version and beta headers, so every field the
 * gateway does not know (thinking, cache_control, server tools…) reaches it, and the answer comes
 * back as Anthropic wrote it. To any other provider it is translated to chat completions and the
 * answer back (what has no counterpart is dropped and listed in the record's `ignored`); the
 * version and beta headers stay behind, as they mean nothing there.
 */
export const messagesWire: InboundWire = {
  endpoint: 'messages',
  forwardHeaders: ['anthropic-version', 'anthropic-beta'],
  read(sent) {
    let body = validateMessagesBody(sent)
    const model = body.model
    return {
      model,
      stream: body.stream === true,
      // No envelope on this wire: attribution travels in X-Gw-* headers.
      envelope: undefined,
      get body() {
        return body
      },
      bodySession: () => sessionOfUserId((body.metadata as { user_id?: unknown } | undefined)?.user_id),
      promptParts: () => ({ system: body.system, tools: listOf(body.tools), messages: body.messages, marked: body.cache_control !== undefined }),
      applyPreset: (preset) => {
        body = applyMessagesPreset(body, preset)
      },
      control: () => ({ chat: true, prompt: body.system === undefined ? body.messages : [body.system, body.messages] }),
      request(ctx, target, forwarded) {
        if (!isNative(target)) return translatedChatRequest(ctx, target, (t) => messagesToChat(body, t))
        return { path: 'messages', body: nativeBody(ctx, body, target), ...(forwarded ? { headers: forwarded } : {}) }
      },
      deliver: (upstream, out) => deliverWith(isNative(out.target) ? nativeMessages : translatedMessages(body, model), upstream, out),
    }
  },
}
