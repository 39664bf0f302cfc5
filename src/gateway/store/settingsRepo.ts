import type { Db } from './db'
import { bumpConfigRev } from './configRev'
import type { Settings } from '../../contract/settings'

/** Settings saved from the dashboard, over the values the gateway started with. */
export class SettingsRepo {
  constructor(private readonly db: Db) {}

  read(defaults: Settings): Settings {
    const rows = this.db.prepare(`SELECT key, value FROM settings`).all() as Array<{ key: string; value: string }>
    const stored = Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]))
    return { ...defaults, ...stored }
  }

  write(changes: Partial<Settings>): void {
    this.db.transaction(() => {
      const stmt = this.db.prepare(`INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)`)
      for (const [k, v] of Object.entries(changes)) if (v !== undefined) stmt.run(k, JSON.stringify(v))
      bumpConfigRev(this.db)
    })()
  }
}
