/**
 * The one way the store's repositories and queries reach a database, whichever it is. SQL is
 * written once with `?` placeholders; what the two dialects spell differently goes through
 * `Dialect`, one function per difference, so no query exists in two copies.
 *
 * Values come back as JavaScript numbers and strings on both: counts and sums of integer columns
 * are numbers; an amount that must stay exact beyond 2^53 (pico-dollar sums) is selected as text
 * (`CAST(… AS TEXT)`) and read with `BigInt`.
 */
export type SqlValue = string | number | bigint | null

export interface Sql {
  readonly dialect: Dialect
  all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]>
  get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined>
  /** Resolves to the number of rows changed. */
  run(text: string, params?: readonly SqlValue[]): Promise<number>
  /**
   * Writes made together or not at all. Writers are serialised (SQLite's write lock; on
   * PostgreSQL a transaction-scoped advisory lock every gateway takes), so a read-then-write
   * inside (the next preset version, an update of the current key row) sees no other writer.
   * Nested calls join the outer transaction.
   */
  write<T>(fn: (tx: Sql) => Promise<T>): Promise<T>
  /**
   * Writes serialised only with other `exclusive` writes that name one of the same `names`, not
   * with every writer: on PostgreSQL a transaction-scoped advisory lock per name, taken in one
   * order on every gateway so that two never wait on each other, instead of `write`'s one lock;
   * on SQLite `write`, whose lock serialises every writer anyway. Inside a transaction, the locks
   * are taken there.
   */
  exclusive<T>(names: readonly string[], fn: (tx: Sql) => Promise<T>): Promise<T>
  /** Several reads from one snapshot (a page and its total agree). */
  read<T>(fn: (tx: Sql) => Promise<T>): Promise<T>
  /**
   * Says the configuration revision was bumped here: the store's `onConfigChange` hears of it once
   * the transaction commits (at once outside one), so this process's next check reloads.
   */
  configChanged(): void
}

/** What a connection tells its owner: a change of configuration this process committed. */
export interface ConfigChangeHook {
  onConfigChange: (() => void) | null
}

export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  /**
   * A column in a condition the planner must not answer through an index: SQLite takes unary `+`
   * as that hint; PostgreSQL's planner costs plans itself and has no such operator for text.
   */
  unindexed(column: string): string
  /** The JSON array text of an expression's distinct values in a group, nulls included, in no order to rely on. */
  distinctJsonArray(expression: string): string
  /**
   * `expression dir` with NULLs where SQLite puts them, first ascending and last descending
   * (PostgreSQL's default is the reverse), so pages and groups come in one order on both.
   */
  order(expression: string, dir: string): string
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  unindexed: (column) => `+${column}`,
  distinctJsonArray: (e) => `json_group_array(DISTINCT ${e})`,
  order: (e, dir) => `${e} ${dir}`,
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  unindexed: (column) => column,
  distinctJsonArray: (e) => `CAST(json_agg(DISTINCT ${e}) AS TEXT)`,
  order: (e, dir) => `${e} ${dir} ${dir === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`,
}

/** A `?` for each value, comma-separated. */
export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')

/** Whether a store error says a unique constraint refused the row (SQLite's and PostgreSQL's codes). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}
