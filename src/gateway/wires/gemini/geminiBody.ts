import type { Preset } from '../../../contract/presets'
import { invalidRequest } from '../../errors'
import { checkNumbers, type NumberRule } from '../numberFields'
import { isObj } from '../../jsonObject'

/** One part of a turn: text, inline data, a function call or its response, a thought… (wire-format §8). */
export type GeminiPart = Record<string, unknown> & {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  inlineData?: { mimeType?: string; data?: string }
  fileData?: { mimeType?: string; fileUri?: string }
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> }
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown> }
}

export interface GeminiContent {
  role?: string
  parts: GeminiPart[]
}

export interface GenerationConfig {
  temperature?: number
  topP?: number
  topK?: number
  candidateCount?: number
  maxOutputTokens?: number
  stopSequences?: string[]
  responseMimeType?: string
  responseSchema?: unknown
  responseJsonSchema?: unknown
  presencePenalty?: number
  frequencyPenalty?: number
  seed?: number
  thinkingConfig?: { thinkingBudget?: number; thinkingLevel?: string; includeThoughts?: boolean }
  [field: string]: unknown
}

/**
 * A generateContent request as the caller sent it: its model is in the URL, not the body. Fields
 * the gateway does not read travel to a native provider as sent.
 */
export interface GeminiBody {
  contents: GeminiContent[]
  systemInstruction?: { role?: string; parts: GeminiPart[] }
  tools?: Array<Record<string, unknown>>
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } }
  generationConfig?: GenerationConfig
  safetySettings?: unknown[]
  cachedContent?: string
  [field: string]: unknown
}

/** Google's bounds, for what feeds balance reservations and cost ceilings. */
const GENERATION_NUMBERS: Record<string, NumberRule> = {
  maxOutputTokens: { integer: true, min: 1 },
  candidateCount: { integer: true, min: 1 },
  temperature: { min: 0, max: 2 },
  topP: { min: 0, max: 1 },
  topK: { integer: true, min: 0 },
}

/** Google's `contents` a content is checked as: an object with a parts array; a system instruction the same, or a string. */
function checkContent(v: unknown, field: string): void {
  if (!isObj(v)) throw invalidRequest(`${field}: must be an object with a "parts" array`, field)
  if (!Array.isArray(v.parts)) throw invalidRequest(`${field}.parts: Field required (an array of parts)`, `${field}.parts`)
  v.parts.forEach((p, i) => {
    if (!isObj(p)) throw invalidRequest(`${field}.parts[${i}]: must be an object`, `${field}.parts[${i}]`)
  })
}

/**
 * Checks what the gateway itself relies on (the contents, the generation config's numbers); every
 * other field is the provider's to judge and travels as sent. `cachedContent` with no contents is
 * Google's too (a cached prompt), so only the shape of contents present is checked.
 */
export function validateGeminiBody(body: unknown): GeminiBody {
  if (!isObj(body)) throw invalidRequest('The request body must be a JSON object.')
  const contents = body.contents
  if (!Array.isArray(contents)) throw invalidRequest('contents: Field required (an array of contents)', 'contents')
  contents.forEach((c, i) => checkContent(c, `contents[${i}]`))
  const system = body.systemInstruction
  if (typeof system === 'string') body.systemInstruction = { parts: [{ text: system }] }
  else if (system !== undefined) checkContent(system, 'systemInstruction')
  if (body.tools !== undefined && !Array.isArray(body.tools)) throw invalidRequest('tools: must be an array of tools', 'tools')
  const config = body.generationConfig
  if (config !== undefined) {
    if (!isObj(config)) throw invalidRequest('generationConfig: must be an object', 'generationConfig')
    checkNumbers(config, GENERATION_NUMBERS)
  }
  return body as GeminiBody
}

/**
 * A preset on generateContent: its system prompt before the caller's instruction, its parameters
 * in `generationConfig` (winning over the caller's). The model is the URL's, so the preset's model
 * replaces it where the call is resolved, not here.
 */
export function applyGeminiPreset(body: GeminiBody, preset: Preset): GeminiBody {
  const out: GeminiBody = { ...body }
  const prompt = preset.system_prompt
  if (prompt) out.systemInstruction = { parts: [{ text: prompt }, ...(body.systemInstruction?.parts ?? [])] }
  if (preset.temperature !== null || preset.top_p !== null || preset.max_tokens !== null) {
    const config: GenerationConfig = { ...body.generationConfig }
    if (preset.temperature !== null) config.temperature = preset.temperature
    if (preset.top_p !== null) config.topP = preset.top_p
    if (preset.max_tokens !== null) config.maxOutputTokens = preset.max_tokens
    out.generationConfig = config
  }
  return out
}
