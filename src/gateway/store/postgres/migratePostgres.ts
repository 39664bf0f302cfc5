import type pg from 'pg'
import { migrations as defaultMigrations, type Migration } from '../migrations'

/** The session advisory lock gateways starting together queue on, so the schema is applied once. */
const MIGRATION_LOCK = 0x67770002

/** The schema version a database holds: 0 when it has no store yet (no `meta` table in its search_path). */
export async function postgresSchemaVersion(client: Pick<pg.ClientBase, 'query'>): Promise<number> {
  const { rows } = await client.query<{ present: boolean }>(`SELECT to_regclass('meta') IS NOT NULL AS present`)
  if (!rows[0].present) return 0
  const version = await client.query<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`)
  return version.rows.length > 0 ? Number(version.rows[0].value) : 0
}

/**
 * Brings a database's schema to the latest version under an advisory lock: three gateways
 * started at once on an empty database all come up, the first applying the schema and the others
 * finding it applied. Each migration runs in its own transaction with its version, so a failure
 * leaves the previous version intact. A database newer than this build is refused.
 */
export async function migratePostgres(pool: pg.Pool, migrations: Migration[] = defaultMigrations): Promise<number> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0)
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      let current = await postgresSchemaVersion(client)
      if (current > latest) {
        throw new Error(`the database has schema version ${current}, newer than this build knows (${latest}); upgrade GW Gateway`)
      }
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (m.version <= current || m.postgres === undefined) continue
        await client.query('BEGIN')
        try {
          await client.query(m.postgres)
          await client.query(`INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
            String(m.version),
          ])
          await client.query('COMMIT')
        } catch (err) {
          await client.query('ROLLBACK')
          throw new Error(`migration ${m.version} (${m.description}) failed: ${(err as Error).message}`, { cause: err })
        }
        current = m.version
      }
      return current
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } finally {
    client.release()
  }
}
