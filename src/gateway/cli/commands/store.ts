import path from 'node:path'
import { resolveConfig } from '../../config'
import { copyDesktopStore, redactUrl } from '../../storeCopy'
import { parse, type Command } from '../shared'

/**
 * `gw store copy --from-data-dir DIR --to postgres://… [--database-schema S]`: a desktop's
 * store (its SQLite file) into a team's empty PostgreSQL database, all of it or nothing. One
 * line per table as it is written, then what was copied and what was not.
 */
export const storeCopy: Command = async (args, io) => {
  const { values, positionals } = parse(args, { 'from-data-dir': { type: 'string' }, to: { type: 'string' } })
  if (values['data-dir'] !== undefined || values['database-url'] !== undefined) {
    throw new Error('store copy reads the store of --from-data-dir DIR and writes the database of --to postgres://… (not --data-dir or --database-url)')
  }
  const from = values['from-data-dir']
  const to = values.to
  if (positionals.length > 0 || !from || !to) throw new Error('store copy needs --from-data-dir DIR --to postgres://… [--database-schema S]')
  // The flag, or GW_DATABASE_SCHEMA as every command takes it; checked as they check it.
  const schema = resolveConfig({ databaseSchema: values['database-schema'] }, { GW_DATABASE_SCHEMA: io.env.GW_DATABASE_SCHEMA }).databaseSchema
  const json = values.json === true
  const started = performance.now()
  // Said once the copy is under way (connected, the target found empty): a refusal is its one line alone.
  let under = false
  const report = await copyDesktopStore({
    fromDataDir: from,
    to,
    schema,
    onTable: json
      ? undefined
      : (t) => {
          if (!under) io.out(`copying ${path.resolve(from)} into ${redactUrl(to)}${schema ? ` (schema ${schema})` : ''}`)
          under = true
          io.out(`  ${t.table.padEnd(20)} ${String(t.rows).padStart(9)}`)
        },
  })
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  if (json) {
    io.out(
      JSON.stringify(
        {
          from: report.from,
          to: report.to,
          schema,
          tables: Object.fromEntries(report.tables.map((t) => [t.table, t.rows])),
          rows: report.rows,
          not_copied: report.notCopied,
          gateway_running: report.running,
        },
        null,
        2,
      ),
    )
    return 0
  }
  io.out(`copied ${report.rows} rows in ${report.tables.length} tables in ${seconds} s, in one transaction.`)
  for (const n of report.notCopied) io.out(`not copied: ${n.table} (${n.rows} ${n.rows === 1 ? 'row' : 'rows'}): ${n.why}.`)
  if (report.running) io.out(`A gateway is running on ${report.from}: what it records from now on is not in the copy. Stop it before you switch.`)
  return 0
}
