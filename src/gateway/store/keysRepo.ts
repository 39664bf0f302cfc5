import { randomBytes } from 'node:crypto'
import type { Db } from './db'
import { generateKey, maskKey } from '../keys/inferenceKey'
import { bumpConfigRev } from './configRev'

export interface KeyRow {
  id: string
  name: string
  lookup: string
  hash: string
  last4: string
  created_at: number
  revoked_at: number | null
  last_used_at: number | null
}

/** A key as shown to people: never the hash or the secret. */
export interface KeyInfo {
  id: string
  name: string
  masked: string
  created_at: number
  revoked_at: number | null
  last_used_at: number | null
}

export const toKeyInfo = (row: KeyRow): KeyInfo => ({
  id: row.id,
  name: row.name,
  masked: maskKey(row.lookup, row.last4),
  created_at: row.created_at,
  revoked_at: row.revoked_at,
  last_used_at: row.last_used_at,
})

export class KeysRepo {
  constructor(private readonly db: Db) {}

  create(name: string, now = Date.now()): { secret: string; info: KeyInfo } {
    const key = generateKey()
    const row: KeyRow = {
      id: `key_${randomBytes(9).toString('base64url')}`,
      name,
      lookup: key.lookup,
      hash: key.hash,
      last4: key.last4,
      created_at: now,
      revoked_at: null,
      last_used_at: null,
    }
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO keys (id, name, lookup, hash, last4, created_at) VALUES (@id, @name, @lookup, @hash, @last4, @created_at)`,
        )
        .run(row)
      bumpConfigRev(this.db)
    })()
    return { secret: key.secret, info: toKeyInfo(row) }
  }

  all(): KeyRow[] {
    return this.db.prepare(`SELECT * FROM keys ORDER BY created_at DESC`).all() as KeyRow[]
  }

  /** Finds by id, by exact name, or by the masked/lookup prefix a person copied from a listing. */
  find(ref: string): KeyRow | undefined {
    const lookup = ref.startsWith('gw-') ? ref.slice(3, 11) : ref
    const rows = this.db
      .prepare(`SELECT * FROM keys WHERE id = ? OR name = ? OR lookup = ? ORDER BY created_at DESC`)
      .all(ref, ref, lookup) as KeyRow[]
    if (rows.length > 1) throw new Error(`"${ref}" matches ${rows.length} keys; use the key id`)
    return rows[0]
  }

  revoke(id: string, now = Date.now()): boolean {
    return this.db.transaction(() => {
      const revoked = this.db.prepare(`UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`).run(now, id).changes === 1
      bumpConfigRev(this.db)
      return revoked
    })()
  }

  touch(lastUsed: Map<string, number>): void {
    const stmt = this.db.prepare(`UPDATE keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?`)
    for (const [id, at] of lastUsed) stmt.run(at, id)
  }
}
