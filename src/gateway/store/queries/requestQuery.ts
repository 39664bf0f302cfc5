import type { z } from 'zod'
import type { Dialect, Sql } from '../sql'
import { invalid } from './invalidQuery'
import { requestOps, type RequestFilter, type requestRow } from '../../../contract/requests'

/**
 * Which requests a caller may see: `keyIds: null` is every request (admins); an array restricts
 * to requests made with those keys (members see only their own keys' requests; an empty array
 * sees nothing, and requests without a key are never visible to a member).
 */
export interface Scope {
  keyIds: string[] | null
}

export type SqlParam = string | number
/** A boolean SQL expression over `requests r` and the values for its `?` placeholders, in order. */
export interface SqlWhere {
  sql: string
  params: SqlParam[]
}

export type ListRequestsInput = z.input<(typeof requestOps)['requests.list']['input']>
export type ListRequestsOutput = z.output<(typeof requestOps)['requests.list']['output']>
export type RequestRow = z.output<typeof requestRow>

const STATUS_CLASS: Record<'2xx' | '4xx' | '5xx', [number, number]> = {
  '2xx': [200, 299],
  '4xx': [400, 499],
  '5xx': [500, 599],
}

/** Equality filters: filter field → column of `requests` (all indexed but source, source_tool, instance and outcome). */
const EQUALITY: Array<[keyof RequestFilter, string]> = [
  ['key_id', 'key_id'],
  ['model', 'model'],
  ['preset', 'preset'],
  ['provider', 'provider'],
  ['user_id', 'user_id'],
  ['trace_id', 'trace_id'],
  ['session_id', 'session_id'],
  ['source_tool', 'source_tool'],
  ['instance', 'instance'],
  ['source', 'source'],
  ['outcome', 'outcome'],
]

/**
 * How a WHERE clause lets SQLite reach the rows (every plan selects exactly the same rows):
 * - `columns`: tags and dimensions are EXISTS probes (one primary-key seek per candidate row) and
 *   SQLite starts from an index on the requests table itself (key, model, status, time…).
 * - `child`: that tag or dimension (`tag` or `dimension:<name>`) is an IN over its own table's
 *   primary key (tag/name, value, created_at), narrowed by the time range too, so SQLite starts
 *   from the requests carrying it; other tags/dimensions stay probes. Best when it is rarer than
 *   anything the requests table's indexes can narrow to.
 * - `order`: like `columns`, but a status class is not answered through requests_status, so a
 *   page can walk the sort order (created_at, or key/model/… then created_at) and stop after
 *   `limit` rows instead of sorting every match.
 * SQLite's planner cannot choose between these itself: it takes any IN (subquery) for a handful of
 * rows even with ANALYZE statistics, so a common tag combined with a selective status would be
 * read tens of thousands of times. `choosePlan` measures instead.
 */
export type FilterPlan = { drive: 'columns' } | { drive: 'order' } | { drive: 'child'; child: string }

interface ChildFilter {
  key: string
  table: 'request_tags' | 'request_dimensions'
  /** Conditions on the child table under an alias, with their values. */
  where: (alias: string) => string
  values: SqlParam[]
}

/** The tag and dimension conditions of a filter, in a fixed order (tag, then dimensions by name). */
function childFilters(filter: RequestFilter): ChildFilter[] {
  const out: ChildFilter[] = []
  if (filter.tag !== undefined) out.push({ key: 'tag', table: 'request_tags', where: (a) => `${a}.tag = ?`, values: [filter.tag] })
  const dims = filter.dimensions ?? {}
  for (const name of Object.keys(dims).sort()) {
    out.push({ key: `dimension:${name}`, table: 'request_dimensions', where: (a) => `${a}.name = ? AND ${a}.value = ?`, values: [name, dims[name]] })
  }
  return out
}

/** Conditions some index on `requests` can answer (outcome and source have none). */
const INDEXED: Array<keyof RequestFilter> = ['key_id', 'model', 'preset', 'provider', 'user_id', 'trace_id', 'session_id', 'status']

/** Without measuring: start from the first tag/dimension when nothing else in the filter is indexed. */
export function defaultPlan(filter: RequestFilter, scope: Scope): FilterPlan {
  const children = childFilters(filter)
  if (children.length === 0 || scope.keyIds !== null || INDEXED.some((f) => filter[f] !== undefined)) return { drive: 'columns' }
  return { drive: 'child', child: children[0].key }
}

/**
 * Picks where a filter's query should start by counting, never more than the smallest count so
 * far: the rows carrying each tag/dimension (a primary-key range of its table), then the rows each
 * indexed condition of the requests table selects on its own (an index range). The cost is bounded
 * by the smallest child count; a filter without tags or dimensions costs nothing.
 */
export async function choosePlan(sql: Sql, filter: RequestFilter, scope: Scope): Promise<FilterPlan> {
  const children = childFilters(filter)
  if (children.length === 0 || (scope.keyIds !== null && scope.keyIds.length === 0)) return { drive: 'columns' }
  const time: SqlParam[] = []
  let timeSql = ''
  if (filter.from !== undefined) {
    timeSql += ' AND c.created_at >= ?'
    time.push(filter.from)
  }
  if (filter.to !== undefined) {
    timeSql += ' AND c.created_at < ?'
    time.push(filter.to)
  }
  let best: ChildFilter | undefined
  let bestCount = Infinity
  for (const c of children) {
    const n = await countUpTo(sql, `SELECT 1 FROM ${c.table} c WHERE ${c.where('c')}${timeSql}`, [...c.values, ...time], bestCount)
    if (n < bestCount) {
      best = c
      bestCount = n
    }
  }
  if (!best) return { drive: 'columns' }
  const range: RequestFilter = { from: filter.from, to: filter.to }
  // (The time range alone is no candidate: child rows carry created_at, so a child count within
  // the range is never larger than the range's.)
  const candidates: Array<[RequestFilter, Scope]> = []
  if (scope.keyIds !== null) candidates.push([range, scope])
  for (const f of INDEXED) if (filter[f] !== undefined) candidates.push([{ ...range, [f]: filter[f] }, { keyIds: null }])
  for (const [f, s] of candidates) {
    const w = filterSql(sql.dialect, f, s, { drive: 'columns' })
    const n = await countUpTo(sql, `SELECT 1 FROM requests r WHERE ${w.sql}`, w.params, bestCount)
    if (n < bestCount) return { drive: 'columns' }
  }
  return { drive: 'child', child: best.key }
}

/** How many rows a query selects, counting no further than `max`. */
async function countUpTo(sql: Sql, rows: string, params: SqlParam[], max: number): Promise<number> {
  const limit = max === Infinity ? Number.MAX_SAFE_INTEGER : max
  return (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM (${rows} LIMIT ?) AS counted`, [...params, limit]))!.n
}

/**
 * The WHERE clause for a filter within a scope, over `requests` aliased `r`. Every value is a
 * bound parameter; only fixed column names are written into the SQL. Time is [from, to): `from`
 * inclusive, `to` exclusive, Unix milliseconds. Without a plan, `defaultPlan` (no measuring).
 */
export function filterSql(dialect: Dialect, filter: RequestFilter, scope: Scope, plan: FilterPlan = defaultPlan(filter, scope)): SqlWhere {
  const clauses: string[] = []
  const params: SqlParam[] = []

  if (scope.keyIds !== null) {
    if (scope.keyIds.length === 0) return { sql: '1 = 0', params: [] }
    clauses.push(`r.key_id IN (${scope.keyIds.map(() => '?').join(', ')})`)
    params.push(...scope.keyIds)
  }
  if (filter.from !== undefined) {
    clauses.push('r.created_at >= ?')
    params.push(filter.from)
  }
  if (filter.to !== undefined) {
    clauses.push('r.created_at < ?')
    params.push(filter.to)
  }
  for (const [field, column] of EQUALITY) {
    const value = filter[field]
    if (value === undefined) continue
    clauses.push(`r.${column} = ?`)
    params.push(value as string)
  }
  if (filter.status !== undefined) {
    if (typeof filter.status === 'number') {
      clauses.push('r.status = ?')
      params.push(filter.status)
    } else {
      const range = STATUS_CLASS[filter.status]
      if (!range) throw invalid('filter.status', `unknown status class ${String(filter.status)}`)
      // SQLite would answer the range through requests_status (and then sort): `order` walks instead.
      clauses.push(`${plan.drive === 'order' ? dialect.unindexed('r.status') : 'r.status'} BETWEEN ? AND ?`)
      params.push(range[0], range[1])
    }
  }
  childFilters(filter).forEach((c, i) => {
    const where = c.where(`c${i}`)
    if (plan.drive === 'child' && plan.child === c.key) {
      // The ids carrying it; child rows hold their request's created_at, so the range applies here too.
      let sql = `r.id IN (SELECT c${i}.request_id FROM ${c.table} c${i} WHERE ${where}`
      params.push(...c.values)
      if (filter.from !== undefined) {
        sql += ` AND c${i}.created_at >= ?`
        params.push(filter.from)
      }
      if (filter.to !== undefined) {
        sql += ` AND c${i}.created_at < ?`
        params.push(filter.to)
      }
      clauses.push(sql + ')')
    } else {
      clauses.push(`EXISTS (SELECT 1 FROM ${c.table} c${i} WHERE ${where} AND c${i}.created_at = r.created_at AND c${i}.request_id = r.id)`)
      params.push(...c.values)
    }
  })
  return { sql: clauses.length ? clauses.join(' AND ') : '1 = 1', params }
}

/** Sortable columns: contract name → column. Nothing else is ever written into ORDER BY. */
const SORT_COLUMNS = {
  created_at: 'r.created_at',
  latency_ms: 'r.latency_ms',
  cost_usd: 'r.cost_usd',
  total_tokens: 'r.total_tokens',
  status: 'r.status',
} as const
const ORDERS = { asc: 'ASC', desc: 'DESC' } as const

export const ROW_COLUMNS = `r.id, r.created_at, r.endpoint, r.status, r.outcome, r.key_id, r.model, r.preset, r.provider, r.upstream_model,
  r.user_id, r.prompt_tokens, r.completion_tokens, r.cost_usd, r.priced, r.latency_ms, r.source, r.source_tool, r.instance, r.soft_cap,
  r.cache_hit_of, r.cache_saved_usd`

export type RawRow = Omit<RequestRow, 'priced'> & { priced: number }

/**
 * One page of request rows for a filter within a scope, and how many rows the filter matches.
 * Rows come from the indexed columns only (never by parsing `detail`). Ties (and NULLs: first in
 * ascending order, last in descending) are broken by insertion order in the same direction, so
 * pages are stable. Both statements read one snapshot, so `total` agrees with the page.
 *
 * The count runs first (with `choosePlan`) and picks the page's plan: newest-first pages of a
 * filter that matches a large share of the store walk the created_at order and test each row (the
 * `order` plan reads about (offset + limit) · rows / total rows); otherwise the matches are found
 * through their indexes and sorted (reading `total` rows). Walking wins when
 * total² > (offset + limit) · rows.
 */
export async function listRequests(sql: Sql, input: ListRequestsInput, scope: Scope): Promise<ListRequestsOutput> {
  const limit = input.limit ?? 50
  const offset = input.offset ?? 0
  const { column, dir } = sortOf(input)
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw invalid('limit', 'must be an integer from 1 to 500')
  if (!Number.isInteger(offset) || offset < 0) throw invalid('offset', 'must be a non-negative integer')

  const filter = input.filter ?? {}
  return sql.read(async (tx) => {
    const plan = await choosePlan(tx, filter, scope)
    const where = filterSql(tx.dialect, filter, scope, plan)
    const total = (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM requests r WHERE ${where.sql}`, where.params))!.n
    if (total === 0 || offset >= total) return { items: [], total }
    // An upper bound on the store's rows without counting them (rowids only grow).
    const rows = (await tx.get<{ n: number | null }>(`SELECT max(rowid) AS n FROM requests`))!.n ?? 0
    const walk = column === SORT_COLUMNS.created_at && total * total > (offset + limit) * rows
    return { items: await selectRows(tx, walk ? filterSql(tx.dialect, filter, scope, { drive: 'order' }) : where, column, dir, limit, offset), total }
  })
}

/** The most rows one export carries; a larger selection is cut there and says so. */
export const EXPORT_MAX_ROWS = 100_000

/** Every row a filter matches within a scope, in the list's order, up to `max` (EXPORT_MAX_ROWS). */
export async function exportRequests(
  sql: Sql,
  input: Omit<ListRequestsInput, 'limit' | 'offset'>,
  scope: Scope,
  max = EXPORT_MAX_ROWS,
): Promise<{ rows: RequestRow[]; truncated: boolean }> {
  const { column, dir } = sortOf(input)
  const filter = input.filter ?? {}
  const rows = await sql.read(async (tx) => selectRows(tx, filterSql(tx.dialect, filter, scope, await choosePlan(tx, filter, scope)), column, dir, max + 1, 0))
  return { rows: rows.slice(0, max), truncated: rows.length > max }
}

function sortOf(input: { sort?: string; order?: string }): { column: string; dir: string } {
  const sort = input.sort ?? 'created_at'
  const order = input.order ?? 'desc'
  const column = Object.hasOwn(SORT_COLUMNS, sort) ? SORT_COLUMNS[sort as keyof typeof SORT_COLUMNS] : undefined
  const dir = Object.hasOwn(ORDERS, order) ? ORDERS[order as keyof typeof ORDERS] : undefined
  if (!column) throw invalid('sort', `cannot sort by ${String(sort)}`)
  if (!dir) throw invalid('order', `unknown order ${String(order)}`)
  return { column, dir }
}

async function selectRows(sql: Sql, where: SqlWhere, column: string, dir: string, limit: number, offset: number): Promise<RequestRow[]> {
  const raw = await sql.all<RawRow>(
    `SELECT ${ROW_COLUMNS} FROM requests r WHERE ${where.sql} ORDER BY ${sql.dialect.order(column, dir)}, r.rowid ${dir} LIMIT ? OFFSET ?`,
    [...where.params, limit, offset],
  )
  return raw.map((r) => ({ ...r, priced: r.priced === 1 }))
}
