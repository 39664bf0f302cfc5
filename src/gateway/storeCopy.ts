import path from 'node:path'
import type { CopyReport, TableCopied } from './store/copyStore'
import { postgresUrlProblem, redactUrl } from './store/postgres/databaseUrl'
import { findRunning } from './http/api/runningGateway'

export type { CopyReport, TableCopied }

export interface DesktopStoreCopy {
  /** The data dir whose SQLite store is copied (the desktop app's, or one `gw serve` ran on). */
  fromDataDir: string
  /** The team's PostgreSQL database, `postgres://…`; it must hold no data yet. */
  to: string
  /** The schema the tables go in; null: the connection's search_path. */
  schema: string | null
  onTable?: (copied: TableCopied) => void
}

/**
 * Moving a desktop's data to a team's database (`gw store copy`): the one way in beside
 * `serve` and the operator's bootstrap that needs more than an admin call, since it reads one
 * store and writes another. The copying itself is the store's (`store/copyStore.ts`).
 */
export async function copyDesktopStore(o: DesktopStoreCopy): Promise<CopyReport & { from: string; to: string; running: boolean }> {
  const problem = postgresUrlProblem(o.to)
  if (problem) throw new Error(`--to: ${problem}`)
  const from = path.resolve(o.fromDataDir)
  // A gateway still running there goes on recording after the snapshot the copy reads.
  const running = findRunning(from) !== null
  // The copy and its PostgreSQL client are loaded for this command alone, not by every `gw` run.
  const { copyIntoPostgres } = await import('./store/copyStore')
  const report = await copyIntoPostgres({ dataDir: from, url: o.to, schema: o.schema, onTable: o.onTable })
  return { ...report, from, to: redactUrl(o.to), running }
}

/** A database URL as it may be shown: without its password. */
export { redactUrl }
