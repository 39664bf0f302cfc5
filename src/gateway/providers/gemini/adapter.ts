import { upstreamHttpError } from '../../upstream/upstreamErrors'
import type { ProviderAdapter, UpstreamRequest } from '../adapter'
import { openaiAdapter } from '../openai/adapter'

/**
 * Google's OpenAI layer sits under the same version root as its native API
 * (`…/v1beta/openai/chat/completions` beside `…/v1beta/models/{model}:generateContent`).
 */
const OPENAI_LAYER = 'openai/'

const viaOpenAILayer = (request: UpstreamRequest): UpstreamRequest => ({ ...request, path: OPENAI_LAYER + request.path })

/**
 * What a model must serve to be listed: generateContent (chat, through either API) or embedContent
 * (embeddings). Imagen, Veo and the like answer other methods the gateway does not call.
 */
const SERVED = new Set(['generateContent', 'embedContent'])

/**
 * Google's model list: `{models: [{name: "models/…", supportedGenerationMethods, …}], nextPageToken}`,
 * without creation times. A model that does not say what it serves is kept (a proxy may leave it out).
 */
function parseModels(body: unknown): Array<{ id: string; created: number | null }> {
  const models = (body as { models?: unknown } | null)?.models
  if (!Array.isArray(models)) return []
  return models
    .filter((m): m is { name: string; supportedGenerationMethods?: unknown } => typeof m?.name === 'string')
    .filter((m) => !Array.isArray(m.supportedGenerationMethods) || m.supportedGenerationMethods.some((method) => SERVED.has(method)))
    .map((m) => ({ id: m.name.replace(/^models\//, ''), created: null }))
}

/**
 * Google's Gemini API under one base URL (its version root, `…/v1beta`) and one key: chat
 * completions and embeddings through its OpenAI layer, as the openai kind speaks to it (the gemini
 * dialect's quirks apply: `dialectOf`); native paths (`models/{model}:generateContent`, the model
 * list) as the caller gives them. Each API takes the key its own way: the OpenAI layer as a bearer
 * token, the native one as `x-goog-api-key`. Errors come in Google's shape from both (an array on
 * the OpenAI layer), which the shared mapping reads: API_KEY_INVALID, RetryInfo.
 */
export const geminiAdapter: ProviderAdapter = {
  kind: 'gemini',
  headers: (credential, path): Record<string, string> => {
    if (!credential) return {}
    return path.startsWith(OPENAI_LAYER) ? openaiAdapter.headers(credential, path) : { 'x-goog-api-key': credential }
  },
  chatRequest: (body, opts) => viaOpenAILayer(openaiAdapter.chatRequest(body, opts)),
  chatResponse: openaiAdapter.chatResponse,
  streamTranslator: openaiAdapter.streamTranslator,
  embeddingsRequest: (body) => viaOpenAILayer({ path: 'embeddings', body }),
  httpError: upstreamHttpError,
  // 50 models a page unless asked: Google lists more than that, and at most 1,000 a page.
  modelsPath: 'models?pageSize=1000',
  parseModels,
}
