import type { SecretStore } from '../../src/gateway/secrets/secretStore'

/** A keychain stand-in for tests that are not about the keychain, and for machines without one. */
export class MemorySecretStore implements SecretStore {
  readonly source = 'keychain'
  readonly map = new Map<string, string>()

  constructor(readonly description = 'memory') {}

  async get(account: string) {
    return this.map.get(account) ?? null
  }

  async set(account: string, secret: string) {
    this.map.set(account, secret)
  }

  async delete(account: string) {
    return this.map.delete(account)
  }

  async unusableReason() {
    return null
  }
}
