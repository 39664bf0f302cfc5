import type { Db } from './db'
import { bumpConfigRev } from './configRev'

export interface PriceOverride {
  model: string
  input: number
  output: number | null
  cached_input: number | null
  cache_write: number | null
  context_length: number | null
  note: string | null
  updated_at: number
}

export class PricesRepo {
  constructor(private readonly db: Db) {}

  all(): PriceOverride[] {
    return this.db.prepare(`SELECT * FROM price_overrides ORDER BY model`).all() as PriceOverride[]
  }

  set(o: Omit<PriceOverride, 'updated_at'>, now = Date.now()): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT OR REPLACE INTO price_overrides (model, input, output, cached_input, cache_write, context_length, note, updated_at)
           VALUES (@model, @input, @output, @cached_input, @cache_write, @context_length, @note, @updated_at)`,
        )
        .run({ ...o, updated_at: now })
      bumpConfigRev(this.db)
    })()
  }

  remove(model: string): boolean {
    return this.db.transaction(() => {
      const removed = this.db.prepare(`DELETE FROM price_overrides WHERE model = ?`).run(model).changes === 1
      bumpConfigRev(this.db)
      return removed
    })()
  }
}
