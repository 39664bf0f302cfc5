import { builtinProviders } from '../../providers/builtin'
import { probeProvider } from '../../providers/health'
import { providerKinds } from '../../providers/kinds'
import { dialectOf } from '../../providers/quirks'
import type { Provider } from '../../providers/registry'
import { envVarFor } from '../../secrets/secretStore'
import { MissingSecretKey } from '../../secrets/databaseSecretStore'
import { listModels } from '../../core/modelList'
import { AdminError, invalid, notFound, secretKeyMissing } from '../adminError'
import type { AdminContext } from '../context'
import type { Handlers } from './types'

async function info(ctx: AdminContext, p: Provider) {
  const cred = await ctx.gw.registry.credential(p.id)
  return {
    id: p.id,
    kind: p.kind,
    label: p.label,
    base_url: p.baseUrl,
    local: p.local,
    credential: cred ? { source: cred.source, last4: cred.value.slice(-4) } : null,
    key_store: ctx.gw.secrets.description,
    timeouts: p.timeouts,
    wire: p.kind === 'openai' ? p.wire : null,
    // A setting of kind openai only: kind gemini's quirks are gemini's, and not for changing.
    dialect: p.kind === 'openai' ? dialectOf(p) : null,
    stored: p.stored,
  }
}

export const providerHandlers: Handlers<'providers.list' | 'providers.set' | 'providers.remove' | 'providers.test' | 'models.list'> = {
  'providers.list': (ctx) => Promise.all(ctx.gw.registry.all().map((p) => info(ctx, p))),

  async 'providers.set'(ctx, input) {
    const existing = ctx.gw.registry.get(input.id)
    const builtin = builtinProviders.find((b) => b.id === input.id)
    const kind = input.kind ?? existing?.kind ?? builtin?.kind
    if (!kind) throw invalid('kind', `${input.id} is not a built-in provider: choose a kind (${providerKinds().join(', ')})`)
    if (!providerKinds().includes(kind)) throw invalid('kind', `unknown kind "${kind}" (known: ${providerKinds().join(', ')})`)
    const baseUrl = input.base_url === undefined ? (existing?.stored ? existing.baseUrl : null) : input.base_url
    if (!builtin && !baseUrl) throw invalid('base_url', `${input.id} is not a built-in provider: give its base URL`)
    if (input.wire !== undefined && kind !== 'openai') throw invalid('wire', `wire applies to providers of kind openai; ${input.id} is of kind ${kind}`)
    if (input.dialect !== undefined && kind !== 'openai')
      throw invalid('dialect', `dialect applies to providers of kind openai; ${input.id} is of kind ${kind}`)
    if (input.api_key !== undefined) {
      try {
        await ctx.gw.secrets.set(input.id, input.api_key)
      } catch (err) {
        if (err instanceof MissingSecretKey) throw secretKeyMissing(`${err.message}. Or set ${envVarFor(input.id)} in the gateway's environment.`, 'api_key')
        throw new AdminError(
          503,
          'keychain_unavailable',
          `The key could not be stored in ${ctx.gw.secrets.description} (${(err as Error).message}). Set ${envVarFor(input.id)} in the gateway's environment instead.`,
          'api_key',
        )
      }
    }
    await ctx.gw.store.providers.upsert(input.id, kind, baseUrl, input.timeouts ?? existing?.timeouts ?? {}, input.wire, input.dialect)
    // The keychain changed too, which no revision tells: the credential is read again. (A key in
    // the database bumped the revision itself, which tells every gateway on it.)
    await ctx.gw.configChanged()
    return info(ctx, ctx.gw.registry.get(input.id)!)
  },

  async 'providers.remove'(ctx, input) {
    const removed = await ctx.gw.store.providers.remove(input.id)
    const hadKey = await ctx.gw.secrets.delete(input.id).catch(() => false)
    if (!removed && !hadKey) throw notFound(`stored provider or key ${input.id}`)
    await ctx.gw.store.providers.touch()
    return { ok: true as const }
  },

  async 'providers.test'(ctx, input) {
    const provider = ctx.gw.registry.get(input.id)
    if (!provider) throw notFound(`provider ${input.id}`)
    const s = await probeProvider(ctx.gw.registry.dispatcher(provider), ctx.gw.registry, provider, input.timeout_ms)
    return s.ok ? { ok: true as const, latency_ms: s.latency_ms, models: s.models.length, checked_at: s.checked_at } : s
  },

  async 'models.list'(ctx) {
    return (await listModels(ctx.gw)).map((m) => ({ id: m.id, ...m.gw }))
  },
}
