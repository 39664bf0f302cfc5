import type { Delivered, Delivery } from '../core/wire'

/** Says where a token count comes from: `provider` (the provider counted) or `estimate` (the gateway did, without a tokenizer). */
const TOKEN_COUNT_HEADER = 'x-gw-token-count'

/** A token count goes out as its counter wrote it, saying who counted; nothing of the gateway's is added to the body. */
export async function answerCount(out: Delivery, text: string, source: 'provider' | 'estimate'): Promise<Delivered> {
  out.firstByte()
  await out.sink.json(text, { ...out.headers(), [TOKEN_COUNT_HEADER]: source })
  return { status: 200, outcome: 'ok', usage: null, logged: out.logging ? text : null }
}
