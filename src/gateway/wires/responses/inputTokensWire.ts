import { OK, type InboundWire } from '../../core/wire'
import { costOf } from '../../pipeline/cost'
import { ZERO_USAGE } from '../../pricing/usage'
import { servesResponses } from '../../providers/registry'
import { readJson, sendJson } from '../answer'
import { applyResponsesPreset, upstreamResponsesBody, validateResponsesBody, type ResponsesBody } from './responsesBody'
import { notServed, responsesWire } from './responsesWire'

/**
 * `POST /v1/responses/input_tokens`: how many input tokens a Responses request would use, counted
 * by a provider that serves Responses. The body goes as sent but for the model (and a preset's
 * model and `instructions`: sampling parameters are not fields of a count); the answer comes back
 * with `gw`, recorded at $0.
 */
export const inputTokensWire: InboundWire<ResponsesBody> = {
  endpoint: 'responses.input_tokens',
  forwardHeaders: responsesWire.forwardHeaders,
  read(body) {
    const b = validateResponsesBody(body)
    return { body: b, model: b.model, stream: false, envelope: b.gw }
  },
  applyPreset: (body, preset) => applyResponsesPreset(body, { ...preset, temperature: null, top_p: null, max_tokens: null }),
  control: () => ({ chat: false, prompt: null }),
  request(_ctx, body, target) {
    if (!servesResponses(target.provider)) throw notServed(target.provider)
    return { path: 'responses/input_tokens', body: upstreamResponsesBody(body, target.upstreamModel) }
  },
  async deliver(ctx, _body, upstream, sink) {
    const answer = await readJson(ctx.target!.provider.id, upstream)
    // A count is not billed: priced as no tokens at all.
    ctx.cost = costOf(ctx, ZERO_USAGE)
    await sendJson(ctx, sink, answer.json, answer.text)
    return OK
  },
}
