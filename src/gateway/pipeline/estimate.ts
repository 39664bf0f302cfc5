import type { CatalogModel } from '../pricing/types'
import { ratesAt, usdPer1MToPicoPerToken } from '../pricing/priceUsage'

/**
 * Token counts without a tokenizer. For limits (cost ceilings, balance reservations) a
 * conservative 3 characters per token; for reconstructing what an aborted stream generated, the
 * usual 4.
 */
export const CHARS_PER_TOKEN_CONSERVATIVE = 3
export const CHARS_PER_TOKEN_TYPICAL = 4

export const estimateTokens = (value: unknown, charsPerToken: number) =>
  Math.ceil((typeof value === 'string' ? value : JSON.stringify(value ?? '')).length / charsPerToken)

/** The token limit a chat request asked for, whichever field it used. */
export function requestedMaxTokens(body: Record<string, unknown>, limitField?: string): number | null {
  const v = limitField ? body[limitField] : (body.max_completion_tokens ?? body.max_tokens)
  return typeof v === 'number' ? v : null
}

/** Highest cost the request can reach at list price: its prompt, and all the output it may ask for. */
export function worstCasePico(entry: CatalogModel, promptTokens: number, outputTokens: number, at: Date): number {
  const { rates } = ratesAt(entry, at, promptTokens)
  return promptTokens * usdPer1MToPicoPerToken(rates.input) + outputTokens * usdPer1MToPicoPerToken(rates.output ?? 0)
}
