import type { FastifyInstance } from 'fastify'
import { ApiError } from '../../errors'
import type { Gateway } from '../../gateway'
import { resolveAttribution } from '../../pipeline/attribution'
import { costOf, gwExtension } from '../../pipeline/cost'
import { resolveModel } from '../../pipeline/resolveModel'
import { applyPreset, resolvePreset } from '../../pipeline/resolvePreset'
import { admit } from '../../pipeline/admit'
import { sendToProvider } from '../../providers/sendToProvider'
import { adapterFor } from '../../providers/kinds'
import { runRecorded } from '../runRecorded'
import { clientWantsUsage, upstreamChatBody, validateChatBody } from './chatBody'
import { relayChatStream } from './streamRelay'

/** Reads a provider's JSON answer; DeepSeek may send blank lines first, which JSON.parse tolerates. */
export async function readJson(providerId: string, body: { text(): Promise<string> }): Promise<Record<string, unknown>> {
  const text = await body.text()
  try {
    const json = JSON.parse(text)
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json
  } catch {
    // fall through
  }
  throw new ApiError(502, 'server_error', `${providerId} answered 200 with a body that is not a JSON object`, 'upstream_error')
}

export function chatRoutes(app: FastifyInstance, gw: Gateway): void {
  app.post('/v1/chat/completions', (req, reply) =>
    runRecorded(gw, req, reply, 'chat.completions', async (ctx, signal) => {
      const asSent = validateChatBody(req.body)
      ctx.model = asSent.model
      ctx.stream = asSent.stream === true
      ctx.attribution = resolveAttribution(asSent.gw, req.raw.rawHeaders)
      ctx.preset = resolvePreset(gw.presets, ctx.key, asSent.model)
      const body = ctx.preset ? applyPreset(asSent, ctx.preset) : asSent
      ctx.target = await resolveModel(gw, body.model)
      const upstreamBody = upstreamChatBody(body, ctx.target.upstreamModel)
      admit(gw, ctx, upstreamBody, { chat: true, prompt: body.messages })
      const adapter = adapterFor(ctx.target.provider.kind)
      const request = adapter.chatRequest(upstreamBody, { stream: ctx.stream, autoCache: ctx.attribution.attribution.auto_cache === true })
      const upstream = await sendToProvider(gw, ctx, ctx.target, request, signal)
      const providerId = ctx.target.provider.id
      if (ctx.stream) {
        const translator = adapter.streamTranslator(providerId)
        return relayChatStream(ctx, reply, upstream, translator, { includeUsage: clientWantsUsage(body), prompt: body.messages, signal })
      }
      const { completion, usage } = adapter.chatResponse(await readJson(providerId, upstream.body), providerId)
      ctx.usage = usage
      ctx.cost = costOf(ctx, usage)
      completion.gw = gwExtension(ctx)
      ctx.markFirstByte()
      await reply.send(completion)
      return { status: 200, outcome: 'ok' }
    }),
  )
}
