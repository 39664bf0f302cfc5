import { openDatabase } from './db'
import { SqliteSql } from './sqliteSql'
import { CONFIG_REV_SQL, PolledConfigWatch } from './configRev'
import { RecordWriter } from './recordWriter'
import { Store } from './store'

export interface StoreOptions {
  /** Holds the SQLite file when no database URL is given. */
  dataDir: string
  /** A PostgreSQL connection string: the store is there. */
  databaseUrl?: string | null
  databaseSchema?: string | null
  /** Where request records that could not be written are reported. */
  onRecordError?: (err: unknown) => void
}

/**
 * Opens the store the configuration names, bringing its schema up to date. PostgreSQL's modules
 * and its client (`pg`) are loaded only for a store there: on SQLite they would be ~1 MB of
 * scripts resident for nothing.
 */
export async function openStore(o: StoreOptions): Promise<Store> {
  if (o.databaseUrl)
    return (await import('./postgres/openPostgres')).openPostgresStore({ url: o.databaseUrl, schema: o.databaseSchema ?? null, onRecordError: o.onRecordError })
  return openSqliteStore(o)
}

/** The embedded default: one SQLite file in the data dir, records written by a thread of their own. */
function openSqliteStore(o: StoreOptions): Store {
  const db = openDatabase(o.dataDir)
  const sql = new SqliteSql(db)
  const rev = sql.prepare(CONFIG_REV_SQL)
  const watch = new PolledConfigWatch(() => (rev.get() as { rev: number }).rev)
  sql.onConfigChange = () => watch.invalidate()
  const records = new RecordWriter(db, { onError: o.onRecordError })
  return new Store(sql, watch, records, async () => void db.close())
}
