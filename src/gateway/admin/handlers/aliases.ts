import { lookupModel } from '../../pipeline/resolveModel'
import { presetNameOf } from '../../pipeline/resolvePreset'
import { invalid, notFound, type AdminError } from '../adminError'
import type { AdminContext } from '../context'
import type { Handlers } from './types'

/** Why an alias target would not resolve, or null when it names a preset, a provider's model or a catalog model. */
function targetProblem(ctx: AdminContext, target: string): AdminError | null {
  if (target.includes('*')) return invalid('to', 'a target is one model or preset, not a pattern')
  const preset = presetNameOf(target)
  if (preset !== null) return ctx.gw.presets.has(preset) ? null : invalid('to', `no preset named "${preset}"`)
  if (lookupModel(ctx.gw.registry, ctx.gw.priceBook, target)) return null
  return invalid('to', `unknown model "${target}": use <provider>/<model> for a configured provider, a model from the catalog, or policy/<preset>`)
}

export const aliasHandlers: Handlers<'aliases.list' | 'aliases.set' | 'aliases.remove'> = {
  'aliases.list': (ctx) => ctx.gw.store.aliases.all(),

  'aliases.set'(ctx, input) {
    const problem = targetProblem(ctx, input.to)
    if (problem) throw problem
    return ctx.gw.store.aliases.set(input.pattern, input.to, input.note ?? null)
  },

  async 'aliases.remove'(ctx, input) {
    if (!(await ctx.gw.store.aliases.remove(input.pattern))) throw notFound(`alias ${input.pattern}`)
    return { ok: true as const }
  },
}
