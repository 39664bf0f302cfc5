import type { FastifyInstance } from 'fastify'
import type { Gateway } from '../../gateway'
import { resolveAttribution } from '../../pipeline/attribution'
import { costOf } from '../../pipeline/cost'
import { resolveModel } from '../../pipeline/resolveModel'
import { applyPreset, resolvePreset } from '../../pipeline/resolvePreset'
import { admit, policyRefusal } from '../../pipeline/admit'
import { route } from '../../routing/route'
import { candidatesFor } from '../../routing/candidates'
import { adapterFor } from '../../providers/kinds'
import { runRecorded } from '../runRecorded'
import { clientWantsUsage, upstreamChatBody, validateChatBody } from './chatBody'
import { relayChatStream } from './streamRelay'
import { readJson, requestText, sendJson } from './json'

export function chatRoutes(app: FastifyInstance, gw: Gateway): void {
  app.post('/v1/chat/completions', (req, reply) =>
    runRecorded(gw, req, reply, 'chat.completions', async (ctx, signal) => {
      const asSent = validateChatBody(req.body)
      ctx.model = asSent.model
      ctx.stream = asSent.stream === true
      ctx.attribution = resolveAttribution(asSent.gw, req.raw.rawHeaders)
      if (gw.settings.log_bodies) ctx.bodies = { request: requestText(req), response: null }
      ctx.preset = resolvePreset(gw.presets, ctx.key, asSent.model)
      const body = ctx.preset ? applyPreset(asSent, ctx.preset) : asSent
      const primary = await resolveModel(gw, body.model)
      ctx.target = primary
      const control = { chat: true, prompt: body.messages }
      admit(gw, ctx, body, control)
      const candidates = await candidatesFor(gw, ctx, primary, ctx.preset?.fallbacks ?? [])
      const autoCache = ctx.attribution.attribution.auto_cache === true
      const { target, response: upstream } = await route(
        gw,
        ctx,
        candidates,
        (t) => adapterFor(t.provider.kind).chatRequest(upstreamChatBody(body, t.upstreamModel), { stream: ctx.stream, autoCache }),
        signal,
        (t) => policyRefusal(ctx, t, body, control),
      )
      ctx.target = target
      ctx.fallbackUsed = target !== primary
      const adapter = adapterFor(target.provider.kind)
      const providerId = target.provider.id
      if (ctx.stream) {
        const translator = adapter.streamTranslator(providerId, gw.registry.redactor)
        return relayChatStream(ctx, reply, upstream, translator, { includeUsage: clientWantsUsage(body), prompt: body.messages, signal })
      }
      const answer = await readJson(providerId, upstream)
      const { completion, usage, untouched } = adapter.chatResponse(answer.json, providerId)
      ctx.usage = usage
      ctx.cost = costOf(ctx, usage)
      await sendJson(ctx, reply, completion, untouched ? answer.text : undefined)
      return { status: 200, outcome: 'ok' }
    }),
  )
}
