import type { PriceOverride } from '../store/pricesRepo'
import type { CatalogModel, PriceCatalog } from './types'

export interface PricedModel {
  entry: CatalogModel
  /** 'catalog 2026-11-21' or 'override'. */
  source: string
}

const canonical = (provider: string, model: string) => `${provider}/${model}`

/**
 * The dated built-in catalog with the user's overrides on top. An override replaces the list
 * rates of a model entirely (schedules, peak hours and tiers included): it is what the user pays.
 */
export class PriceBook {
  private byId = new Map<string, PricedModel>()
  private byBare = new Map<string, PricedModel[]>()

  constructor(readonly catalog: PriceCatalog) {
    this.reload([])
  }

  reload(overrides: PriceOverride[]): void {
    const byId = new Map<string, PricedModel>()
    const source = `catalog ${this.catalog.as_of}`
    for (const entry of this.catalog.models) byId.set(canonical(entry.provider, entry.model), { entry, source })
    for (const o of overrides) {
      const slash = o.model.indexOf('/')
      const base = byId.get(o.model)?.entry
      const entry: CatalogModel = {
        provider: o.model.slice(0, slash),
        model: o.model.slice(slash + 1),
        kind: base?.kind ?? (o.output === null ? 'embedding' : 'chat'),
        input: o.input,
        ...(o.output !== null && { output: o.output }),
        ...(o.cached_input !== null && { cached_input: o.cached_input }),
        ...(o.cache_write !== null && { cache_write: o.cache_write }),
        context_length: o.context_length ?? base?.context_length,
        max_output_tokens: base?.max_output_tokens,
        aliases: base?.aliases,
      }
      byId.set(o.model, { entry, source: 'override' })
    }
    const byBare = new Map<string, PricedModel[]>()
    for (const priced of byId.values()) {
      for (const name of [priced.entry.model, ...(priced.entry.aliases ?? [])]) {
        const list = byBare.get(name) ?? []
        list.push(priced)
        byBare.set(name, list)
      }
    }
    this.byId = byId
    this.byBare = byBare
  }

  /** A model of a given provider, by its id or one of its aliases. */
  lookup(provider: string, model: string): PricedModel | null {
    const direct = this.byId.get(canonical(provider, model))
    if (direct) return direct
    return this.byBare.get(model)?.find((p) => p.entry.provider === provider) ?? null
  }

  /** Every provider's model answering to a bare id, catalog order (first-party first). */
  findBare(model: string): PricedModel[] {
    return this.byBare.get(model) ?? []
  }

  all(): PricedModel[] {
    return [...this.byId.values()]
  }
}
