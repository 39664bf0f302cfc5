import type { InboundWire } from '../../core/wire'
import { invalidRequest } from '../../errors'
import { countingPreset } from '../../pipeline/resolvePreset'
import { GEMINI_COUNT_TOKENS_ENDPOINT } from '../../store/requestsRepo'
import { readJson } from '../deliver'
import { answerCount, estimatedCount } from '../tokenCount'
import { isObj } from '../../jsonObject'
import { applyGeminiPreset, validateGeminiBody, type GeminiBody } from './geminiBody'
import { isNative, nativePath, promptOf, type GeminiCall } from './geminiWire'

/**
 * A countTokens body holds the request either as `contents` alone or whole, as
 * `generateContentRequest` (with its instruction and tools): the whole one is what is checked,
 * preset and counted.
 */
function countedRequest(sent: unknown): { request: GeminiBody; whole: boolean } {
  if (!isObj(sent)) throw invalidRequest('The request body must be a JSON object.')
  if (sent.generateContentRequest === undefined) return { request: validateGeminiBody(sent), whole: false }
  if (!isObj(sent.generateContentRequest)) throw invalidRequest('generateContentRequest: must be an object', 'generateContentRequest')
  return { request: validateGeminiBody(sent.generateContentRequest), whole: true }
}

/**
 * Google's `POST models/{model}:countTokens`. Free at Google, so it is admitted like a free call
 * (the key's model rules apply; no rate limit, balance or cost ceiling) and recorded at $0, marked
 * free. A provider of kind `gemini` counts (the body as sent, its `generateContentRequest.model`
 * naming the upstream model, as Google requires); any other cannot, so the gateway estimates from
 * the request and calls nobody (`x-gw-token-count` says which).
 */
export const countTokensGeminiWire: InboundWire = {
  endpoint: GEMINI_COUNT_TOKENS_ENDPOINT,
  read(sent) {
    const { model, body: raw } = sent as GeminiCall
    const counted = countedRequest(raw)
    let request = counted.request
    return {
      model,
      stream: false,
      envelope: undefined,
      get body() {
        return request
      },
      applyPreset: (preset) => {
        request = applyGeminiPreset(request, countingPreset(preset))
      },
      control: () => ({ chat: false, prompt: null, free: true }),
      answerLocally(out) {
        if (isNative(out.target)) return null
        return answerCount(out, JSON.stringify({ totalTokens: estimatedCount(promptOf(request)) }), 'estimate')
      },
      request(_ctx, target) {
        // Only a fallback gets here with another kind: it is passed over.
        if (!isNative(target)) throw invalidRequest(`${target.provider.id} (kind ${target.provider.kind}) cannot count tokens`, 'model')
        const model = `models/${target.upstreamModel}`
        const body = counted.whole || request !== counted.request ? { generateContentRequest: { ...request, model } } : request
        return { path: nativePath(target.upstreamModel, 'countTokens'), body }
      },
      async deliver(upstream, out) {
        const { text } = await readJson(out.target.provider.id, upstream)
        return answerCount(out, text.trim(), 'provider')
      },
    }
  },
}
