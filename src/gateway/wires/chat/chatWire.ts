import { OK, type Finished, type InboundWire } from '../../core/wire'
import { costOf } from '../../pipeline/cost'
import { applyPreset } from '../../pipeline/resolvePreset'
import { invalidRequest } from '../../errors'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import type { UpstreamRequest } from '../../providers/adapter'
import { adapterFor } from '../../providers/kinds'
import { servesChatCompletions } from '../../providers/registry'
import { readJson, sendJson } from '../answer'
import { clientWantsUsage, upstreamChatBody, validateChatBody, type ChatBody } from './chatBody'
import { forGemini } from '../../providers/openai/gemini'
import { OpenAIChunks, relayChatStream } from './chatStream'

/**
 * The chat completions request for one target, through its kind's adapter (the chat wire's, and
 * the translated paths'). A provider that serves only the Responses API is a 400 naming it.
 * Gemini's gets what its OpenAI layer needs besides (`forGemini`).
 */
export function chatRequestFor(ctx: RequestContext, body: ChatBody, target: Target): UpstreamRequest {
  const provider = target.provider
  if (!servesChatCompletions(provider)) {
    throw invalidRequest(
      `${provider.id} serves only the Responses API (wire responses), and chat completions cannot be translated to it yet. Use /v1/responses for ${provider.id}.`,
      'model',
    )
  }
  return adapterFor(provider.kind).chatRequest(forGemini(upstreamChatBody(body, target.upstreamModel), provider, target.upstreamModel), {
    stream: ctx.stream,
    autoCache: ctx.attribution.attribution.auto_cache === true,
  })
}

/** OpenAI's chat completions: the body goes to every provider kind through its adapter, and answers come back as OpenAI's. */
export const chatWire: InboundWire<ChatBody> = {
  endpoint: 'chat.completions',
  read(body) {
    const b = validateChatBody(body)
    return { body: b, model: b.model, stream: b.stream === true, envelope: b.gw }
  },
  applyPreset,
  control: (body) => ({ chat: true, prompt: body.messages }),
  request: chatRequestFor,
  async deliver(ctx, body, upstream, sink, signal, redactor): Promise<Finished> {
    const providerId = ctx.target!.provider.id
    const adapter = adapterFor(ctx.target!.provider.kind)
    if (ctx.stream) {
      const translator = adapter.streamTranslator(ctx.target!.provider, redactor)
      return relayChatStream(ctx, sink, upstream, translator, new OpenAIChunks(ctx, sink, clientWantsUsage(body)), { prompt: body.messages, signal })
    }
    const answer = await readJson(providerId, upstream)
    const { completion, usage, untouched } = adapter.chatResponse(answer.json, ctx.target!.provider)
    ctx.usage = usage
    ctx.cost = costOf(ctx, usage)
    await sendJson(ctx, sink, completion, untouched ? answer.text : undefined)
    return OK
  },
}
