import type { Sql } from './sql'
import { bumpConfigRev } from './configRev'
import type { Alias } from '../../contract/aliases'

export class AliasesRepo {
  constructor(private readonly sql: Sql) {}

  /** Creates or replaces the alias for a pattern (its creation time stays). */
  set(pattern: string, target: string, note: string | null, now = Date.now()): Promise<Alias> {
    return this.sql.write(async (tx) => {
      await tx.run(
        `INSERT INTO aliases (pattern, target, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (pattern) DO UPDATE SET target = excluded.target, note = excluded.note, updated_at = excluded.updated_at`,
        [pattern, target, note, now, now],
      )
      await bumpConfigRev(tx)
      return (await tx.get<Alias>(`SELECT * FROM aliases WHERE pattern = ?`, [pattern]))!
    })
  }

  all(): Promise<Alias[]> {
    return this.sql.all<Alias>(`SELECT * FROM aliases ORDER BY pattern`)
  }

  /** False when there was no alias for the pattern. */
  remove(pattern: string): Promise<boolean> {
    return this.sql.write(async (tx) => {
      const removed = (await tx.run(`DELETE FROM aliases WHERE pattern = ?`, [pattern])) > 0
      if (removed) await bumpConfigRev(tx)
      return removed
    })
  }
}
