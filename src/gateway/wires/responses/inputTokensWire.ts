import type { InboundWire } from '../../core/wire'
import { countingPreset } from '../../pipeline/resolvePreset'
import { invalidRequest } from '../../errors'
import { servesResponses, type Provider } from '../../providers/registry'
import { deliverWith, type AnswerGrammar } from '../deliver'
import { INPUT_TOKENS_ENDPOINT } from '../../store/requestsRepo'
import { applyResponsesPreset, validateResponsesBody } from './responsesBody'
import { nativeRequest } from './responsesNative'
import type { Conversation, Conversations } from './conversations'
import { RESPONSES_FORWARDED } from './responsesWire'

/** Only a provider that serves Responses counts their tokens: another is a 400 naming it. */
const notServed = (provider: Provider) =>
  invalidRequest(
    `Input tokens are counted only by providers that serve the Responses API; ${provider.id} (kind ${provider.kind}${provider.kind === 'openai' ? `, wire ${provider.wire}` : ''}) does not` +
      (provider.kind === 'openai' ? `. If its API serves Responses, mark it so: \`gw providers set ${provider.id} --wire both\`.` : '.'),
    'model',
  )

/** The count as the provider wrote it (the core adds `gw`); a count reports no usage to price. */
const COUNT: AnswerGrammar = { whole: ({ json, text }) => ({ body: json, asSent: text, usage: null }) }

/**
 * `POST /v1/responses/input_tokens`: how many input tokens a Responses request would use, counted
 * by a provider that serves Responses. The body goes as sent but for the model (and a preset's
 * model and `instructions`: sampling parameters are not fields of a count); the answer comes back
 * with `gw`. Admitted as a free call (the key's model rules apply; no rate limit, balance or cost
 * ceiling) and recorded at $0, marked free.
 */
export function inputTokensWire(conversations: Conversations): InboundWire {
  return {
    endpoint: INPUT_TOKENS_ENDPOINT,
    forwardHeaders: RESPONSES_FORWARDED,
    read(sent) {
      let body = validateResponsesBody(sent)
      // Set by `resolve`, which the core runs before anything reads it.
      let conv!: Conversation
      return {
        model: body.model,
        stream: false,
        envelope: body.gw,
        get body() {
          return body
        },
        applyPreset: (preset) => {
          body = applyResponsesPreset(body, countingPreset(preset))
        },
        // A count of a continuation counts the conversation the gateway keeps.
        async resolve(ctx) {
          conv = await conversations.resolve(ctx, body)
        },
        control: () => ({ chat: false, prompt: null, free: true }),
        request(_ctx, target, forwarded) {
          if (!servesResponses(target.provider)) throw notServed(target.provider)
          return nativeRequest('responses/input_tokens', conversations.bodyFor(conv, body, target, true), target, forwarded)
        },
        deliver: (upstream, out) => deliverWith(COUNT, upstream, out),
      }
    },
  }
}
