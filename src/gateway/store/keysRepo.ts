import { randomBytes } from 'node:crypto'
import type { Sql } from './sql'
import { generateKey, maskKey } from '../keys/inferenceKey'
import { bumpConfigRev } from './configRev'
import { LedgerRepo, usdToPico } from './ledgerRepo'
import type { KeyPolicy } from '../../contract/keys'

export interface KeyRow {
  id: string
  name: string
  lookup: string
  hash: string
  last4: string
  created_at: number
  revoked_at: number | null
  last_used_at: number | null
  default_preset: string | null
  /** JSON of KeyPolicy. */
  policy: string
  /** 1 when the key spends from a prepaid balance; 0 means unlimited. */
  prepaid: number
  daily_limit_usd: number | null
  monthly_limit_usd: number | null
  owner_id: string | null
  /** How long the response cache keeps this key's deterministic answers, in seconds; null: the key does not cache. */
  response_cache_ttl_s: number | null
}

/** A key as shown to people: never the hash or the secret. */
export interface KeyInfo {
  id: string
  name: string
  masked: string
  created_at: number
  revoked_at: number | null
  last_used_at: number | null
  default_preset: string | null
  policy: KeyPolicy
  prepaid: boolean
  daily_limit_usd: number | null
  monthly_limit_usd: number | null
  response_cache_ttl_s: number | null
}

export const toKeyInfo = (row: KeyRow): KeyInfo => ({
  id: row.id,
  name: row.name,
  masked: maskKey(row.lookup, row.last4),
  created_at: row.created_at,
  revoked_at: row.revoked_at,
  last_used_at: row.last_used_at,
  default_preset: row.default_preset,
  policy: JSON.parse(row.policy) as KeyPolicy,
  prepaid: row.prepaid === 1,
  daily_limit_usd: row.daily_limit_usd,
  monthly_limit_usd: row.monthly_limit_usd,
  response_cache_ttl_s: row.response_cache_ttl_s,
})

export interface KeySettings {
  default_preset?: string | null
  policy?: KeyPolicy
  daily_limit_usd?: number | null
  monthly_limit_usd?: number | null
  response_cache_ttl_s?: number | null
}

export class KeysRepo {
  constructor(private readonly sql: Sql) {}

  /** `balanceUsd` makes the key prepaid, with that opening top-up in its ledger. */
  async create(
    name: string,
    settings: KeySettings & { balanceUsd?: number; ownerId?: string | null } = {},
    actor = 'cli',
    now = Date.now(),
  ): Promise<{ secret: string; info: KeyInfo }> {
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
      default_preset: settings.default_preset ?? null,
      policy: JSON.stringify(settings.policy ?? {}),
      prepaid: settings.balanceUsd === undefined ? 0 : 1,
      daily_limit_usd: settings.daily_limit_usd ?? null,
      monthly_limit_usd: settings.monthly_limit_usd ?? null,
      owner_id: settings.ownerId ?? null,
      response_cache_ttl_s: settings.response_cache_ttl_s ?? null,
    }
    await this.sql.write(async (tx) => {
      await tx.run(
        `INSERT INTO keys (id, name, lookup, hash, last4, created_at, default_preset, policy, prepaid, daily_limit_usd, monthly_limit_usd, owner_id, response_cache_ttl_s)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.id,
          row.name,
          row.lookup,
          row.hash,
          row.last4,
          row.created_at,
          row.default_preset,
          row.policy,
          row.prepaid,
          row.daily_limit_usd,
          row.monthly_limit_usd,
          row.owner_id,
          row.response_cache_ttl_s,
        ],
      )
      if (settings.balanceUsd !== undefined) {
        await new LedgerRepo(tx).credit(row.id, usdToPico(settings.balanceUsd), 'top_up', actor, 'opening balance', now)
      }
      await bumpConfigRev(tx)
    })
    return { secret: key.secret, info: toKeyInfo(row) }
  }

  /** Changes only the settings given; `null` clears one. */
  update(id: string, settings: KeySettings): Promise<KeyInfo> {
    return this.sql.write(async (tx) => {
      const current = await tx.get<KeyRow>(`SELECT * FROM keys WHERE id = ?`, [id])
      if (!current) throw new Error(`no key ${id}`)
      const next: KeyRow = {
        ...current,
        default_preset: settings.default_preset === undefined ? current.default_preset : settings.default_preset,
        policy: settings.policy === undefined ? current.policy : JSON.stringify(settings.policy),
        daily_limit_usd: settings.daily_limit_usd === undefined ? current.daily_limit_usd : settings.daily_limit_usd,
        monthly_limit_usd: settings.monthly_limit_usd === undefined ? current.monthly_limit_usd : settings.monthly_limit_usd,
        response_cache_ttl_s: settings.response_cache_ttl_s === undefined ? current.response_cache_ttl_s : settings.response_cache_ttl_s,
      }
      await tx.run(`UPDATE keys SET default_preset = ?, policy = ?, daily_limit_usd = ?, monthly_limit_usd = ?, response_cache_ttl_s = ? WHERE id = ?`, [
        next.default_preset,
        next.policy,
        next.daily_limit_usd,
        next.monthly_limit_usd,
        next.response_cache_ttl_s,
        id,
      ])
      await bumpConfigRev(tx)
      return toKeyInfo(next)
    })
  }

  byId(id: string): Promise<KeyRow | undefined> {
    return this.sql.get<KeyRow>(`SELECT * FROM keys WHERE id = ?`, [id])
  }

  all(): Promise<KeyRow[]> {
    return this.sql.all<KeyRow>(`SELECT * FROM keys ORDER BY created_at DESC`)
  }

  /** Finds by id, by exact name, or by the masked/lookup prefix a person copied from a listing. */
  async find(ref: string): Promise<KeyRow | undefined> {
    const lookup = ref.startsWith('gw-') ? ref.slice(3, 11) : ref
    const rows = await this.sql.all<KeyRow>(`SELECT * FROM keys WHERE id = ? OR name = ? OR lookup = ? ORDER BY created_at DESC`, [ref, ref, lookup])
    if (rows.length > 1) throw new Error(`"${ref}" matches ${rows.length} keys; use the key id`)
    return rows[0]
  }

  revoke(id: string, now = Date.now()): Promise<boolean> {
    return this.sql.write(async (tx) => {
      const revoked = (await tx.run(`UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, [now, id])) === 1
      await bumpConfigRev(tx)
      return revoked
    })
  }
}

/** Keys' last-used times, with each record batch: only ever moved forward. */
export const TOUCH_KEY_SQL = `UPDATE keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`
