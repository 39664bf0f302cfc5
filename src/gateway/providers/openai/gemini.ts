import type { Provider } from '../registry'
import { geminiTools } from './geminiSchema'
import { withThoughtSignatures } from './thoughtSignatures'

/** Gemini's own API, under whatever id it was added. */
const isGemini = (provider: Provider) => provider.id === 'gemini' || /^https:\/\/generativelanguage\.googleapis\.com\//.test(`${provider.baseUrl}/`)

/**
 * A chat completions body as Gemini's OpenAI layer takes it: tool parameters without the JSON
 * Schema keywords it refuses, and replayed tool calls with their thought signatures. Other
 * providers get the body as it is.
 */
export function forGemini(body: Record<string, unknown>, provider: Provider, upstreamModel: string): Record<string, unknown> {
  if (!isGemini(provider)) return body
  return {
    ...body,
    messages: withThoughtSignatures(body.messages, provider.id, upstreamModel),
    ...(body.tools !== undefined && { tools: geminiTools(body.tools) }),
  }
}
