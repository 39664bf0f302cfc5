import type { Sql } from './sql'
import { picoSum } from './requestsRepo'

const PRUNE_LOCK = 'response_cache.prune'

/** A provider's answer kept for repeats of the request that produced it. */
export interface CachedAnswer {
  /** The request whose answer this is. */
  request_id: string
  /** The provider's answer text as it came: its JSON, or a stream's SSE text. */
  answer: string
}

export interface NewCachedAnswer extends CachedAnswer {
  /** SHA-256 of the upstream request and the scope it is kept for. */
  hash: string
  /** Who may be answered with it: a key id. */
  scope: string
  created_at: number
  expires_at: number
}

/** What the cache holds now. */
export interface CacheFootprint {
  entries: number
  bytes: number
}

/**
 * The response cache's answers. A lookup is by the hash of everything that shapes an answer
 * (the scope among it), so an answer is never found for another scope; expired answers are as
 * absent as ones never kept, and `prune` takes them out, with the oldest while the cache is over
 * its bound.
 */
export class ResponseCacheRepo {
  constructor(private readonly sql: Sql) {}

  /** The live answer kept under `hash`; undefined when there is none or it expired. */
  get(hash: string, now: number): Promise<CachedAnswer | undefined> {
    return this.sql.get<CachedAnswer>(`SELECT request_id, answer FROM response_cache WHERE hash = ? AND expires_at > ?`, [hash, now])
  }

  /**
   * Keeps an answer; a newer one for the same request replaces what was there (an expired one, or
   * a race of two misses). One statement, outside the store's write lock: a cache write never
   * waits for, or holds up, the writes that must be exact (ledger, configuration).
   */
  async put(a: NewCachedAnswer): Promise<void> {
    await this.sql.run(
      `INSERT INTO response_cache (hash, scope, request_id, created_at, expires_at, bytes, answer) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (hash) DO UPDATE SET scope = excluded.scope, request_id = excluded.request_id, created_at = excluded.created_at,
         expires_at = excluded.expires_at, bytes = excluded.bytes, answer = excluded.answer`,
      [a.hash, a.scope, a.request_id, a.created_at, a.expires_at, Buffer.byteLength(a.answer), a.answer],
    )
  }

  footprint(): Promise<CacheFootprint> {
    return this.sql.get<CacheFootprint>(`SELECT COUNT(*) AS entries, COALESCE(SUM(bytes), 0) AS bytes FROM response_cache`).then((r) => ({
      entries: Number(r!.entries),
      bytes: Number(r!.bytes),
    }))
  }

  /**
   * Deletes expired answers, then the oldest until the rest hold at most `maxBytes`; resolves to
   * how many went.
   */
  prune(now: number, maxBytes: number): Promise<number> {
    // Serialised with other prunes only (two gateways pruning at once would each delete the oldest).
    return this.sql.exclusive([PRUNE_LOCK], async (tx) => {
      let removed = await tx.run(`DELETE FROM response_cache WHERE expires_at <= ?`, [now])
      let over = Number((await tx.get<{ bytes: number }>(`SELECT COALESCE(SUM(bytes), 0) AS bytes FROM response_cache`))!.bytes) - maxBytes
      while (over > 0) {
        const oldest = await tx.all<{ hash: string; bytes: number }>(`SELECT hash, bytes FROM response_cache ORDER BY created_at, hash LIMIT 100`)
        if (oldest.length === 0) break
        for (const row of oldest) {
          if (over <= 0) break
          removed += await tx.run(`DELETE FROM response_cache WHERE hash = ?`, [row.hash])
          over -= Number(row.bytes)
        }
      }
      return removed
    })
  }

  /**
   * The hits the records tell (every request the cache answered, whatever cleared the cache since)
   * and what they saved, summed in whole pico-dollars as the records' costs are (`COST_PICO_SUM`).
   */
  async recordedHits(): Promise<{ hits: number; savedPico: bigint }> {
    const row = (await this.sql.get<{ hits: number; saved: string }>(
      `SELECT COUNT(cache_hit_of) AS hits, ${picoSum('cache_saved_usd')} AS saved FROM requests`,
    ))!
    return { hits: Number(row.hits), savedPico: BigInt(row.saved) }
  }

  /** Deletes every answer; resolves to how many there were. */
  clear(): Promise<number> {
    return this.sql.run(`DELETE FROM response_cache`)
  }
}
