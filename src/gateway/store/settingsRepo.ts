import type { Sql } from './sql'
import { bumpConfigRev } from './configRev'
import type { Settings } from '../../contract/settings'

/** Settings saved from the dashboard, over the values the gateway started with. */
export class SettingsRepo {
  constructor(private readonly sql: Sql) {}

  async read(defaults: Settings): Promise<Settings> {
    const rows = await this.sql.all<{ key: string; value: string }>(`SELECT key, value FROM settings`)
    const stored = Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]))
    return { ...defaults, ...stored }
  }

  write(changes: Partial<Settings>): Promise<void> {
    return this.sql.write(async (tx) => {
      for (const [k, v] of Object.entries(changes)) {
        if (v !== undefined)
          await tx.run(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [k, JSON.stringify(v)])
      }
      await bumpConfigRev(tx)
    })
  }
}
