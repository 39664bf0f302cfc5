import { OK, type Finished, type InboundWire } from '../../core/wire'
import { costOf } from '../../pipeline/cost'
import { applyPreset } from '../../pipeline/resolvePreset'
import { adapterFor } from '../../providers/kinds'
import { readJson, sendJson } from '../answer'
import { clientWantsUsage, upstreamChatBody, validateChatBody, type ChatBody } from './chatBody'
import { OpenAIChunks, relayChatStream } from './chatStream'

/** OpenAI's chat completions: the body goes to every provider kind through its adapter, and answers come back as OpenAI's. */
export const chatWire: InboundWire<ChatBody> = {
  endpoint: 'chat.completions',
  read(body) {
    const b = validateChatBody(body)
    return { body: b, model: b.model, stream: b.stream === true, envelope: b.gw }
  },
  applyPreset,
  control: (body) => ({ chat: true, prompt: body.messages }),
  request: (ctx, body, target) =>
    adapterFor(target.provider.kind).chatRequest(upstreamChatBody(body, target.upstreamModel), {
      stream: ctx.stream,
      autoCache: ctx.attribution.attribution.auto_cache === true,
    }),
  async deliver(ctx, body, upstream, sink, signal, redactor): Promise<Finished> {
    const providerId = ctx.target!.provider.id
    const adapter = adapterFor(ctx.target!.provider.kind)
    if (ctx.stream) {
      const translator = adapter.streamTranslator(providerId, redactor)
      return relayChatStream(ctx, sink, upstream, translator, new OpenAIChunks(ctx, sink, clientWantsUsage(body)), { prompt: body.messages, signal })
    }
    const answer = await readJson(providerId, upstream)
    const { completion, usage, untouched } = adapter.chatResponse(answer.json, providerId)
    ctx.usage = usage
    ctx.cost = costOf(ctx, usage)
    await sendJson(ctx, sink, completion, untouched ? answer.text : undefined)
    return OK
  },
}
