import { quirksOf } from '../quirks'
import type { Provider } from '../registry'
import { geminiTools } from './geminiSchema'
import { withThoughtSignatures } from './thoughtSignatures'

/**
 * A chat completions body as Gemini's OpenAI layer takes it: tool parameters without the JSON
 * Schema keywords it refuses, and replayed tool calls with their thought signatures, for a
 * provider of Gemini's dialect under whatever id it was added. Other providers get the body as it is.
 */
export function forGemini(body: Record<string, unknown>, provider: Provider, upstreamModel: string): Record<string, unknown> {
  if (!quirksOf(provider).geminiBody) return body
  return {
    ...body,
    messages: withThoughtSignatures(body.messages, provider.id, upstreamModel),
    ...(body.tools !== undefined && { tools: geminiTools(body.tools) }),
  }
}
