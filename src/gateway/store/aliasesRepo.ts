import type { Db } from './db'
import { bumpConfigRev } from './configRev'
import type { Alias } from '../../contract/aliases'

export class AliasesRepo {
  constructor(private readonly db: Db) {}

  /** Creates or replaces the alias for a pattern (its creation time stays). */
  set(pattern: string, target: string, note: string | null, now = Date.now()): Alias {
    return this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO aliases (pattern, target, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (pattern) DO UPDATE SET target = excluded.target, note = excluded.note, updated_at = excluded.updated_at`,
        )
        .run(pattern, target, note, now, now)
      bumpConfigRev(this.db)
      return this.db.prepare(`SELECT * FROM aliases WHERE pattern = ?`).get(pattern) as Alias
    })()
  }

  all(): Alias[] {
    return this.db.prepare(`SELECT * FROM aliases ORDER BY pattern`).all() as Alias[]
  }

  /** False when there was no alias for the pattern. */
  remove(pattern: string): boolean {
    return this.db.transaction(() => {
      const removed = this.db.prepare(`DELETE FROM aliases WHERE pattern = ?`).run(pattern).changes > 0
      if (removed) bumpConfigRev(this.db)
      return removed
    })()
  }
}
