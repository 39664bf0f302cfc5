import type { Preset } from '../../../contract/presets'
import { withPresetParameters } from '../../pipeline/resolvePreset'
import { invalidRequest } from '../../errors'
import { checkBoolean, checkNumbers, type NumberRule } from '../numberFields'

export interface ChatBody {
  model: string
  messages: unknown[]
  stream?: boolean
  stream_options?: Record<string, unknown>
  gw?: unknown
  [field: string]: unknown
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function'])

/** OpenAI's bounds: token limits and `n` feed balance reservations and cost ceilings, so they are the gateway's concern too. */
const NUMBERS: Record<string, NumberRule> = {
  max_tokens: { integer: true, min: 1 },
  max_completion_tokens: { integer: true, min: 1 },
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  n: { integer: true, min: 1, max: 128 },
  presence_penalty: { min: -2, max: 2 },
  frequency_penalty: { min: -2, max: 2 },
  seed: { integer: true },
  top_logprobs: { integer: true, min: 0, max: 20 },
}

/** Checks what the gateway itself relies on; everything else is the provider's to judge and passes through. */
export function validateChatBody(body: unknown): ChatBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('The request body must be a JSON object.')
  }
  const b = body as Record<string, unknown>
  if (b.model === undefined || b.model === null) throw invalidRequest('you must provide a model parameter', 'model')
  if (typeof b.model !== 'string' || b.model.trim() === '') throw invalidRequest('model must be a non-empty string', 'model')
  if (b.messages === undefined) throw invalidRequest("Missing required parameter: 'messages'.", 'messages')
  if (!Array.isArray(b.messages)) throw invalidRequest('messages must be an array', 'messages')
  if (b.messages.length === 0) throw invalidRequest('messages must contain at least one message', 'messages')
  b.messages.forEach((m, i) => {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw invalidRequest(`messages[${i}] must be an object`, `messages[${i}]`)
    const role = (m as { role?: unknown }).role
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw invalidRequest(`messages[${i}].role must be one of ${[...ROLES].join(', ')}`, `messages[${i}].role`)
    }
  })
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') {
    throw invalidRequest('stream must be a boolean', 'stream')
  }
  if (b.stream_options !== undefined && b.stream_options !== null) {
    if (b.stream !== true) {
      throw invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options')
    }
    if (typeof b.stream_options !== 'object' || Array.isArray(b.stream_options)) {
      throw invalidRequest('stream_options must be an object', 'stream_options')
    }
  }
  checkNumbers(b, NUMBERS)
  checkBoolean(b, 'logprobs')
  return b as ChatBody
}

/**
 * The body the provider receives: the caller's fields untouched except the model, without the
 * `gw` envelope, and with usage always requested on streams (the gateway prices every request).
 */
export function upstreamChatBody(body: ChatBody, upstreamModel: string): Record<string, unknown> {
  const { gw: _envelope, ...rest } = body
  const out: Record<string, unknown> = { ...rest, model: upstreamModel }
  if (body.stream === true) out.stream_options = { ...(body.stream_options ?? {}), include_usage: true }
  return out
}

export const clientWantsUsage = (body: ChatBody) => body.stream === true && body.stream_options?.include_usage === true

/**
 * The preset's model always applies; its system prompt goes first; each parameter it sets wins;
 * the ones it leaves unset pass through from the caller. A preset's max_tokens replaces whichever
 * token limit field the caller used.
 */
export function applyPreset(body: ChatBody, preset: Preset): ChatBody {
  const out: ChatBody = { ...body, model: preset.model }
  if (preset.system_prompt) out.messages = [{ role: 'system', content: preset.system_prompt }, ...body.messages]
  const limit = body.max_completion_tokens !== undefined && body.max_tokens === undefined ? 'max_completion_tokens' : 'max_tokens'
  return withPresetParameters(out, preset, limit)
}
