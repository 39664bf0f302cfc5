import { invalidRequest, modelNotFound } from '../errors'
import type { ProviderHealth } from '../providers/health'
import type { Provider, ProviderRegistry } from '../providers/registry'
import type { PriceBook, PricedModel } from '../pricing/priceBook'

export interface Target {
  /** The model as the caller asked for it. */
  requested: string
  provider: Provider
  upstreamModel: string
  priced: PricedModel | null
}

/** The target as records, routing notes and messages name it: `<provider>/<upstream model>`. */
export const targetName = (t: Pick<Target, 'provider' | 'upstreamModel'>) => `${t.provider.id}/${t.upstreamModel}`

/** Where a model id is looked up: configured providers, the price catalog, local servers' model lists. */
export interface ModelSources {
  registry: ProviderRegistry
  priceBook: PriceBook
  health: ProviderHealth
}

/**
 * What a model id names without asking any provider: `<provider-id>/<model>` for a known
 * provider, or a bare id the price catalog knows. Null otherwise.
 */
export function lookupModel(
  registry: ProviderRegistry,
  priceBook: PriceBook,
  model: string,
): { provider: Provider; upstreamModel: string; priced: PricedModel | null } | null {
  const slash = model.indexOf('/')
  if (slash > 0) {
    const provider = registry.get(model.slice(0, slash))
    const upstreamModel = model.slice(slash + 1)
    if (provider && upstreamModel) return { provider, upstreamModel, priced: priceBook.lookup(provider.id, upstreamModel) }
  }
  for (const priced of priceBook.findBare(model)) {
    const provider = registry.get(priced.entry.provider)
    if (provider) return { provider, upstreamModel: priced.entry.model, priced }
  }
  return null
}

/**
 * `<provider-id>/<model>` goes to that provider even when the catalog does not know the model
 * (then it is unpriced). A bare id goes to a provider the catalog says serves it, preferring one
 * that has a credential, then a local server that lists it. Synchronous (no promise a request)
 * while every credential it asks about is known; it waits only for a lookup not yet settled and
 * for a local server's model list.
 */
export function resolveModel(sources: ModelSources, model: string): Target | Promise<Target> {
  const slash = model.indexOf('/')
  if (slash > 0) {
    const provider = sources.registry.get(model.slice(0, slash))
    if (provider) {
      const upstreamModel = model.slice(slash + 1)
      if (!upstreamModel) throw invalidRequest('model names a provider but no model', 'model')
      return { requested: model, provider, upstreamModel, priced: sources.priceBook.lookup(provider.id, upstreamModel) }
    }
  }
  const candidates = bareCandidates(sources, model)
  // The provider gets the name asked for: a catalog alias is one of its own ids (a dated snapshot,
  // Gemini CLI's `gemini-3.1-pro-preview-customtools`), priced as the entry it belongs to.
  for (const c of candidates) {
    const credential = sources.registry.knownCredential(c.provider.id)
    if (credential === undefined) return resolveBare(sources, model, candidates)
    if (credential) return { requested: model, provider: c.provider, upstreamModel: model, priced: c.priced }
  }
  return resolveBare(sources, model, candidates)
}

/** The catalog's providers of a bare model id that this gateway has, catalog order. */
function bareCandidates(sources: ModelSources, model: string): Array<{ priced: PricedModel; provider: Provider }> {
  const out: Array<{ priced: PricedModel; provider: Provider }> = []
  for (const priced of sources.priceBook.findBare(model)) {
    const provider = sources.registry.get(priced.entry.provider)
    if (provider) out.push({ priced, provider })
  }
  return out
}

/** `resolveModel` for a bare id, waiting for credentials and local servers' model lists. */
async function resolveBare(sources: ModelSources, model: string, candidates: Array<{ priced: PricedModel; provider: Provider }>): Promise<Target> {
  for (const c of candidates) {
    if (await sources.registry.credential(c.provider.id)) {
      return { requested: model, provider: c.provider, upstreamModel: model, priced: c.priced }
    }
  }
  for (const provider of sources.registry.all().filter((p) => p.local || p.stored)) {
    const status = await sources.health.status(provider)
    if (status.ok && status.models.some((m) => m.id === model)) {
      return { requested: model, provider, upstreamModel: model, priced: sources.priceBook.lookup(provider.id, model) }
    }
  }
  // Known to the catalog, but no provider for it has a key: route to the first so the error says what to configure.
  if (candidates[0]) {
    return { requested: model, provider: candidates[0].provider, upstreamModel: model, priced: candidates[0].priced }
  }
  throw modelNotFound(model, 'use `<provider>/<model>` or a model from GET /v1/models')
}
