import { OK, type Finished, type InboundWire } from '../../core/wire'
import { invalidRequest } from '../../errors'
import { costOf } from '../../pipeline/cost'
import { normalizeAnthropicUsage } from '../../providers/anthropic/usage'
import { readJson, sendJson } from '../answer'
import { applyMessagesPreset, validateMessagesBody, type MessagesBody } from './messagesBody'
import { relayMessagesStream } from './messagesStream'

/**
 * Anthropic's Messages API. Natively only, for now: to a provider of kind `anthropic` the body
 * goes as sent but for its model (and a preset's changes), with the caller's version and beta
 * headers, so every field the gateway does not know (thinking, cache_control, server tools…)
 * reaches it; the answer comes back as Anthropic wrote it.
 */
export const messagesWire: InboundWire<MessagesBody> = {
  endpoint: 'messages',
  forwardHeaders: ['anthropic-version', 'anthropic-beta'],
  read(body) {
    const b = validateMessagesBody(body)
    // No envelope on this wire: attribution travels in X-Gw-* headers.
    return { body: b, model: b.model, stream: b.stream === true, envelope: undefined }
  },
  applyPreset: applyMessagesPreset,
  control: (body) => ({ chat: true, prompt: body.system === undefined ? body.messages : [body.system, body.messages] }),
  request(_ctx, body, target) {
    const provider = target.provider
    if (provider.kind !== 'anthropic') {
      throw invalidRequest(
        `The Messages API reaches only providers of kind anthropic for now; ${provider.id} (kind ${provider.kind}) would need the request translated, which is not available yet. Use /v1/chat/completions for ${provider.id}.`,
        'model',
      )
    }
    return { path: 'messages', body: { ...body, model: target.upstreamModel } }
  },
  async deliver(ctx, _body, upstream, sink, signal, redactor): Promise<Finished> {
    if (ctx.stream) return relayMessagesStream(ctx, sink, upstream, signal, redactor)
    const answer = await readJson(ctx.target!.provider.id, upstream)
    ctx.usage = normalizeAnthropicUsage((answer.json.usage ?? {}) as object)
    ctx.cost = costOf(ctx, ctx.usage)
    await sendJson(ctx, sink, answer.json, answer.text)
    return OK
  },
}
