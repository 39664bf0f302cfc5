import type { InboundWire } from '../../core/wire'
import { Conversations, type ConversationDeps } from './conversations'
import { inputTokensWire } from './inputTokensWire'
import { responsesWire } from './responsesWire'

/**
 * OpenAI's Responses API as one gateway serves it: its two inbound wires and the conversations
 * they keep for the answers the gateway makes itself (which the routes that read and delete a
 * stored response use too). Made once per gateway from the store it keeps them in.
 */
export class ResponsesApi {
  readonly conversations: Conversations
  /** `POST /v1/responses`. */
  readonly wire: InboundWire
  /** `POST /v1/responses/input_tokens`. */
  readonly inputTokens: InboundWire

  constructor(deps: ConversationDeps) {
    this.conversations = new Conversations(deps)
    this.wire = responsesWire(this.conversations)
    this.inputTokens = inputTokensWire(this.conversations)
  }
}
