import type { InboundWire } from '../../core/wire'
import { invalidRequest } from '../../errors'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import type { UpstreamRequest } from '../../providers/adapter'
import { adapterFor } from '../../providers/kinds'
import { servesChatCompletions } from '../../providers/registry'
import { deliverWith } from '../deliver'
import { translatedGrammar } from '../translatedAnswer'
import { applyPreset, clientWantsUsage, upstreamChatBody, validateChatBody, type ChatBody } from './chatBody'
import { forGemini } from '../../providers/openai/gemini'
import { OpenAIChunks } from './chatStream'

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

/** OpenAI's chat answer: whole as the provider wrote it where the adapter left it untouched; streamed as OpenAI chunks. */
const chatGrammar = (body: ChatBody) =>
  translatedGrammar({
    whole: (completion, _usage, _out, asSent) => ({ body: completion, asSent }),
    events: (out) => new OpenAIChunks(out, clientWantsUsage(body)),
    prompt: body.messages,
  })

/** OpenAI's chat completions: the body goes to every provider kind through its adapter, and answers come back as OpenAI's. */
export const chatWire: InboundWire = {
  endpoint: 'chat.completions',
  read(sent) {
    let body = validateChatBody(sent)
    return {
      model: body.model,
      stream: body.stream === true,
      envelope: body.gw,
      get body() {
        return body
      },
      applyPreset: (preset) => {
        body = applyPreset(body, preset)
      },
      control: () => ({ chat: true, prompt: body.messages }),
      request: (ctx, target) => chatRequestFor(ctx, body, target),
      deliver: (upstream, out) => deliverWith(chatGrammar(body), upstream, out),
    }
  },
}
