import type { Sql } from './sql'
import { bumpConfigRev } from './configRev'

/** A provider key as AES-256-GCM left it, each part base64: what the store keeps instead of the key. */
export interface SealedSecret {
  /** Names the GW_SECRET_KEY it was encrypted under (see secrets/secretKey.ts). */
  key_id: string
  nonce: string
  ciphertext: string
  tag: string
}

export interface ProviderSecretRow extends SealedSecret {
  provider_id: string
  updated_at: number
}

/**
 * Provider keys on a PostgreSQL store, encrypted (secrets/databaseSecretStore.ts seals and opens
 * them; this never sees a key). Every change bumps the configuration revision in its transaction,
 * so every gateway on the database drops the key it holds in memory and reads the new one.
 */
export class ProviderSecretsRepo {
  constructor(private readonly sql: Sql) {}

  get(providerId: string): Promise<ProviderSecretRow | undefined> {
    return this.sql.get<ProviderSecretRow>(`SELECT * FROM provider_secrets WHERE provider_id = ?`, [providerId])
  }

  all(): Promise<ProviderSecretRow[]> {
    return this.sql.all<ProviderSecretRow>(`SELECT * FROM provider_secrets ORDER BY provider_id`)
  }

  put(providerId: string, sealed: SealedSecret, now = Date.now()): Promise<void> {
    return this.sql.write(async (tx) => {
      await tx.run(
        `INSERT INTO provider_secrets (provider_id, key_id, nonce, ciphertext, tag, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (provider_id) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext,
           tag = excluded.tag, updated_at = excluded.updated_at`,
        [providerId, sealed.key_id, sealed.nonce, sealed.ciphertext, sealed.tag, now],
      )
      await bumpConfigRev(tx)
    })
  }

  remove(providerId: string): Promise<boolean> {
    return this.sql.write(async (tx) => {
      const removed = (await tx.run(`DELETE FROM provider_secrets WHERE provider_id = ?`, [providerId])) === 1
      if (removed) await bumpConfigRev(tx)
      return removed
    })
  }

  /**
   * Replaces rows in one transaction: `reseal` gets every row (in provider order) and returns its
   * replacement, or null to leave it. A throw from it rolls every replacement back. Resolves to
   * how many rows were replaced.
   */
  resealAll(reseal: (row: ProviderSecretRow) => SealedSecret | null, now = Date.now()): Promise<number> {
    return this.sql.write(async (tx) => {
      let replaced = 0
      for (const row of await tx.all<ProviderSecretRow>(`SELECT * FROM provider_secrets ORDER BY provider_id`)) {
        const next = reseal(row)
        if (!next) continue
        await tx.run(`UPDATE provider_secrets SET key_id = ?, nonce = ?, ciphertext = ?, tag = ?, updated_at = ? WHERE provider_id = ?`, [
          next.key_id,
          next.nonce,
          next.ciphertext,
          next.tag,
          now,
          row.provider_id,
        ])
        replaced++
      }
      if (replaced > 0) await bumpConfigRev(tx)
      return replaced
    })
  }
}
