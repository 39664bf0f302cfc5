import type { Statement } from 'better-sqlite3'
import type { Db } from './db'
import { sqliteDialect, type ConfigChangeHook, type Sql, type SqlValue } from './sql'

/** Prepared statements kept per connection; the store's queries have a few hundred shapes at most. */
const MAX_STATEMENTS = 500

/**
 * `Sql` on a better-sqlite3 connection. Statements run synchronously and are compiled once per
 * text; the promise only carries the result. While a transaction is open (its callback may await),
 * other calls on the connection wait for it to end, so nothing of another request's slips into it.
 */
export class SqliteSql implements Sql, ConfigChangeHook {
  readonly dialect = sqliteDialect
  private readonly statements = new Map<string, Statement<SqlValue[]>>()
  /** Settles when the open transaction ends; null when none is open. */
  private open: Promise<void> | null = null
  /** The handle a transaction's callback gets: it runs on the connection without waiting. */
  private readonly inside: Sql
  /** The open transaction bumped the configuration revision. */
  private bumped = false
  onConfigChange: (() => void) | null = null

  constructor(readonly db: Db) {
    this.inside = {
      dialect: sqliteDialect,
      all: async <T>(text: string, params: readonly SqlValue[] = []) => this.prepare(text).all(...params) as T[],
      get: async <T>(text: string, params: readonly SqlValue[] = []) => this.prepare(text).get(...params) as T | undefined,
      run: async (text: string, params: readonly SqlValue[] = []) => this.prepare(text).run(...params).changes,
      write: (fn) => fn(this.inside),
      exclusive: (_names, fn) => fn(this.inside),
      read: (fn) => fn(this.inside),
      configChanged: () => (this.bumped = true),
    }
  }

  async all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    while (this.open) await this.open
    return this.prepare(text).all(...params) as T[]
  }

  async get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    while (this.open) await this.open
    return this.prepare(text).get(...params) as T | undefined
  }

  async run(text: string, params: readonly SqlValue[] = []): Promise<number> {
    while (this.open) await this.open
    return this.prepare(text).run(...params).changes
  }

  /** BEGIN IMMEDIATE: the write lock is taken first, so a read inside sees no other writer's change before this one commits. */
  write<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN IMMEDIATE', fn)
  }

  /** The write lock: SQLite has no narrower one, and it already serialises every writer. */
  exclusive<T>(_names: readonly string[], fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.write(fn)
  }

  read<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', fn)
  }

  configChanged(): void {
    this.onConfigChange?.()
  }

  /** A statement compiled once per text (pluck and safe integers off, as every caller expects). */
  prepare(text: string): Statement<SqlValue[]> {
    let stmt = this.statements.get(text)
    if (!stmt) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear()
      stmt = this.db.prepare<SqlValue[]>(text)
      this.statements.set(text, stmt)
    }
    return stmt
  }

  private async transaction<T>(begin: string, fn: (tx: Sql) => Promise<T>): Promise<T> {
    while (this.open) await this.open
    let end!: () => void
    this.open = new Promise((resolve) => (end = resolve))
    try {
      this.db.exec(begin)
      try {
        const value = await fn(this.inside)
        this.db.exec('COMMIT')
        if (this.bumped) this.onConfigChange?.()
        return value
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK')
        throw err
      }
    } finally {
      this.bumped = false
      this.open = null
      end()
    }
  }
}
