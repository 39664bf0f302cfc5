import type { InboundWire } from '../../core/wire'
import { invalidRequest } from '../../errors'
import { countingPreset } from '../../pipeline/resolvePreset'
import { COUNT_TOKENS_ENDPOINT } from '../../store/requestsRepo'
import { readJson } from '../deliver'
import { answerCount, estimatedCount } from '../tokenCount'
import { applyMessagesPreset, validateMessagesBody } from './messagesBody'
import { isNative, messagesWire } from './messagesWire'

/**
 * Anthropic's `POST /v1/messages/count_tokens`. Free at Anthropic, and Claude Code sends many
 * (its /context makes ~15), so it is admitted like a free call: the key's model rules apply, but
 * no rate limit, balance or cost ceiling. To a provider of kind `anthropic` the body goes as sent
 * but for its model (and a preset's model and system prompt: its sampling parameters are not
 * count_tokens fields); any other provider cannot count, so the gateway estimates from the body
 * and calls nobody. Recorded with cost $0, priced, marked free.
 */
export const countTokensWire: InboundWire = {
  endpoint: COUNT_TOKENS_ENDPOINT,
  forwardHeaders: messagesWire.forwardHeaders,
  read(sent) {
    let body = validateMessagesBody(sent)
    return {
      model: body.model,
      stream: false,
      envelope: undefined,
      get body() {
        return body
      },
      applyPreset: (preset) => {
        body = applyMessagesPreset(body, countingPreset(preset))
      },
      control: () => ({ chat: false, prompt: null, free: true }),
      answerLocally(out) {
        if (isNative(out.target)) return null
        const tokens = estimatedCount([body.system, body.messages, body.tools])
        return answerCount(out, JSON.stringify({ input_tokens: tokens }), 'estimate')
      },
      // `forwarded`: the caller's anthropic-version and anthropic-beta, for the provider that speaks Anthropic's wire.
      request(_ctx, target, forwarded) {
        // Only a fallback gets here with another kind: it is passed over.
        if (!isNative(target)) throw invalidRequest(`${target.provider.id} (kind ${target.provider.kind}) cannot count tokens`, 'model')
        return { path: 'messages/count_tokens', body: { ...body, model: target.upstreamModel }, ...(forwarded ? { headers: forwarded } : {}) }
      },
      async deliver(upstream, out) {
        const { text } = await readJson(out.target.provider.id, upstream)
        return answerCount(out, text.trim(), 'provider')
      },
    }
  },
}
