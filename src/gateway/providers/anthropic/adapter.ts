import type { ProviderAdapter } from '../adapter'
import { anthropicHttpError } from './errors'
import { AnthropicStream } from './streamTranslator'
import { translateRequest } from './translateRequest'
import { translateResponse } from './translateResponse'

/** The version the official SDK pins; GW_ANTHROPIC_VERSION (read per call) moves to a newer one without a release. */
const DEFAULT_VERSION = '2023-06-01'

/** Anthropic's model list: `{data: [{id, created_at: RFC 3339, ...}]}`. */
function parseModels(body: unknown): Array<{ id: string; created: number | null }> {
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) return []
  return data
    .filter((m): m is { id: string; created_at?: unknown } => typeof m?.id === 'string')
    .map((m) => {
      const ms = typeof m.created_at === 'string' ? Date.parse(m.created_at) : NaN
      return { id: m.id, created: Number.isNaN(ms) ? null : Math.floor(ms / 1000) }
    })
}

/** Anthropic's native Messages API, spoken in OpenAI's shape on the client side. */
export const anthropicAdapter: ProviderAdapter = {
  kind: 'anthropic',
  headers: (credential): Record<string, string> => ({
    ...(credential ? { 'x-api-key': credential } : {}),
    'anthropic-version': process.env.GW_ANTHROPIC_VERSION || DEFAULT_VERSION,
  }),
  chatRequest: translateRequest,
  chatResponse: (json) => translateResponse(json),
  streamTranslator: (provider, redactor) => new AnthropicStream(provider.id, redactor),
  embeddingsRequest: () => null,
  httpError: anthropicHttpError,
  // The first page holds only 20 models; ask for all of them at once.
  modelsPath: 'models?limit=1000',
  parseModels,
}
