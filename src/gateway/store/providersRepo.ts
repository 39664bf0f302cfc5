import type { Sql } from './sql'
import { bumpConfigRev } from './configRev'
import type { ProviderDialect, ProviderWire } from '../../contract/providers'

export interface ProviderRow {
  id: string
  kind: string
  base_url: string | null
  created_at: number
  updated_at: number
  /** JSON of ProviderTimeouts. */
  timeouts: string
  /** Kind openai: the wires it serves; null for the provider's default. */
  wire: ProviderWire | null
  /** Kind openai: the dialect its quirks follow; null for the provider's default (its base URL's). */
  dialect: ProviderDialect | null
}

/** Per-provider overrides of the upstream timeouts, in milliseconds. */
export interface ProviderTimeouts {
  connect_ms?: number
  first_byte_ms?: number
  idle_ms?: number
}

export class ProvidersRepo {
  constructor(private readonly sql: Sql) {}

  all(): Promise<ProviderRow[]> {
    return this.sql.all<ProviderRow>(`SELECT * FROM providers ORDER BY id`)
  }

  /** `wire` and `dialect` undefined keep the stored setting. */
  upsert(
    id: string,
    kind: string,
    baseUrl: string | null,
    timeouts: ProviderTimeouts = {},
    wire?: ProviderWire,
    dialect?: ProviderDialect,
    now = Date.now(),
  ): Promise<void> {
    return this.sql.write(async (tx) => {
      await tx.run(
        `INSERT INTO providers (id, kind, base_url, timeouts, wire, dialect, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url, timeouts = excluded.timeouts,
           wire = COALESCE(excluded.wire, providers.wire), dialect = COALESCE(excluded.dialect, providers.dialect), updated_at = excluded.updated_at`,
        [id, kind, baseUrl, JSON.stringify(timeouts), wire ?? null, dialect ?? null, now, now],
      )
      await bumpConfigRev(tx)
    })
  }

  remove(id: string): Promise<boolean> {
    return this.sql.write(async (tx) => {
      const removed = (await tx.run(`DELETE FROM providers WHERE id = ?`, [id])) === 1
      await bumpConfigRev(tx)
      return removed
    })
  }

  /** Credentials live in the keychain; a touch tells running gateways to drop their cached copy. */
  touch(): Promise<void> {
    return this.sql.write(bumpConfigRev)
  }
}
