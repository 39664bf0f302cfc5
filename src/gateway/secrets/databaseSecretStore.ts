import type { ProviderSecretRow, ProviderSecretsRepo } from '../store/providerSecretsRepo'
import { openSecret, sealSecret } from './secretCipher'
import { SECRET_KEY_VAR, type SecretKey } from './secretKey'
import { UnreadableSecret, type SecretStore } from './secretStore'

/** A key was to be stored or rotated on a PostgreSQL store and GW_SECRET_KEY is not set. */
export class MissingSecretKey extends Error {
  constructor() {
    super(
      `${SECRET_KEY_VAR} is not set in the gateway's environment: on a PostgreSQL store provider keys are kept only encrypted under it ` +
        '(32 random bytes in base64, the same for every gateway on the database; `openssl rand -base64 32` makes one)',
    )
  }
}

/**
 * Provider keys in a PostgreSQL store, each row encrypted (AES-256-GCM) under GW_SECRET_KEY and
 * naming the key it was encrypted under. The plaintext exists only in the memory of the gateways
 * that hold the key; the database, its dumps and backups hold ciphertext. Without the key a
 * gateway reads no stored key (the environment's `<ID>_API_KEY` still works) and stores none.
 */
export class DatabaseSecretStore implements SecretStore {
  readonly description = `the database, encrypted under ${SECRET_KEY_VAR}`
  readonly source = 'database'

  constructor(
    private readonly repo: ProviderSecretsRepo,
    /** This gateway's GW_SECRET_KEY; null when it has none. */
    readonly key: SecretKey | null,
  ) {}

  private requireKey(): SecretKey {
    if (!this.key) throw new MissingSecretKey()
    return this.key
  }

  async get(providerId: string): Promise<string | null> {
    const row = await this.repo.get(providerId)
    if (!row) return null
    if (!this.key)
      throw new UnreadableSecret(`provider ${providerId}'s key is stored encrypted, and ${SECRET_KEY_VAR} is not set in this gateway's environment`)
    return openSecret(this.key, providerId, row)
  }

  async set(providerId: string, secret: string): Promise<void> {
    await this.repo.put(providerId, sealSecret(this.requireKey(), providerId, secret))
  }

  delete(providerId: string): Promise<boolean> {
    return this.repo.remove(providerId)
  }

  async unusableReason(): Promise<string | null> {
    return this.key ? null : new MissingSecretKey().message
  }

  /** Every stored key's row, without its plaintext: which key id each is under. */
  rows(): Promise<ProviderSecretRow[]> {
    return this.repo.all()
  }

  /**
   * Re-encrypts every stored key under `next`, in one transaction. Rows already under `next` are
   * left, so a rotation can be run again; a row that does not open under this gateway's key stops
   * it, naming the provider, with nothing changed.
   */
  async rotate(next: SecretKey): Promise<{ rotated: number; unchanged: number }> {
    const current = this.requireKey()
    let unchanged = 0
    const rotated = await this.repo.resealAll((row) => {
      if (row.key_id === next.id) {
        unchanged++
        return null
      }
      try {
        return sealSecret(next, row.provider_id, openSecret(current, row.provider_id, row))
      } catch (err) {
        throw err instanceof UnreadableSecret ? new UnreadableSecret(`${err.message}: nothing was rotated`) : err
      }
    })
    return { rotated, unchanged }
  }
}
