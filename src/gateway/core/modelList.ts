import type { Preset } from '../../contract/presets'
import type { AliasTable } from '../pipeline/aliases'
import { presetNameOf } from '../pipeline/resolvePreset'
import type { PriceBook, PricedModel } from '../pricing/priceBook'
import { listedAt } from '../pricing/priceUsage'
import type { Provider, ProviderRegistry } from '../providers/registry'
import type { ProviderHealth, ProviderStatus } from '../providers/health'
import type { Cooldown } from '../routing/cooldown'

/** What the model list is made from: the providers, what they answer now, their cool-downs, the prices and the clock. */
export interface ModelListSources {
  registry: ProviderRegistry
  health: ProviderHealth
  cooldown: Pick<Cooldown, 'cooling'>
  priceBook: PriceBook
  clock: () => number
}

export interface ModelEntry {
  id: string
  object: 'model'
  created: number
  owned_by: string
  gw: {
    provider: string
    upstream_model: string
    kind: 'chat' | 'embedding' | null
    context_length: number | null
    max_output_tokens: number | null
    pricing: Record<string, unknown> | null
    status: string | null
    availability: { available: boolean; reason: string | null }
  }
}

/** The rates in force at `now` (a dated row replaces the list rates), with the whole schedule beside them. */
function pricing(p: PricedModel | null, provider: Provider, now: Date): Record<string, unknown> | null {
  if (!p) return provider.local ? { currency: 'USD', unit: 'per_1m_tokens', input: 0, cached_input: 0, output: 0, source: 'local' } : null
  const e = p.entry
  const r = listedAt(e, now)
  return {
    currency: 'USD',
    unit: 'per_1m_tokens',
    input: r.input,
    cached_input: r.cached_input ?? null,
    cache_write: r.cache_write ?? null,
    cache_write_1h: r.cache_write_1h ?? null,
    output: r.output ?? null,
    long_context: r.long_context ?? null,
    peak: e.peak ?? null,
    schedule: e.schedule ?? null,
    source: p.source,
    unconfirmed: e.unconfirmed ?? false,
  }
}

function availability(gw: ModelListSources, status: ProviderStatus, provider: Provider, model: string) {
  if (!status.ok) return { available: false, reason: status.reason }
  const cooling = gw.cooldown.cooling(provider.id)
  if (cooling) {
    return {
      available: false,
      reason: `${provider.id} is cooling down until ${new Date(cooling.until).toISOString()} after ${cooling.failures} failures: ${cooling.lastError}`,
    }
  }
  // Providers' lists are authoritative for local servers (a model that is not pulled cannot answer);
  // hosted lists are often partial, so there a missing entry is only a hint.
  if (provider.local && !status.models.some((m) => m.id === model)) {
    return { available: false, reason: `${provider.id} does not have ${model} (not in its model list)` }
  }
  return { available: true, reason: null }
}

const catalogCreated = (gw: ModelListSources) => Math.floor(Date.parse(gw.priceBook.catalog.as_of) / 1000)

/**
 * The catalog's models for every known provider plus what configured and local providers list
 * themselves, each with prices, limits and whether it can be served now (and why not).
 */
export async function listModels(gw: ModelListSources): Promise<ModelEntry[]> {
  const providers = gw.registry.all()
  const statuses = new Map(await Promise.all(providers.map(async (p) => [p.id, await gw.health.status(p)] as const)))
  const entries = new Map<string, ModelEntry>()
  const now = new Date(gw.clock())
  const add = (provider: Provider, model: string, priced: PricedModel | null, created: number) => {
    const id = `${provider.id}/${model}`
    if (entries.has(id)) return
    const e = priced?.entry
    entries.set(id, {
      id,
      object: 'model',
      created,
      owned_by: provider.id,
      gw: {
        provider: provider.id,
        upstream_model: model,
        kind: e?.kind ?? null,
        context_length: e?.context_length ?? null,
        max_output_tokens: e?.max_output_tokens ?? null,
        pricing: pricing(priced, provider, now),
        status: e?.status ?? null,
        availability: availability(gw, statuses.get(provider.id)!, provider, model),
      },
    })
  }
  for (const priced of gw.priceBook.all()) {
    const provider = gw.registry.get(priced.entry.provider)
    if (provider) add(provider, priced.entry.model, priced, catalogCreated(gw))
  }
  for (const provider of providers) {
    const status = statuses.get(provider.id)!
    // Hosted providers list hundreds of models; only local and user-added ones extend the catalog.
    if (!status.ok || !(provider.local || provider.stored)) continue
    for (const m of status.models) add(provider, m.id, gw.priceBook.lookup(provider.id, m.id), m.created ?? catalogCreated(gw))
  }
  return [...entries.values()]
}

/** What finding a model takes: the list's sources, and the aliases and presets a name may steer through. */
export type ModelLookupSources = Parameters<typeof listModels>[0] & { aliases: Pick<AliasTable, 'match'>; presets: ReadonlyMap<string, Preset> }

/**
 * The listed model an id names: its gateway id (`provider/model`), else a bare upstream id, else
 * what an alias of that name steers to (its target model, or the model of the preset it targets).
 */
export async function findModel(sources: ModelLookupSources, id: string): Promise<ModelEntry | undefined> {
  const models = await listModels(sources)
  const named = (name: string) => models.find((m) => m.id === name) ?? models.find((m) => m.gw.upstream_model === name)
  const found = named(id)
  if (found) return found
  const target = sources.aliases.match(id)?.target
  if (target === undefined) return undefined
  const preset = presetNameOf(target)
  const model = preset === null ? target : sources.presets.get(preset)?.model
  return model === undefined ? undefined : named(model)
}
