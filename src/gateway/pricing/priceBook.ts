import type { CalendarOverride, PriceOverride } from '../store/pricesRepo'
import type { CatalogModel, HolidayCalendar, PriceCatalog } from './types'

export interface PricedModel {
  entry: CatalogModel
  /** 'catalog 2026-11-21' or 'override 2026-11-23' (the override's own date). */
  source: string
  /** The holiday calendar its peak hours follow, when they follow one. */
  calendar: HolidayCalendar | null
}

const canonical = (provider: string, model: string) => `${provider}/${model}`

/** A trailing `*` in an alias matches any rest of the id (retired slug families such as `grok-3*`). */
const prefixOf = (alias: string) => (alias.endsWith('*') ? alias.slice(0, -1) : null)

/**
 * The dated built-in catalog with the user's overrides on top. An override is a whole price row:
 * it replaces the model's rates, tiers, schedule and peak hours (what the user pays); limits it
 * leaves out, aliases and the lifecycle note stay the catalog's. Holiday calendars work the same
 * way, by name.
 */
export class PriceBook {
  private byId = new Map<string, PricedModel>()
  private byBare = new Map<string, PricedModel[]>()
  private byPrefix: Array<{ prefix: string; priced: PricedModel }> = []
  private calendarTable = new Map<string, { calendar: HolidayCalendar; source: 'catalog' | 'override' }>()

  constructor(readonly catalog: PriceCatalog) {
    this.reload([])
  }

  reload(overrides: PriceOverride[], calendars: CalendarOverride[] = []): void {
    const table = new Map<string, { calendar: HolidayCalendar; source: 'catalog' | 'override' }>()
    for (const [name, calendar] of Object.entries(this.catalog.calendars)) table.set(name, { calendar, source: 'catalog' })
    for (const c of calendars) table.set(c.name, { calendar: c.calendar, source: 'override' })
    const calendarOf = (entry: CatalogModel) => (entry.peak?.calendar ? (table.get(entry.peak.calendar)?.calendar ?? null) : null)

    const byId = new Map<string, PricedModel>()
    const source = `catalog ${this.catalog.as_of}`
    for (const entry of this.catalog.models) byId.set(canonical(entry.provider, entry.model), { entry, source, calendar: calendarOf(entry) })
    for (const o of overrides) {
      const slash = o.model.indexOf('/')
      const base = byId.get(o.model)?.entry
      const { kind, ...row } = o.row
      const entry: CatalogModel = {
        ...row,
        provider: o.model.slice(0, slash),
        model: o.model.slice(slash + 1),
        kind: kind ?? base?.kind ?? (row.output === undefined ? 'embedding' : 'chat'),
        context_length: row.context_length ?? base?.context_length,
        max_output_tokens: row.max_output_tokens ?? base?.max_output_tokens,
        status: base?.status,
        aliases: base?.aliases,
      }
      byId.set(o.model, { entry, source: `override ${o.as_of}`, calendar: calendarOf(entry) })
    }
    const byBare = new Map<string, PricedModel[]>()
    const byPrefix: Array<{ prefix: string; priced: PricedModel }> = []
    for (const priced of byId.values()) {
      for (const name of [priced.entry.model, ...(priced.entry.aliases ?? [])]) {
        const prefix = prefixOf(name)
        if (prefix !== null) {
          byPrefix.push({ prefix, priced })
          continue
        }
        const list = byBare.get(name) ?? []
        list.push(priced)
        byBare.set(name, list)
      }
    }
    this.byId = byId
    this.byBare = byBare
    this.byPrefix = byPrefix
    this.calendarTable = table
  }

  /** A model of a given provider, by its id or one of its aliases. */
  lookup(provider: string, model: string): PricedModel | null {
    const direct = this.byId.get(canonical(provider, model))
    if (direct) return direct
    return this.findBare(model).find((p) => p.entry.provider === provider) ?? null
  }

  /** Every provider's model answering to a bare id, catalog order (first-party first); exact ids before slug families. */
  findBare(model: string): PricedModel[] {
    const exact = this.byBare.get(model)
    if (exact) return exact
    return this.byPrefix.filter((p) => model.startsWith(p.prefix)).map((p) => p.priced)
  }

  all(): PricedModel[] {
    return [...this.byId.values()]
  }

  /** Holiday calendars in force, the catalog's with the user's on top. */
  calendars(): Array<{ name: string; calendar: HolidayCalendar; source: 'catalog' | 'override' }> {
    return [...this.calendarTable].map(([name, c]) => ({ name, ...c }))
  }
}
