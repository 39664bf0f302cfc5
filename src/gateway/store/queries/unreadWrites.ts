import type { Sql } from '../sql'
import { picoSum } from '../requestsRepo'
import type { Scope, SqlWhere } from './requestQuery'

/** Anthropic's cache lifetimes, as the cache doctor has them: 5 minutes unless written for an hour. */
const TTL_SQL = (alias: string) => `CASE WHEN ${alias}.cache_write_1h_tokens > 0 THEN 3600000 ELSE 300000 END`

export interface UnreadWrites {
  writes: number
  tokens: number
  pico: bigint
}

/**
 * The prompt-cache writes among the requests `where` selects that no later request read, as of
 * `now`: the cache doctor's rule (`diagnoseSession`) extended past sessions. A write was read when
 * a later request (by time, then by insertion) of the same sequence, on the same provider and
 * upstream model, within the write's TTL, read more of the cache than the write's own request
 * did. The sequence is the session when the write has one (as the session page sees it: any key
 * within the scope), otherwise the key's requests without a session. A write whose TTL has not
 * ended yet may still be read and is not counted.
 *
 * Only requests that wrote are read (a partial index holds them), each probing its sequence's
 * requests within its TTL through the session index, or, without a session, the partial index of
 * reads by key (which `k.cached_tokens > 0` lets the planners use).
 */
export async function unreadWrites(sql: Sql, where: SqlWhere, scope: Scope, now: number): Promise<UnreadWrites> {
  // A scope of no keys sees nothing (and PostgreSQL has no empty IN list).
  if (scope.keyIds?.length === 0) return { writes: 0, tokens: 0, pico: 0n }
  // A reader must be visible within the scope, as on the session page.
  const readerScope = scope.keyIds === null ? '' : ` AND k.key_id IN (${scope.keyIds.map(() => '?').join(', ')})`
  const reader = (sequence: string) => `SELECT 1 FROM requests k WHERE ${sequence}
    AND k.created_at >= r.created_at AND k.created_at <= r.created_at + ${TTL_SQL('r')}
    AND (k.created_at > r.created_at OR k.rowid > r.rowid)
    AND k.provider = r.provider AND k.upstream_model = r.upstream_model AND k.cached_tokens > r.cached_tokens
    AND k.cached_tokens > 0${readerScope}`
  const row = await sql.get<{ writes: number; tokens: number; pico: string }>(
    `SELECT count(*) AS writes, COALESCE(SUM(r.cache_write_tokens), 0) AS tokens, ${picoSum('r.cache_write_usd')} AS pico
     FROM requests r
     WHERE ${where.sql} AND r.cache_write_tokens > 0 AND r.created_at + ${TTL_SQL('r')} < ?
       AND NOT EXISTS (${reader('k.session_id = r.session_id')})
       AND NOT EXISTS (${reader('r.session_id IS NULL AND k.key_id = r.key_id AND k.session_id IS NULL')})`,
    [...where.params, now, ...(scope.keyIds ?? []), ...(scope.keyIds ?? [])],
  )
  return { writes: row!.writes, tokens: row!.tokens, pico: BigInt(row!.pico) }
}
