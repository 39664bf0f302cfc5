import type { Sql } from '../../src/gateway/store/sql'

/** Every table `gw store copy` copies, and the order its rows are compared in. */
const TABLES: Record<string, string> = {
  users: 'id',
  keys: 'id',
  ledger: 'id',
  presets: 'name',
  preset_versions: 'name, version',
  aliases: 'pattern',
  providers: 'id',
  price_rows: 'model',
  price_calendars: 'name',
  settings: 'key',
  requests: 'rowid',
  request_tags: 'tag, created_at, request_id',
  request_dimensions: 'name, value, created_at, request_id',
  request_bodies: 'request_id',
  request_costs: 'id',
  responses: 'id',
  response_items: 'response_id, seq',
}

/**
 * Every row of every copied table in key order, every column as the store holds it (pico-dollars
 * as text), requests without PostgreSQL's rowid (each engine numbers its own: the order is
 * compared, not the numbers): what a byte-for-byte comparison of two stores reads.
 */
export async function everyRow(sql: Sql): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const [table, key] of Object.entries(TABLES)) {
    const columns = table === 'ledger' ? 'id, key_id, created_at, CAST(amount_pico AS TEXT) AS amount_pico, kind, request_id, actor, note' : '*'
    const rows = await sql.all<Record<string, unknown>>(`SELECT ${columns} FROM ${table} ORDER BY ${key}`)
    out[table] = rows.map(({ rowid: _, ...r }) => r)
  }
  return out
}
