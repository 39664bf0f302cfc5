import { randomText } from '../../randomText'
import { thoughtSignatureOf } from '../../providers/openai/thoughtSignatures'
import type { NormalizedUsage } from '../../pricing/types'
import { answerText, toolCallsOf } from '../translatedAnswer'
import type { Dropped } from '../translatedChat'
import { isObj } from '../../jsonObject'
import type { GeminiPart } from './geminiBody'

type Obj = Record<string, unknown>

/** What a translated answer is written with: the model the caller asked for, and whether it asked for thoughts. */
export interface GeminiShape {
  model: string
  /** `generationConfig.thinkingConfig.includeThoughts`: the provider's reasoning text goes out as thought parts. */
  includeThoughts: boolean
}

/**
 * OpenAI finish reasons as Google's. A tool call is STOP, as Google ends a turn of function calls;
 * a filtered answer is SAFETY; anything a provider invents is OTHER.
 */
const FINISH_REASONS: Record<string, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  tool_calls: 'STOP',
  function_call: 'STOP',
}

export const finishReason = (finish: unknown): string =>
  typeof finish === 'string' && Object.hasOwn(FINISH_REASONS, finish) ? FINISH_REASONS[finish] : 'OTHER'

/**
 * Usage in Google's convention: the prompt count includes what was read from cache (named apart
 * when there was some); the candidates count is the answer without its thoughts, which are
 * counted apart; the total is their sum. None when the provider reported none.
 */
export function usageMetadataOf(u: NormalizedUsage | null): Obj | undefined {
  if (!u) return undefined
  return {
    promptTokenCount: u.prompt_tokens,
    ...(u.cached_tokens > 0 ? { cachedContentTokenCount: u.cached_tokens } : {}),
    candidatesTokenCount: Math.max(0, u.completion_tokens - u.reasoning_tokens),
    ...(u.reasoning_tokens > 0 ? { thoughtsTokenCount: u.reasoning_tokens } : {}),
    totalTokenCount: u.prompt_tokens + u.completion_tokens,
  }
}

/** The provider's answer id as the response id; one made up, shaped as Google's, if it gave none. */
export const responseIdOf = (id: unknown): string => (typeof id === 'string' && id !== '' ? id : randomText(16, 'base64url'))

/** The reasoning text a provider put beside the answer (DeepSeek's `reasoning_content`, OpenRouter's and Groq's `reasoning`). */
export function reasoningOf(m: Obj | undefined): string {
  const text = m?.reasoning_content ?? m?.reasoning
  return typeof text === 'string' ? text : ''
}

/**
 * A tool call as a functionCall part: its id when the provider gave one (the caller sends it back
 * on the functionResponse), its arguments as the args object.
 */
export function functionCallPart(call: { id?: unknown; name: unknown; args: Obj; signature?: string }): GeminiPart {
  const id = typeof call.id === 'string' && call.id !== '' ? { id: call.id } : {}
  return {
    functionCall: { ...id, name: typeof call.name === 'string' ? call.name : '', args: call.args },
    ...(call.signature === undefined ? {} : { thoughtSignature: call.signature }),
  }
}

/** A tool call whose arguments are not a JSON object, for the record: its args went out as {}. */
export const badArguments = (index: number, providerId: string): Dropped => ({
  name: `tool_calls[${index}].function.arguments`,
  reason: `${providerId} sent arguments that are not a JSON object; the functionCall args are {}`,
})

/** One GenerateContentResponse: a candidate of `parts`, finished or not, and the envelope every chunk carries. */
export function geminiResponse(parts: GeminiPart[], shape: GeminiShape, responseId: string, end?: { finish: unknown; usage: NormalizedUsage | null }): Obj {
  const candidate = { content: { role: 'model', parts }, ...(end ? { finishReason: finishReason(end.finish) } : {}), index: 0 }
  const usageMetadata = end ? usageMetadataOf(end.usage) : undefined
  return { candidates: [candidate], ...(usageMetadata ? { usageMetadata } : {}), modelVersion: shape.model, responseId }
}

/**
 * An OpenAI chat completion (as the adapter repaired it) as a GenerateContentResponse: the
 * reasoning as a thought part where the caller asked for thoughts, the text, then one
 * functionCall part per tool call. A tool call whose arguments are not a JSON object gets `{}`,
 * so the caller's tool sees missing parameters and the model can try again rather than the turn
 * failing; its index is returned for the record.
 */
export function chatToGemini(completion: Obj, usage: NormalizedUsage | null, shape: GeminiShape): { response: Obj; badArguments: number[] } {
  const choice = (Array.isArray(completion.choices) ? completion.choices[0] : undefined) as Obj | undefined
  const m = isObj(choice?.message) ? choice.message : {}
  const parts: GeminiPart[] = []
  const thought = shape.includeThoughts ? reasoningOf(m) : ''
  if (thought) parts.push({ thought: true, text: thought })
  const text = answerText(m)
  if (text) parts.push({ text })
  const bad: number[] = []
  toolCallsOf(m).forEach(({ call, name, input }, i) => {
    if (input === null) bad.push(i)
    parts.push(functionCallPart({ id: call.id, name, args: input ?? {}, signature: thoughtSignatureOf(call) }))
  })
  return { response: geminiResponse(parts, shape, responseIdOf(completion.id), { finish: choice?.finish_reason, usage }), badArguments: bad }
}
