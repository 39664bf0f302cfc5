import type { Preset } from '../../../contract/presets'
import { PresetValidationError, validatePreset } from '../../presets/validatePreset'
import { applyPreset } from '../../pipeline/resolvePreset'
import { lookupModel } from '../../pipeline/resolveModel'
import { adapterFor } from '../../providers/kinds'
import { upstreamChatBody, type ChatBody } from '../../wires/chat/chatBody'
import { AdminError, conflict, invalid, notFound } from '../adminError'
import { actorOf, type AdminContext } from '../context'
import type { Handlers } from './types'

function validated(ctx: AdminContext, input: unknown) {
  try {
    return validatePreset(input, ctx.gw.registry, ctx.gw.priceBook)
  } catch (err) {
    if (err instanceof PresetValidationError) {
      const first = err.issues[0]
      throw new AdminError(400, 'invalid_input', err.message, first?.field)
    }
    throw err
  }
}

const withKeys = (ctx: AdminContext, p: Preset) => ({ ...p, default_of_keys: ctx.gw.presetsRepo.keysUsing(p.name) })

export const presetHandlers: Handlers<'presets.list' | 'presets.get' | 'presets.save' | 'presets.restore' | 'presets.delete' | 'presets.preview'> = {
  'presets.list': (ctx) => ctx.gw.presetsRepo.all().map((p) => withKeys(ctx, p)),

  'presets.get'(ctx, input) {
    const preset = ctx.gw.presetsRepo.get(input.name)
    if (!preset) throw notFound(`preset ${input.name}`)
    return { preset, versions: ctx.gw.presetsRepo.versions(input.name), default_of_keys: ctx.gw.presetsRepo.keysUsing(input.name) }
  },

  'presets.save': (ctx, input) => ctx.gw.presetsRepo.save(validated(ctx, input), actorOf(ctx)),

  'presets.restore'(ctx, input) {
    const old = ctx.gw.presetsRepo.versions(input.name).find((v) => v.version === input.version)
    if (!old) throw notFound(`version ${input.version} of preset ${input.name}`)
    const { version: _v, created_at: _c, created_by: _b, ...fields } = old
    // An old version is checked again: its model may have gone since.
    return ctx.gw.presetsRepo.save(validated(ctx, fields), actorOf(ctx))
  },

  'presets.delete'(ctx, input) {
    if (!ctx.gw.presetsRepo.get(input.name)) throw notFound(`preset ${input.name}`)
    try {
      ctx.gw.presetsRepo.delete(input.name)
    } catch (err) {
      throw conflict((err as Error).message)
    }
    return { ok: true as const }
  },

  'presets.preview'(ctx, input) {
    const fields = validated(ctx, input.preset)
    const preset: Preset = { ...fields, version: 0, created_at: 0, created_by: null }
    const body = applyPreset({ ...input.request, model: `policy/${fields.name}` } as ChatBody, preset)
    const target = lookupModel(ctx.gw.registry, ctx.gw.priceBook, body.model)
    if (!target) throw invalid('preset.model', `unknown model "${body.model}"`)
    const request = adapterFor(target.provider.kind).chatRequest(upstreamChatBody(body, target.upstreamModel), { stream: false, autoCache: false })
    return { provider: target.provider.id, upstream_model: target.upstreamModel, body: request.body as Record<string, unknown> }
  },
}
