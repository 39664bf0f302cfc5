import type { Preset } from '../../../contract/presets'
import { invalidRequest } from '../../errors'
import { withPresetParameters } from '../../pipeline/resolvePreset'
import { checkBoolean, checkNumbers, type NumberRule } from '../numberFields'

export interface MessagesBody {
  model: string
  messages: unknown[]
  system?: unknown
  stream?: boolean
  [field: string]: unknown
}

/** Anthropic's bounds, for what feeds balance reservations and cost ceilings. */
const NUMBERS: Record<string, NumberRule> = {
  max_tokens: { integer: true, min: 1 },
  temperature: { min: 0, max: 1 },
  top_p: { min: 0, max: 1 },
  top_k: { integer: true, min: 0 },
}

/**
 * Checks what the gateway itself relies on (the model, the messages, the stream flag, the token
 * limit); every other field is the provider's to judge and travels as sent.
 */
export function validateMessagesBody(body: unknown): MessagesBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object.')
  const b = body as Record<string, unknown>
  if (typeof b.model !== 'string' || b.model.trim() === '') throw invalidRequest('model: Field required (a non-empty string)', 'model')
  if (!Array.isArray(b.messages)) throw invalidRequest('messages: Field required (an array)', 'messages')
  if (b.system !== undefined && typeof b.system !== 'string' && !Array.isArray(b.system)) {
    throw invalidRequest('system: Input should be a string or an array of content blocks', 'system')
  }
  checkBoolean(b, 'stream')
  checkNumbers(b, NUMBERS)
  return b as MessagesBody
}

/** A preset on Messages: its model, its system prompt before the caller's (string or blocks), its parameters winning. */
export function applyMessagesPreset(body: MessagesBody, preset: Preset): MessagesBody {
  const out: MessagesBody = { ...body, model: preset.model }
  const prompt = preset.system_prompt
  if (prompt) {
    const system = body.system
    if (system === undefined || system === '') out.system = prompt
    else if (typeof system === 'string') out.system = `${prompt}\n\n${system}`
    else out.system = [{ type: 'text', text: prompt }, ...(system as unknown[])]
  }
  return withPresetParameters(out, preset)
}
