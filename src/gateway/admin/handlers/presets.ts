import type { Preset } from '../../../contract/presets'
import { PresetValidationError, validatePreset } from '../../presets/validatePreset'
import { applyPreset } from '../../wires/chat/chatBody'
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

const withKeys = async (ctx: AdminContext, p: Preset) => ({ ...p, default_of_keys: await ctx.gw.store.presets.keysUsing(p.name) })

export const presetHandlers: Handlers<'presets.list' | 'presets.get' | 'presets.save' | 'presets.restore' | 'presets.delete' | 'presets.preview'> = {
  'presets.list': async (ctx) => Promise.all((await ctx.gw.store.presets.all()).map((p) => withKeys(ctx, p))),

  async 'presets.get'(ctx, input) {
    const presets = ctx.gw.store.presets
    const preset = await presets.get(input.name)
    if (!preset) throw notFound(`preset ${input.name}`)
    return { preset, versions: await presets.versions(input.name), default_of_keys: await presets.keysUsing(input.name) }
  },

  'presets.save': (ctx, input) => ctx.gw.store.presets.save(validated(ctx, input), actorOf(ctx)),

  async 'presets.restore'(ctx, input) {
    const old = (await ctx.gw.store.presets.versions(input.name)).find((v) => v.version === input.version)
    if (!old) throw notFound(`version ${input.version} of preset ${input.name}`)
    const { version: _v, created_at: _c, created_by: _b, ...fields } = old
    // An old version is checked again: its model may have gone since.
    return ctx.gw.store.presets.save(validated(ctx, fields), actorOf(ctx))
  },

  async 'presets.delete'(ctx, input) {
    if (!(await ctx.gw.store.presets.get(input.name))) throw notFound(`preset ${input.name}`)
    try {
      await ctx.gw.store.presets.delete(input.name)
    } catch (err) {
      throw conflict((err as Error).message)
    }
    return { ok: true as const }
  },

  'presets.preview'(ctx, input) {
    const fields = validated(ctx, input.preset)
    const preset: Preset = { ...fields, soft_cap: fields.soft_cap ?? null, version: 0, created_at: 0, created_by: null }
    const body = applyPreset({ ...input.request, model: `policy/${fields.name}` } as ChatBody, preset)
    const target = lookupModel(ctx.gw.registry, ctx.gw.priceBook, body.model)
    if (!target) throw invalid('preset.model', `unknown model "${body.model}"`)
    const request = adapterFor(target.provider.kind).chatRequest(upstreamChatBody(body, target.upstreamModel), { stream: false, autoCache: false })
    return { provider: target.provider.id, upstream_model: target.upstreamModel, body: request.body as Record<string, unknown> }
  },
}
