import type { Delivered, Delivery } from '../core/wire'
import type { NormalizedUsage } from '../pricing/types'
import { adapterFor } from '../providers/kinds'
import { relayChatStream, type ChunkEncoder } from './chat/chatStream'
import type { UpstreamResponse } from '../upstream/client'
import type { AnswerGrammar, ProviderJson, WholeAnswer } from './deliver'
import { isObj } from '../jsonObject'

type Obj = Record<string, unknown>

/** The text of a chat answer's message: its content (a string, or text parts) and its refusal, as one. */
export const answerText = (message: Obj): string =>
  [message.content, message.refusal]
    .flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter(isObj).map((p) => (typeof p.text === 'string' ? p.text : '')) : []))
    .join('')

/** A chat answer's tool calls as a wire writes them: each call, its name, and its arguments read as an object (`toolInput`). */
export function toolCallsOf(message: Obj): Array<{ call: Obj; name: string; input: Obj | null }> {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Obj[]) : []
  return calls.map((call) => {
    const f = isObj(call.function) ? call.function : {}
    return { call, name: typeof f.name === 'string' ? f.name : '', input: toolInput(f.arguments) }
  })
}

/** A tool call's arguments as the object a wire's tool call carries; null when they are not a JSON object. */
export function toolInput(args: unknown): Obj | null {
  if (args === undefined || args === null || (typeof args === 'string' && args.trim() === '')) return {}
  if (typeof args !== 'string') return null
  try {
    const input = JSON.parse(args)
    return isObj(input) ? input : null
  } catch {
    return null
  }
}

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
