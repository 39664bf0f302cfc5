import type { Sql } from './sql'
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
  constructor(private readonly sql: Sql) {}

  async all(): Promise<PriceOverride[]> {
    const rows = await this.sql.all<Omit<PriceOverride, 'row'> & { row: string }>(`SELECT * FROM price_rows ORDER BY model`)
    return rows.map((r) => ({ ...r, row: parseStored(priceRow, r.row, `price override of ${r.model}`) }))
  }

  set(o: Omit<PriceOverride, 'updated_at'>, now = Date.now()): Promise<void> {
    return this.setMany([o], now)
  }

  /** Several overrides at once: all saved or none. */
  setMany(overrides: Array<Omit<PriceOverride, 'updated_at'>>, now = Date.now()): Promise<void> {
    const rows = overrides.map((o) => ({ ...o, row: JSON.stringify(priceRow.parse(o.row)) }))
    return this.sql.write(async (tx) => {
      for (const o of rows) {
        await tx.run(
          `INSERT INTO price_rows (model, row, as_of, note, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (model) DO UPDATE SET row = excluded.row, as_of = excluded.as_of, note = excluded.note, updated_at = excluded.updated_at`,
          [o.model, o.row, o.as_of, o.note, now],
        )
      }
      await bumpConfigRev(tx)
    })
  }

  remove(model: string): Promise<boolean> {
    return this.sql.write(async (tx) => {
      const removed = (await tx.run(`DELETE FROM price_rows WHERE model = ?`, [model])) === 1
      await bumpConfigRev(tx)
      return removed
    })
  }

  async calendars(): Promise<CalendarOverride[]> {
    const rows = await this.sql.all<{ name: string; calendar: string; updated_at: number }>(`SELECT * FROM price_calendars ORDER BY name`)
    return rows.map((r) => ({ ...r, calendar: parseStored(holidayCalendar, r.calendar, `holiday calendar ${r.name}`) }))
  }

  setCalendar(name: string, calendar: HolidayCalendar, now = Date.now()): Promise<void> {
    const parsed = holidayCalendar.parse(calendar)
    return this.sql.write(async (tx) => {
      await tx.run(
        `INSERT INTO price_calendars (name, calendar, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET calendar = excluded.calendar, updated_at = excluded.updated_at`,
        [name, JSON.stringify(parsed), now],
      )
      await bumpConfigRev(tx)
    })
  }

  removeCalendar(name: string): Promise<boolean> {
    return this.sql.write(async (tx) => {
      const removed = (await tx.run(`DELETE FROM price_calendars WHERE name = ?`, [name])) === 1
      await bumpConfigRev(tx)
      return removed
    })
  }
}

function parseStored<T>(schema: z.ZodType<T>, text: string, what: string): T {
  const r = schema.safeParse(JSON.parse(text))
  if (r.success) return r.data
  throw new Error(`the stored ${what} is not valid (${describeIssues(r.error)})`)
}
