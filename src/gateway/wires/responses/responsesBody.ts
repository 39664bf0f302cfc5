import type { Preset } from '../../../contract/presets'
import { invalidRequest } from '../../errors'
import { without } from '../../jsonObject'
import { prependSystemPrompt, withPresetParameters } from '../../pipeline/resolvePreset'
import { checkBoolean, checkNumbers, type NumberRule } from '../numberFields'

export interface ResponsesBody {
  model: string
  input?: unknown
  instructions?: unknown
  stream?: boolean
  gw?: unknown
  [field: string]: unknown
}

/** OpenAI's bounds for what feeds balance reservations and cost ceilings. */
const NUMBERS: Record<string, NumberRule> = {
  max_output_tokens: { integer: true, min: 1 },
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  top_logprobs: { integer: true, min: 0, max: 20 },
}

/**
 * Checks what the gateway itself relies on (the model, the prompt it estimates from, the stream
 * flag, the token limit); every other field (input items, tools, reasoning, include, store…) is
 * the provider's to judge and travels as sent.
 */
export function validateResponsesBody(body: unknown): ResponsesBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object.')
  const b = body as Record<string, unknown>
  if (b.model === undefined || b.model === null) throw invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter')
  if (typeof b.model !== 'string' || b.model.trim() === '') throw invalidRequest('model must be a non-empty string', 'model', 'invalid_type')
  if (b.input !== undefined && b.input !== null && typeof b.input !== 'string' && !Array.isArray(b.input)) {
    throw invalidRequest("Invalid type for 'input': expected a string or an array of input items.", 'input', 'invalid_type')
  }
  if (b.instructions !== undefined && b.instructions !== null && typeof b.instructions !== 'string') {
    throw invalidRequest("Invalid type for 'instructions': expected a string.", 'instructions', 'invalid_type')
  }
  checkBoolean(b, 'stream')
  checkNumbers(b, NUMBERS)
  return b as ResponsesBody
}

/** What the prompt is estimated from: the instructions and the input. */
export const promptOf = (body: ResponsesBody): unknown =>
  body.instructions === undefined || body.instructions === null ? body.input : [body.instructions, body.input]

/** A preset on Responses: its model, its system prompt before the caller's `instructions`, its parameters winning. */
export function applyResponsesPreset(body: ResponsesBody, preset: Preset): ResponsesBody {
  const out: ResponsesBody = { ...body, model: preset.model }
  if (preset.system_prompt) out.instructions = prependSystemPrompt(preset.system_prompt, body.instructions)
  return withPresetParameters(out, preset, 'max_output_tokens')
}

/** The body a provider serving Responses receives: the caller's, but for the model and without the `gw` envelope. */
export function upstreamResponsesBody(body: ResponsesBody, upstreamModel: string): Record<string, unknown> {
  const out = without(body, 'gw')
  out.model = upstreamModel
  return out
}
