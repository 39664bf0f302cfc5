import type { z } from 'zod'
import type { Dialect, Sql } from '../sql'
import type { sessionOps, sessionRow, timelineRow } from '../../../contract/sessions'
import { invalid } from './invalidQuery'
import { COST, ERRORS, UNPRICED, UNPRICED_ROW } from './analyticsQuery'
import { choosePlan, filterSql, ROW_COLUMNS, type RawRow, type Scope } from './requestQuery'
import { diagnoseSession, type SessionCache } from './cacheDoctor'
import type { RequestRecord } from '../requestsRepo'

export type ListSessionsInput = z.input<(typeof sessionOps)['sessions.list']['input']>
export type GetSessionInput = z.input<(typeof sessionOps)['sessions.get']['input']>
/** A session as its query reads it: keys by id only (the handler names them). */
export type SessionFigures = Omit<z.output<typeof sessionRow>, 'keys'> & { key_ids: string[] }
export type TimelineRow = z.output<typeof timelineRow>

/** What a session's figures sum, over `requests r` grouped by session id (JSON arrays: values are free text). */
const figuresSql = (d: Dialect) => `r.session_id AS session_id, ${d.distinctJsonArray('r.source_tool')} AS tools,
  ${d.distinctJsonArray('r.key_id')} AS key_ids, ${d.distinctJsonArray('r.model')} AS models,
  min(r.created_at) AS first_at, max(r.created_at) AS last_at, count(*) AS requests,
  ${ERRORS} AS errors, COALESCE(SUM(r.prompt_tokens), 0) AS prompt_tokens,
  COALESCE(SUM(r.completion_tokens), 0) AS completion_tokens, ${COST} AS cost_usd, ${UNPRICED} AS unpriced`

type RawFigures = Omit<SessionFigures, 'tools' | 'key_ids' | 'models'> & { tools: string; key_ids: string; models: string }

/**
 * The JSON arrays of distinct values as arrays, without the null that stands for "none said", in
 * ascending code-unit order: each database aggregates them in an order of its own (SQLite's scan
 * order, PostgreSQL's sort under the database's collation), so the order is set here, once for both.
 */
const present = (json: string): string[] => (JSON.parse(json) as Array<string | null>).filter((v): v is string => v !== null).sort()
const figures = (r: RawFigures): SessionFigures => ({ ...r, tools: present(r.tools), key_ids: present(r.key_ids), models: present(r.models) })

/** Sortable figures: contract name → the aggregate's alias. Nothing else is written into ORDER BY. */
const SORTS = {
  last_at: 'last_at',
  first_at: 'first_at',
  cost_usd: 'cost_usd',
  requests: 'requests',
  tokens: 'COALESCE(SUM(r.prompt_tokens), 0) + COALESCE(SUM(r.completion_tokens), 0)',
} as const
const ORDERS = { asc: 'ASC', desc: 'DESC' } as const

/**
 * One page of sessions with requests matching a filter within a scope, and how many there are.
 * A session's figures sum its matching requests (so a time range clips a session that began
 * before it); token counts are in them too (they cost nothing, and a session's timeline shows
 * them). Grouped from the analytics index over the range, which carries the session, tool and key:
 * no table row is read.
 */
export async function listSessions(sql: Sql, input: ListSessionsInput, scope: Scope): Promise<{ items: SessionFigures[]; total: number }> {
  const sort = input.sort ?? 'last_at'
  const order = input.order ?? 'desc'
  const limit = input.limit ?? 50
  const offset = input.offset ?? 0
  const by = Object.hasOwn(SORTS, sort) ? SORTS[sort] : undefined
  const dir = Object.hasOwn(ORDERS, order) ? ORDERS[order] : undefined
  if (!by) throw invalid('sort', `cannot sort by ${String(sort)}`)
  if (!dir) throw invalid('order', `unknown order ${String(order)}`)
  const filter = input.filter ?? {}
  return sql.read(async (tx) => {
    const where = filterSql(tx.dialect, filter, scope, await choosePlan(tx, filter, scope))
    const matching = `${where.sql} AND r.session_id IS NOT NULL`
    const total = (await tx.get<{ n: number }>(`SELECT count(DISTINCT r.session_id) AS n FROM requests r WHERE ${matching}`, where.params))!.n
    if (total === 0 || offset >= total) return { items: [], total }
    const rows = await tx.all<RawFigures>(
      `SELECT ${figuresSql(tx.dialect)} FROM requests r WHERE ${matching} GROUP BY r.session_id ORDER BY ${by} ${dir}, r.session_id ${dir} LIMIT ? OFFSET ?`,
      [...where.params, limit, offset],
    )
    return { items: rows.map(figures), total }
  })
}

/**
 * A whole session within a scope: its figures, whether its id was derived from the tool, the
 * prompt-cache doctor's view of it as of `now` (from every record's JSON: the cache counts, costs
 * and prompt fingerprints are there), and its requests oldest first with the cost so far (priced
 * sum, unpriced count) beside each. All come from the session index's range; undefined when the
 * scope sees none of its requests.
 */
export async function getSession(
  sql: Sql,
  input: GetSessionInput,
  scope: Scope,
  now: number,
): Promise<{ session: SessionFigures & { derived: boolean }; cache: SessionCache; requests: TimelineRow[] } | undefined> {
  const limit = input.limit ?? 500
  const offset = input.offset ?? 0
  return sql.read(async (tx) => {
    const where = filterSql(tx.dialect, { session_id: input.id }, scope)
    const raw = await tx.get<RawFigures & { derived: number }>(
      `SELECT ${figuresSql(tx.dialect)}, max(r.session_derived) AS derived FROM requests r WHERE ${where.sql} GROUP BY r.session_id`,
      where.params,
    )
    if (!raw) return undefined
    // The running sums run over the whole session before the page is cut, so a later page starts from what came before it.
    const rows = await tx.all<RawRow & { cumulative_usd: number; cumulative_unpriced: number }>(
      `SELECT ${ROW_COLUMNS},
         COALESCE(SUM(r.cost_usd) OVER running, 0) AS cumulative_usd,
         SUM(${UNPRICED_ROW}) OVER running AS cumulative_unpriced
       FROM requests r WHERE ${where.sql}
       WINDOW running AS (ORDER BY r.created_at, r.rowid ROWS UNBOUNDED PRECEDING)
       ORDER BY r.created_at, r.rowid LIMIT ? OFFSET ?`,
      [...where.params, limit, offset],
    )
    const details = await tx.all<{ detail: string }>(`SELECT r.detail FROM requests r WHERE ${where.sql} ORDER BY r.created_at, r.rowid`, where.params)
    return {
      session: { ...figures(raw), derived: raw.derived === 1 },
      cache: diagnoseSession(
        details.map((d) => JSON.parse(d.detail) as RequestRecord),
        now,
      ),
      requests: rows.map((r) => ({ ...r, priced: r.priced === 1 })),
    }
  })
}
