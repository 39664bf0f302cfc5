import type { Delivered, Delivery } from '../core/wire'
import type { NormalizedUsage } from '../pricing/types'
import { adapterFor } from '../providers/kinds'
import { relayChatStream, type ChunkEncoder } from './chat/chatStream'
import type { UpstreamResponse } from '../upstream/client'
import type { AnswerGrammar, ProviderJson, WholeAnswer } from './deliver'

/** How a wire writes a chat completions answer as its own: a whole answer, and a stream's events. */
export interface ChatEncoding {
  /** The client's answer for a whole completion; `asSent` is the provider's text when the adapter left the completion untouched. */
  whole(completion: Record<string, unknown>, usage: NormalizedUsage | null, out: Delivery, asSent: string | undefined): Omit<WholeAnswer, 'usage'>
  /** The encoder of one stream's chunks. */
  events(out: Delivery): ChunkEncoder
  /** What the prompt is estimated from when a stream ends without its usage. */
  prompt: unknown
}

/**
 * The grammar of an answer from a provider reached through chat completions (every kind's adapter
 * reads its provider's answer into OpenAI's chat shape), written as the client's wire by `encoding`.
 * A class, so a request makes one object of it (the methods are shared).
 */
export class TranslatedGrammar implements AnswerGrammar {
  constructor(private readonly encoding: ChatEncoding) {}

  whole(answer: ProviderJson, out: Delivery): WholeAnswer {
    const { completion, usage, untouched } = adapterFor(out.target.provider.kind).chatResponse(answer.json, out.target.provider)
    const made = this.encoding.whole(completion, usage, out, untouched ? answer.text : undefined)
    return { body: made.body, asSent: made.asSent, usage }
  }

  relay(upstream: UpstreamResponse, out: Delivery): Promise<Delivered> {
    const translator = adapterFor(out.target.provider.kind).streamTranslator(out.target.provider, out.redactor)
    return relayChatStream(out, upstream, translator, this.encoding.events(out), this.encoding.prompt)
  }
}

export const translatedGrammar = (encoding: ChatEncoding): AnswerGrammar => new TranslatedGrammar(encoding)
