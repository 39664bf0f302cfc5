import { hash } from 'node:crypto'
import { placeholders, type Sql } from './sql'

const digest = (key: string) => hash('sha256', key, 'hex')

/**
 * Failed sign-ins (and attempts still being checked) per throttle key, in the store, so that every
 * gateway on it counts the same attempts. A key is stored as its SHA-256: a user-name field now
 * and then holds a password typed in the wrong box.
 */
export class SignInFailuresRepo {
  constructor(private readonly sql: Sql) {}

  /**
   * Counts an attempt against every key, unless one of them already has `limit` failures after
   * `now - windowMs`: then milliseconds until the oldest of that key's ages out, and nothing is
   * counted. 0 when the attempt was counted. Attempts on the same keys queue on their locks, on
   * any gateway, so parallel ones are counted one after another and no more than `limit` pass.
   */
  reserve(keys: readonly string[], limit: number, windowMs: number, now: number): Promise<number> {
    const digests = keys.map(digest)
    return this.sql.exclusive(digests, async (tx) => {
      const counts = await tx.all<{ n: number; oldest: number }>(
        `SELECT count(*) AS n, min(at) AS oldest FROM sign_in_failures WHERE throttle_key IN (${placeholders(digests.length)}) AND at > ? GROUP BY throttle_key`,
        [...digests, now - windowMs],
      )
      const full = counts.filter((c) => c.n >= limit)
      if (full.length > 0) return Math.max(...full.map((c) => c.oldest + windowMs - now))
      for (const key of digests) await tx.run(`INSERT INTO sign_in_failures (throttle_key, at) VALUES (?, ?)`, [key, now])
      return 0
    })
  }

  /** Forgets the keys' failures (a sign-in succeeded). One statement: an attempt counted meanwhile is either before it or after. */
  async clear(keys: readonly string[]): Promise<void> {
    await this.sql.run(`DELETE FROM sign_in_failures WHERE throttle_key IN (${placeholders(keys.length)})`, keys.map(digest))
  }

  /** Deletes failures at or before `before`, which no window counts any more; resolves to how many. */
  prune(before: number): Promise<number> {
    return this.sql.run(`DELETE FROM sign_in_failures WHERE at <= ?`, [before])
  }
}
