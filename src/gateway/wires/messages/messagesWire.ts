import type { Sink } from '../../core/sink'
import { OK, type Finished, type InboundWire } from '../../core/wire'
import type { ClientAbort } from '../../upstream/clientAbort'
import { costOf } from '../../pipeline/cost'
import { sessionOfUserId } from '../../pipeline/recogniseTool'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import { normalizeAnthropicUsage } from '../../providers/anthropic/usage'
import { adapterFor } from '../../providers/kinds'
import type { Redactor } from '../../secrets/redactor'
import type { UpstreamResponse } from '../../upstream/client'
import { readJson, sendJson } from '../answer'
import { relayChatStream } from '../chat/chatStream'
import { noteIgnored, translatedChatRequest } from '../translatedChat'
import { chatToMessage } from './chatToMessage'
import { MessagesEvents } from './chatStreamToMessages'
import { applyMessagesPreset, validateMessagesBody, type MessagesBody } from './messagesBody'
import { messagesToChat } from './messagesToChat'
import { relayMessagesStream } from './messagesStream'

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
  noteIgnored(ctx, { name: 'max_tokens', reason: `${asked} is above ${target.upstreamModel}'s output limit of ${limit}; ${limit} was sent` })
  return { ...body, model: target.upstreamModel, max_tokens: limit }
}

/** A provider's chat answer, JSON or stream, delivered in Messages' shape. */
async function deliverTranslated(
  ctx: RequestContext,
  body: MessagesBody,
  upstream: UpstreamResponse,
  sink: Sink,
  signal: ClientAbort,
  redactor: Redactor,
): Promise<Finished> {
  const providerId = ctx.target!.provider.id
  const adapter = adapterFor(ctx.target!.provider.kind)
  const shape = { model: ctx.model ?? body.model, stopSequences: body.stop_sequences }
  if (ctx.stream) {
    const events = new MessagesEvents(ctx, sink, shape)
    return relayChatStream(ctx, sink, upstream, adapter.streamTranslator(ctx.target!.provider, redactor), events, {
      prompt: [body.system, body.messages],
      signal,
    })
  }
  const answer = await readJson(providerId, upstream)
  const { completion, usage } = adapter.chatResponse(answer.json, ctx.target!.provider)
  const { message, badArguments } = chatToMessage(completion, usage, shape)
  for (const i of badArguments) {
    ctx.attribution.ignored.push({
      name: `tool_calls[${i}].function.arguments`,
      reason: `${providerId} sent arguments that are not a JSON object; the tool_use input is {}`,
    })
  }
  ctx.usage = usage
  ctx.cost = costOf(ctx, usage)
  await sendJson(ctx, sink, message)
  return OK
}

/**
 * Anthropic's Messages API. To a provider of kind `anthropic` the body goes as sent but for its
 * model (and a preset's changes), with the caller's version and beta headers, so every field the
 * gateway does not know (thinking, cache_control, server tools…) reaches it, and the answer comes
 * back as Anthropic wrote it. To any other provider it is translated to chat completions and the
 * answer back (what has no counterpart is dropped and listed in the record's `ignored`); the
 * version and beta headers stay behind, as they mean nothing there.
 */
export const messagesWire: InboundWire<MessagesBody> = {
  endpoint: 'messages',
  forwardHeaders: ['anthropic-version', 'anthropic-beta'],
  read(body) {
    const b = validateMessagesBody(body)
    // No envelope on this wire: attribution travels in X-Gw-* headers.
    return { body: b, model: b.model, stream: b.stream === true, envelope: undefined }
  },
  bodySession: (body) => sessionOfUserId((body.metadata as { user_id?: unknown } | undefined)?.user_id),
  applyPreset: applyMessagesPreset,
  control: (body) => ({ chat: true, prompt: body.system === undefined ? body.messages : [body.system, body.messages] }),
  request(ctx, body, target, forwarded) {
    if (!isNative(target)) return translatedChatRequest(ctx, target, (t) => messagesToChat(body, t))
    return { path: 'messages', body: nativeBody(ctx, body, target), ...(forwarded ? { headers: forwarded } : {}) }
  },
  async deliver(ctx, body, upstream, sink, signal, redactor): Promise<Finished> {
    if (!isNative(ctx.target!)) return deliverTranslated(ctx, body, upstream, sink, signal, redactor)
    if (ctx.stream) return relayMessagesStream(ctx, sink, upstream, signal, redactor)
    const answer = await readJson(ctx.target!.provider.id, upstream)
    ctx.usage = normalizeAnthropicUsage((answer.json.usage ?? {}) as object)
    ctx.cost = costOf(ctx, ctx.usage)
    await sendJson(ctx, sink, answer.json, answer.text)
    return OK
  },
}
