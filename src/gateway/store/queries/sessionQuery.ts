import type { z } from 'zod'
import type { Db } from '../../store/db'
import type { sessionOps, sessionRow, timelineRow } from '../../../contract/sessions'
import { invalid } from '../adminError'
import { UNPRICED } from './analyticsQuery'
import { choosePlan, filterSql, prepareCached, ROW_COLUMNS, type RawRow, type Scope } from './requestQuery'

export type ListSessionsInput = z.input<(typeof sessionOps)['sessions.list']['input']>
export type GetSessionInput = z.input<(typeof sessionOps)['sessions.get']['input']>
/** A session as its query reads it: keys by id only (the handler names them). */
export type SessionFigures = Omit<z.output<typeof sessionRow>, 'keys'> & { key_ids: string[] }
export type TimelineRow = z.output<typeof timelineRow>

/** What a session's figures sum, over `requests r` grouped by session id (JSON arrays: values are free text). */
const FIGURES = `r.session_id AS session_id, json_group_array(DISTINCT r.source_tool) AS tools, json_group_array(DISTINCT r.key_id) AS key_ids,
  json_group_array(DISTINCT r.model) AS models, min(r.created_at) AS first_at, max(r.created_at) AS last_at, count(*) AS requests,
  COALESCE(SUM(r.outcome = 'error'), 0) AS errors, COALESCE(SUM(r.prompt_tokens), 0) AS prompt_tokens,
  COALESCE(SUM(r.completion_tokens), 0) AS completion_tokens, TOTAL(r.cost_usd) AS cost_usd, ${UNPRICED} AS unpriced`

type RawFigures = Omit<SessionFigures, 'tools' | 'key_ids' | 'models'> & { tools: string; key_ids: string; models: string }

/** The JSON arrays of distinct values as arrays, without the null that stands for "none said". */
const present = (json: string): string[] => (JSON.parse(json) as Array<string | null>).filter((v): v is string => v !== null)
const figures = (r: RawFigures): SessionFigures => ({ ...r, tools: present(r.tools), key_ids: present(r.key_ids), models: present(r.models) })

/** Sortable figures: contract name → the aggregate's alias. Nothing else is written into ORDER BY. */
const SORTS = { last_at: 'last_at', first_at: 'first_at', cost_usd: 'cost_usd', requests: 'requests', tokens: 'prompt_tokens + completion_tokens' } as const
const ORDERS = { asc: 'ASC', desc: 'DESC' } as const

/**
 * One page of sessions with requests matching a filter within a scope, and how many there are.
 * A session's figures sum its matching requests (so a time range clips a session that began
 * before it); token counts are in them too (they cost nothing, and a session's timeline shows
 * them). Grouped from the analytics index over the range, which carries the session, tool and key:
 * no table row is read.
 */
export function listSessions(db: Db, input: ListSessionsInput, scope: Scope): { items: SessionFigures[]; total: number } {
  const sort = input.sort ?? 'last_at'
  const order = input.order ?? 'desc'
  const limit = input.limit ?? 50
  const offset = input.offset ?? 0
  const by = Object.hasOwn(SORTS, sort) ? SORTS[sort] : undefined
  const dir = Object.hasOwn(ORDERS, order) ? ORDERS[order] : undefined
  if (!by) throw invalid('sort', `cannot sort by ${String(sort)}`)
  if (!dir) throw invalid('order', `unknown order ${String(order)}`)
  const filter = input.filter ?? {}
  return db.transaction(() => {
    const where = filterSql(filter, scope, choosePlan(db, filter, scope))
    const sql = `${where.sql} AND r.session_id IS NOT NULL`
    const total = prepareCached(db, `SELECT count(DISTINCT r.session_id) FROM requests r WHERE ${sql}`)
      .pluck()
      .get(...where.params) as number
    if (total === 0 || offset >= total) return { items: [], total }
    const rows = prepareCached(
      db,
      `SELECT ${FIGURES} FROM requests r WHERE ${sql} GROUP BY r.session_id ORDER BY ${by} ${dir}, r.session_id ${dir} LIMIT ? OFFSET ?`,
    ).all(...where.params, limit, offset) as RawFigures[]
    return { items: rows.map(figures), total }
  })()
}

/**
 * A whole session within a scope: its figures, whether its id was derived from the tool, and its
 * requests oldest first with the cost so far (priced sum, unpriced count) beside each. Both come
 * from the session index's range; undefined when the scope sees none of its requests.
 */
export function getSession(
  db: Db,
  input: GetSessionInput,
  scope: Scope,
): { session: SessionFigures & { derived: boolean }; requests: TimelineRow[] } | undefined {
  const limit = input.limit ?? 500
  const offset = input.offset ?? 0
  return db.transaction(() => {
    const where = filterSql({ session_id: input.id }, scope)
    const raw = prepareCached(db, `SELECT ${FIGURES}, max(r.session_derived) AS derived FROM requests r WHERE ${where.sql} GROUP BY r.session_id`).get(
      ...where.params,
    ) as (RawFigures & { derived: number }) | undefined
    if (!raw) return undefined
    // The running sums run over the whole session before the page is cut, so a later page starts from what came before it.
    const rows = prepareCached(
      db,
      `SELECT ${ROW_COLUMNS},
         TOTAL(r.cost_usd) OVER running AS cumulative_usd,
         SUM(r.cost_usd IS NULL AND r.provider IS NOT NULL) OVER running AS cumulative_unpriced
       FROM requests r WHERE ${where.sql}
       WINDOW running AS (ORDER BY r.created_at, r.rowid ROWS UNBOUNDED PRECEDING)
       ORDER BY r.created_at, r.rowid LIMIT ? OFFSET ?`,
    ).all(...where.params, limit, offset) as Array<RawRow & { cumulative_usd: number; cumulative_unpriced: number }>
    return {
      session: { ...figures(raw), derived: raw.derived === 1 },
      requests: rows.map((r) => ({ ...r, priced: r.priced === 1 })),
    }
  })()
}
