import type { Preset } from '../../../contract/presets'
import type { Delivered, Delivery, InboundWire, WireCall } from '../../core/wire'
import type { AdmitOptions } from '../../pipeline/admit'
import { listOf, type PromptParts } from '../../pipeline/promptFingerprint'
import type { UpstreamResponse } from '../../upstream/client'
import { invalidRequest } from '../../errors'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import type { UpstreamRequest } from '../../providers/adapter'
import { adapterFor } from '../../providers/kinds'
import { servesChatCompletions } from '../../providers/registry'
import { deliverWith } from '../deliver'
import { TranslatedGrammar, type ChatEncoding } from '../translatedAnswer'
import { applyPreset, clientWantsUsage, upstreamChatBody, validateChatBody, type ChatBody } from './chatBody'
import { forGemini } from '../../providers/openai/gemini'
import { OpenAIChunks, type ChunkEncoder } from './chatStream'

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

/**
 * One chat completions call: its body as it changes (a preset), and how its answer is written
 * (whole as the provider wrote it where the adapter left it untouched; streamed as OpenAI chunks).
 * A class, so a call makes one object, its methods shared: this wire carries most requests.
 */
class ChatCall implements WireCall, ChatEncoding {
  readonly model: string
  readonly stream: boolean
  readonly envelope: unknown

  constructor(public body: ChatBody) {
    this.model = body.model
    this.stream = body.stream === true
    this.envelope = body.gw
  }

  applyPreset(preset: Preset): void {
    this.body = applyPreset(this.body, preset)
  }

  /** The system prompt is the leading system (or developer) messages, as a preset inserts it. */
  promptParts(): PromptParts {
    const messages = this.body.messages as ReadonlyArray<{ role?: unknown }>
    let lead = 0
    while (lead < messages.length && (messages[lead].role === 'system' || messages[lead].role === 'developer')) lead++
    return { system: lead === 0 ? null : messages.slice(0, lead), tools: listOf(this.body.tools), messages: messages.slice(lead) }
  }

  control(): AdmitOptions {
    return { chat: true, prompt: this.body.messages }
  }

  request(ctx: RequestContext, target: Target): UpstreamRequest {
    return chatRequestFor(ctx, this.body, target)
  }

  deliver(upstream: UpstreamResponse, out: Delivery): Promise<Delivered> {
    return deliverWith(new TranslatedGrammar(this), upstream, out)
  }

  whole(completion: Record<string, unknown>, _usage: unknown, _out: Delivery, asSent: string | undefined) {
    return { body: completion, asSent }
  }

  events(out: Delivery): ChunkEncoder {
    return new OpenAIChunks(out, clientWantsUsage(this.body))
  }

  get prompt(): unknown {
    return this.body.messages
  }
}

/** OpenAI's chat completions: the body goes to every provider kind through its adapter, and answers come back as OpenAI's. */
export const chatWire: InboundWire = {
  endpoint: 'chat.completions',
  read: (sent) => new ChatCall(validateChatBody(sent)),
}
