import type { Db } from './db'
import { bumpConfigRev } from './configRev'
import type { z } from 'zod'
import { holidayCalendar, priceRow } from '../../contract/prices'
import { describeIssues } from '../../contract/presets'
import type { HolidayCalendar, PriceRow } from '../pricing/types'

/** A user's price for one `provider/model`: a whole price row, dated, with where it comes from. */
export interface PriceOverride {
  model: string
  row: PriceRow
  /** The date the price was set or published (YYYY-MM-DD). */
  as_of: string
  note: string | null
  updated_at: number
}

export interface CalendarOverride {
  name: string
  calendar: HolidayCalendar
  updated_at: number
}

/**
 * Overrides are stored as JSON and parsed with the contract's schema on the way in and out: a row
 * written by an older or hand-edited store that no longer parses is an error naming the model,
 * not a price silently half-applied.
 */
export class PricesRepo {
  constructor(private readonly db: Db) {}

  all(): PriceOverride[] {
    const rows = this.db.prepare(`SELECT * FROM price_rows ORDER BY model`).all() as Array<Omit<PriceOverride, 'row'> & { row: string }>
    return rows.map((r) => ({ ...r, row: parseStored(priceRow, r.row, `price override of ${r.model}`) }))
  }

  set(o: Omit<PriceOverride, 'updated_at'>, now = Date.now()): void {
    this.setMany([o], now)
  }

  /** Several overrides at once: all saved or none. */
  setMany(overrides: Array<Omit<PriceOverride, 'updated_at'>>, now = Date.now()): void {
    const rows = overrides.map((o) => ({ ...o, row: JSON.stringify(priceRow.parse(o.row)) }))
    this.db.transaction(() => {
      const insert = this.db.prepare(`INSERT OR REPLACE INTO price_rows (model, row, as_of, note, updated_at) VALUES (?, ?, ?, ?, ?)`)
      for (const o of rows) insert.run(o.model, o.row, o.as_of, o.note, now)
      bumpConfigRev(this.db)
    })()
  }

  remove(model: string): boolean {
    return this.db.transaction(() => {
      const removed = this.db.prepare(`DELETE FROM price_rows WHERE model = ?`).run(model).changes === 1
      bumpConfigRev(this.db)
      return removed
    })()
  }

  calendars(): CalendarOverride[] {
    const rows = this.db.prepare(`SELECT * FROM price_calendars ORDER BY name`).all() as Array<{ name: string; calendar: string; updated_at: number }>
    return rows.map((r) => ({ ...r, calendar: parseStored(holidayCalendar, r.calendar, `holiday calendar ${r.name}`) }))
  }

  setCalendar(name: string, calendar: HolidayCalendar, now = Date.now()): void {
    const parsed = holidayCalendar.parse(calendar)
    this.db.transaction(() => {
      this.db.prepare(`INSERT OR REPLACE INTO price_calendars (name, calendar, updated_at) VALUES (?, ?, ?)`).run(name, JSON.stringify(parsed), now)
      bumpConfigRev(this.db)
    })()
  }

  removeCalendar(name: string): boolean {
    return this.db.transaction(() => {
      const removed = this.db.prepare(`DELETE FROM price_calendars WHERE name = ?`).run(name).changes === 1
      bumpConfigRev(this.db)
      return removed
    })()
  }
}

function parseStored<T>(schema: z.ZodType<T>, text: string, what: string): T {
  const r = schema.safeParse(JSON.parse(text))
  if (r.success) return r.data
  throw new Error(`the stored ${what} is not valid (${describeIssues(r.error)})`)
}
