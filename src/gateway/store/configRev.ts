import type { Db } from './db'

/**
 * Configuration (keys, providers, prices) is served from memory. Every change bumps a revision
 * row; a gateway notices another process's commit through SQLite's data_version (cheap: no disk
 * read) and only then reads the revision, so a CLI change reaches the next request with no restart.
 */
export function bumpConfigRev(db: Db): void {
  db.prepare(`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'config_rev'`).run()
}

export class ConfigWatcher {
  private readonly dataVersion: () => number
  private readonly configRev: () => number
  private lastDataVersion = -1
  private lastRev = -1

  constructor(db: Db) {
    const dv = db.prepare('PRAGMA data_version').pluck()
    const rev = db.prepare(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'config_rev'`).pluck()
    this.dataVersion = () => dv.get() as number
    this.configRev = () => rev.get() as number
  }

  /** True when configuration changed since the last call (the first call is always true). */
  changed(): boolean {
    const dv = this.dataVersion()
    if (dv === this.lastDataVersion && this.lastRev !== -1) return false
    this.lastDataVersion = dv
    const rev = this.configRev()
    if (rev === this.lastRev) return false
    this.lastRev = rev
    return true
  }

  /** For changes made through this very connection, which data_version does not report. */
  invalidate(): void {
    this.lastRev = -1
  }
}
