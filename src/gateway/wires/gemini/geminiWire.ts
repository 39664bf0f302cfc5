import type { InboundWire } from '../../core/wire'
import { listOf } from '../../pipeline/promptFingerprint'
import type { Target } from '../../pipeline/resolveModel'
import { geminiUsageOf } from '../../providers/gemini/usage'
import { deliverWith, type AnswerGrammar } from '../deliver'
import { relayNativeStream } from '../nativeStream'
import { translatedChatRequest } from '../translatedChat'
import { applyGeminiPreset, validateGeminiBody, type GeminiBody } from './geminiBody'
import { geminiEvents } from './geminiStream'
import { geminiToChat } from './geminiToChat'
import { translatedGemini } from './geminiTranslated'

/** What a Google route hands the wire: the model and method are in its path, the request in its body. */
export interface GeminiCall {
  model: string
  body: unknown
}

/** A provider that speaks Google's API itself: the body goes as sent, the answer comes back as written. */
export const isNative = (target: Target): boolean => target.provider.kind === 'gemini'

/** The method's path under the provider's version root; a stream is always asked as SSE, whatever the client asked. */
export const nativePath = (model: string, method: string): string =>
  `models/${encodeURIComponent(model)}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`

/** What the prompt is, for estimates: the instruction, the turns and the tools' declarations. */
export const promptOf = (body: GeminiBody): unknown[] => [body.systemInstruction, body.contents, body.tools]

/** Google's answer as it wrote it: whole, priced from its usageMetadata, or its chunks relayed one by one. */
const nativeGemini = (body: GeminiBody): AnswerGrammar => ({
  whole: ({ json, text }) => ({ body: json, asSent: text, usage: geminiUsageOf(json) }),
  relay: (upstream, out) => relayNativeStream(out, upstream, geminiEvents(out, promptOf(body))),
})

/**
 * Google's generateContent API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent`). To a provider of kind `gemini` the body goes as sent but for what a
 * preset sets, so every field the gateway does not read (thinking, cached content, safety
 * settings, Google Search, code execution…) reaches Google, and the answer comes back as Google
 * wrote it. To any other provider it is translated to chat completions and the answer back (what
 * has no counterpart is dropped and listed in the record's `ignored`).
 */
export const generateContentWire = (stream: boolean): InboundWire => ({
  endpoint: 'generateContent',
  read(sent) {
    const { model, body: raw } = sent as GeminiCall
    let body = validateGeminiBody(raw)
    return {
      model,
      stream,
      // No envelope on this wire: attribution travels in X-Gw-* headers.
      envelope: undefined,
      get body() {
        return body
      },
      applyPreset: (preset) => {
        body = applyGeminiPreset(body, preset)
      },
      promptParts: () => ({ system: body.systemInstruction, tools: listOf(body.tools), messages: body.contents }),
      control: () => ({ chat: true, prompt: promptOf(body), limitField: 'generationConfig.maxOutputTokens' }),
      request(ctx, target) {
        if (!isNative(target)) return translatedChatRequest(ctx, target, (t) => geminiToChat(body, model, t, stream))
        return { path: nativePath(target.upstreamModel, stream ? 'streamGenerateContent' : 'generateContent'), body }
      },
      deliver: (upstream, out) => deliverWith(isNative(out.target) ? nativeGemini(body) : translatedGemini(body, model), upstream, out),
    }
  },
})

export const generateContent = generateContentWire(false)
export const streamGenerateContent = generateContentWire(true)
