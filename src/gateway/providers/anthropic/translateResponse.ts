import { openAIUsage } from '../../pricing/usage'
import type { NormalizedUsage } from '../../pricing/types'
import type { AnthropicUsage } from './types'
import { normalizeAnthropicUsage } from './usage'

/**
 * Anthropic stop reasons as OpenAI finish reasons. A context window running out is a length stop
 * like max_tokens; pause_turn (a server-tool loop paused) ended normally from the client's side.
 * Values Anthropic adds later become "stop", the one reason every client handles.
 */
const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  pause_turn: 'stop',
  refusal: 'content_filter',
}

export const finishReason = (stopReason: unknown): string =>
  (typeof stopReason === 'string' && Object.hasOwn(FINISH_REASONS, stopReason) ? FINISH_REASONS[stopReason] : undefined) ?? 'stop'

interface ResponseBlock {
  type?: unknown
  text?: unknown
  id?: unknown
  name?: unknown
  input?: unknown
}

/**
 * An Anthropic message as an OpenAI chat.completion. Thinking and server-tool blocks have no place
 * in OpenAI's message and are left out; their tokens are still in the usage.
 */
export function translateResponse(json: Record<string, unknown>): { completion: Record<string, unknown>; usage: NormalizedUsage | null } {
  const blocks = (Array.isArray(json.content) ? json.content : []) as ResponseBlock[]
  const text = blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('')
  const toolCalls = blocks
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }))
  const usage = typeof json.usage === 'object' && json.usage !== null ? normalizeAnthropicUsage(json.usage as AnthropicUsage) : null
  const completion = {
    id: json.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: json.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(json.stop_reason),
      },
    ],
    ...(usage ? { usage: openAIUsage(usage) } : {}),
  }
  return { completion, usage }
}
