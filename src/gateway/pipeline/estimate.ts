import type { CatalogModel, NormalizedUsage } from '../pricing/types'
import { ratesAt, usdPer1MToPicoPerToken } from '../pricing/priceUsage'
import { ZERO_USAGE } from '../pricing/usage'

/**
 * Token counts without a tokenizer. For limits (cost ceilings, balance reservations) a
 * conservative 3 characters per token; for reconstructing what an aborted stream generated, the
 * usual 4.
 */
export const CHARS_PER_TOKEN_CONSERVATIVE = 3
export const CHARS_PER_TOKEN_TYPICAL = 4

export const estimateTokens = (value: unknown, charsPerToken: number) =>
  Math.ceil((typeof value === 'string' ? value : JSON.stringify(value ?? '')).length / charsPerToken)

/**
 * What a stream that did not finish is charged for. Providers report the prompt early (Anthropic
 * in its first event) or not at all before the end (OpenAI), and the output only at the end, so
 * the prompt is the reported one or an estimate from the request, and the output the larger of
 * what was reported and an estimate from the text sent. `estimated` says whether either is one.
 */
export function partialUsage(reported: NormalizedUsage | null, prompt: unknown, generatedChars: number): { usage: NormalizedUsage; estimated: boolean } {
  const estimated = Math.ceil(generatedChars / CHARS_PER_TOKEN_TYPICAL)
  const promptTokens = reported?.prompt_tokens ?? estimateTokens(prompt, CHARS_PER_TOKEN_TYPICAL)
  const completion = Math.max(reported?.completion_tokens ?? 0, estimated)
  return {
    usage: { ...(reported ?? ZERO_USAGE), prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
    estimated: reported === null || completion > reported.completion_tokens,
  }
}

/**
 * The object holding a limit field and the field's own name: `limitField` may be a path
 * (Gemini's `generationConfig.maxOutputTokens`). With `create`, a missing parent is made.
 */
function limitHolder(body: Record<string, unknown>, limitField: string, create: boolean): [Record<string, unknown> | null, string] {
  const dot = limitField.indexOf('.')
  if (dot < 0) return [body, limitField]
  const parent = limitField.slice(0, dot)
  const held = body[parent]
  if (typeof held === 'object' && held !== null && !Array.isArray(held)) return [held as Record<string, unknown>, limitField.slice(dot + 1)]
  if (!create) return [null, '']
  const made: Record<string, unknown> = {}
  body[parent] = made
  return [made, limitField.slice(dot + 1)]
}

/** The value of a wire's token-limit field (a name, or a path such as `generationConfig.maxOutputTokens`). */
export function limitValue(body: Record<string, unknown>, limitField: string): unknown {
  const [holder, name] = limitHolder(body, limitField, false)
  return holder?.[name]
}

/** Puts a token limit into a wire's limit field, making its parent object where the field is a path. */
export function setLimit(body: Record<string, unknown>, limitField: string, value: number): void {
  const [holder, name] = limitHolder(body, limitField, true)
  holder![name] = value
}

/** The token limit a chat request asked for, whichever field it used. */
export function requestedMaxTokens(body: Record<string, unknown>, limitField?: string): number | null {
  const v = limitField ? limitValue(body, limitField) : (body.max_completion_tokens ?? body.max_tokens)
  return typeof v === 'number' ? v : null
}

/** Highest cost the request can reach at list price: its prompt, and all the output it may ask for. */
export function worstCasePico(entry: CatalogModel, promptTokens: number, outputTokens: number, at: Date): number {
  const { rates } = ratesAt(entry, at, promptTokens)
  return promptTokens * usdPer1MToPicoPerToken(rates.input) + outputTokens * usdPer1MToPicoPerToken(rates.output ?? 0)
}
