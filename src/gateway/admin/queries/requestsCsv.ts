import type { RequestRow } from '../../store/queries/requestQuery'

/** The export's columns, in order: the list's columns, cost as a number and `unpriced` said outright; columns added later go last, so a column keeps its place. */
const COLUMNS: Array<keyof RequestRow> = [
  'id',
  'created_at',
  'endpoint',
  'status',
  'outcome',
  'key_id',
  'model',
  'preset',
  'provider',
  'upstream_model',
  'user_id',
  'prompt_tokens',
  'completion_tokens',
  'cost_usd',
  'priced',
  'latency_ms',
  'source',
  'source_tool',
  'instance',
  'soft_cap',
  'cache_hit_of',
  'cache_saved_usd',
]

/**
 * A text cell as RFC 4180 writes it. Model names, user ids and the like come from API callers, so
 * a cell a spreadsheet would run as a formula (= + - @, tab, CR first) is prefixed with an
 * apostrophe, as OWASP advises against CSV injection.
 */
function textCell(s: string): string {
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

function cell(column: keyof RequestRow, v: RequestRow[keyof RequestRow]): string {
  if (v === null || v === undefined) return ''
  if (column === 'created_at') return new Date(v as number).toISOString()
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return textCell(String(v))
}

/** Request rows as CSV: a header line, then one line per row, CRLF line ends. An unpriced row has an empty cost and priced=false. */
export function requestsCsv(rows: RequestRow[]): string {
  const lines = [COLUMNS.join(',')]
  for (const r of rows) lines.push(COLUMNS.map((c) => cell(c, r[c])).join(','))
  return lines.join('\r\n') + '\r\n'
}
