import type { CatalogModel, NormalizedUsage } from '../pricing/types'
import { ratesAt, usdPer1MToPicoPerToken } from '../pricing/priceUsage'
import { ZERO_USAGE } from '../pricing/usage'
import { isObj } from '../jsonObject'

/**
 * Token counts without a tokenizer. For limits (cost ceilings, balance reservations) a
 * conservative 3 characters per token; for reconstructing what an aborted stream generated, the
 * usual 4.
 */
export const CHARS_PER_TOKEN_CONSERVATIVE = 3
export const CHARS_PER_TOKEN_TYPICAL = 4

/**
 * A prompt's tokens from its characters: a string's own, anything else's JSON text's. `sentText`
 * gives the client's own text of a value it sent where that is JSON.stringify's
 * (core/clientText.ts), so a long prompt is measured without being serialised (0.75 ms for a
 * coding agent's 200 KB turn, paid by every key whose spending is held against reservations).
 */
export const estimateTokens = (value: unknown, charsPerToken: number, sentText?: SentText) =>
  Math.ceil((typeof value === 'string' ? value.length : stringifiedLength(value ?? '', sentText)) / charsPerToken)

/** The client's own text of a value it sent, where the gateway has it; null where not. */
export type SentText = (value: unknown) => string | null

/** `JSON.stringify(value).length`, from the client's text of what it sent where `sentText` has it. */
function stringifiedLength(value: unknown, sentText: SentText | undefined): number {
  if (sentText === undefined || typeof value !== 'object' || value === null) return JSON.stringify(value)?.length ?? 0
  const text = sentText(value)
  if (text !== null) return text.length
  if (!Array.isArray(value)) return JSON.stringify(value).length
  // The brackets and the commas, then each element (`null` for one JSON has no text for).
  let n = 2 + Math.max(value.length - 1, 0)
  for (const item of value) n += item === undefined || typeof item === 'function' ? 4 : stringifiedLength(item, sentText)
  return n
}

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

/** Where a limit field is: its parent's name (none for a top-level field) and its own. */
function limitPath(limitField: string): [string | null, string] {
  const dot = limitField.indexOf('.')
  return dot < 0 ? [null, limitField] : [limitField.slice(0, dot), limitField.slice(dot + 1)]
}

/** The value of a wire's token-limit field (a name, or a path such as `generationConfig.maxOutputTokens`). */
export function limitValue(body: Record<string, unknown>, limitField: string): unknown {
  const [parent, name] = limitPath(limitField)
  const holder = parent === null ? body : body[parent]
  return isObj(holder) ? holder[name] : undefined
}

/**
 * Puts a token limit into a wire's limit field. A parent object is replaced by a copy with the
 * limit, never written into: only the body's own fields change, and the core tells a body it
 * changed from the client's by those alone (core/clientText.ts).
 */
export function setLimit(body: Record<string, unknown>, limitField: string, value: number): void {
  const [parent, name] = limitPath(limitField)
  if (parent === null) {
    body[name] = value
    return
  }
  const held = body[parent]
  body[parent] = { ...(isObj(held) ? held : {}), [name]: value }
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
