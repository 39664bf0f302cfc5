import type { Delivered, Delivery } from '../core/wire'
import { CHARS_PER_TOKEN_TYPICAL, estimateTokens } from '../pipeline/estimate'

/** Says where a token count comes from: `provider` (the provider counted) or `estimate` (the gateway did, without a tokenizer). */
const TOKEN_COUNT_HEADER = 'x-gw-token-count'

/** A count the gateway makes where the provider cannot: what the provider would read (instructions, turns, tools), its parts that are absent left out. */
export const estimatedCount = (parts: unknown[]): number =>
  parts.reduce<number>((n, part) => (part === undefined ? n : n + estimateTokens(part, CHARS_PER_TOKEN_TYPICAL)), 0)

/** A token count goes out as its counter wrote it, saying who counted; nothing of the gateway's is added to the body. */
export async function answerCount(out: Delivery, text: string, source: 'provider' | 'estimate'): Promise<Delivered> {
  out.firstByte()
  await out.sink.json(text, { ...out.headers(), [TOKEN_COUNT_HEADER]: source })
  return { status: 200, outcome: 'ok', usage: null, logged: out.logging ? text : null }
}
