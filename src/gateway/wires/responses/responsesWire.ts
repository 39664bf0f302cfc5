import type { InboundWire } from '../../core/wire'
import { invalidRequest } from '../../errors'
import { servesResponses, type Provider } from '../../providers/registry'
import { applyResponsesPreset, promptOf, validateResponsesBody, type ResponsesBody } from './responsesBody'
import { deliverNative, nativeRequest } from './responsesNative'

/** Until requests can be translated, a provider that does not serve Responses is a 400 naming it (Codex retries a 404 five times). */
export const notServed = (provider: Provider) =>
  invalidRequest(
    `The Responses API reaches only providers that serve it for now; ${provider.id} (kind ${provider.kind}${provider.kind === 'openai' ? `, wire ${provider.wire}` : ''}) ` +
      `would need the request translated, which is not available yet. Use /v1/chat/completions for ${provider.id}` +
      (provider.kind === 'openai' ? `, or, if its API serves Responses, mark it so: \`gw providers set ${provider.id} --wire both\`.` : '.'),
    'model',
  )

/**
 * OpenAI's Responses API. Natively only, for now: to a provider that serves it (`servesResponses`)
 * the body goes as sent but for its model (and a preset's changes) and without the `gw` envelope,
 * with the headers Codex identifies its session by, so every field the gateway does not know
 * (input items, hosted and namespace tools, reasoning, include, store, client_metadata…) reaches
 * it; the answer comes back as the provider wrote it. Which path a request takes is the target's
 * to say, in `request` and `deliver` alike.
 */
export const responsesWire: InboundWire<ResponsesBody> = {
  endpoint: 'responses',
  forwardHeaders: ['session-id', 'thread-id', 'originator', 'x-client-request-id', 'x-codex-*'],
  read(body) {
    const b = validateResponsesBody(body)
    return { body: b, model: b.model, stream: b.stream === true, envelope: b.gw }
  },
  applyPreset: applyResponsesPreset,
  control: (body) => ({
    chat: true,
    prompt: promptOf(body),
    limitField: 'max_output_tokens',
  }),
  request(_ctx, body, target, forwarded) {
    if (servesResponses(target.provider)) return nativeRequest('responses', body, target, forwarded)
    throw notServed(target.provider)
  },
  // `request` let through only targets that serve Responses.
  deliver: (ctx, body, upstream, sink, signal, redactor) => deliverNative(ctx, body, upstream, sink, signal, redactor),
}
