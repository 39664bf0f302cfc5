import { APP_NAME } from '../config'

/**
 * Where provider credentials live: the OS keychain beside a SQLite store (a store file copied off
 * a machine carries no secrets), the database itself encrypted under GW_SECRET_KEY beside a
 * PostgreSQL one (a server has no keychain, and every gateway on the database needs the keys).
 */
export interface SecretStore {
  /** Where a key set here goes, in words for a reader: "the OS keychain". */
  readonly description: string
  /** What a credential read from it is reported as. */
  readonly source: 'keychain' | 'database'
  get(account: string): Promise<string | null>
  set(account: string, secret: string): Promise<void>
  delete(account: string): Promise<boolean>
  /** Null when usable, otherwise why not (no keychain service, module missing). */
  unusableReason(): Promise<string | null>
}

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>
  setPassword(service: string, account: string, password: string): Promise<void>
  deletePassword(service: string, account: string): Promise<boolean>
}

/** The OS keychain (macOS Keychain, Windows Credential Manager, Secret Service on Linux) through keytar. */
export class KeychainSecretStore implements SecretStore {
  readonly description = 'the OS keychain'
  readonly source = 'keychain'
  private keytar: Promise<Keytar> | null = null

  /** The service name groups the app's entries; GW_KEYCHAIN_SERVICE lets tests and second instances keep apart. */
  constructor(private readonly service: string = APP_NAME) {}

  private load(): Promise<Keytar> {
    // keytar is an optional native module: load it only when a credential is needed.
    this.keytar ??= import('keytar').then((m) => (m.default ?? m) as Keytar)
    return this.keytar
  }

  private async call<T>(op: (k: Keytar) => Promise<T>): Promise<T> {
    let keytar: Keytar
    try {
      keytar = await this.load()
    } catch (err) {
      throw new Error(`the OS keychain is not usable: keytar could not be loaded (${(err as Error).message})`, { cause: err })
    }
    try {
      return await op(keytar)
    } catch (err) {
      throw new Error(`the OS keychain is not usable: ${(err as Error).message}`, { cause: err })
    }
  }

  get(account: string) {
    return this.call((k) => k.getPassword(this.service, account))
  }

  set(account: string, secret: string) {
    return this.call((k) => k.setPassword(this.service, account, secret))
  }

  delete(account: string) {
    return this.call((k) => k.deletePassword(this.service, account))
  }

  async unusableReason(): Promise<string | null> {
    try {
      await this.get('__probe__')
      return null
    } catch (err) {
      return (err as Error).message
    }
  }
}

/** `openai` → `OPENAI_API_KEY`, `my-llm` → `MY_LLM_API_KEY`. */
export const envVarFor = (providerId: string) => `${providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`

export interface Credential {
  value: string
  source: 'env' | SecretStore['source']
}

/**
 * A provider key that is stored but cannot be read with what this gateway has (another
 * GW_SECRET_KEY, none). Unlike a store that cannot be reached (no keychain on a server), it is
 * worth saying: its message names the provider and why, never the key.
 */
export class UnreadableSecret extends Error {}

/** A provider's credential, or null and, when one is stored but unreadable, why. */
export type CredentialLookup = { credential: Credential; problem: null } | { credential: null; problem: string | null }

/** The environment variable overrides the secret store, for servers that hand keys to processes that way. */
export async function resolveCredential(providerId: string, store: SecretStore, env: NodeJS.ProcessEnv = process.env): Promise<CredentialLookup> {
  const fromEnv = env[envVarFor(providerId)]
  if (fromEnv) return { credential: { value: fromEnv, source: 'env' }, problem: null }
  try {
    const stored = await store.get(providerId)
    return stored ? { credential: { value: stored, source: store.source }, problem: null } : { credential: null, problem: null }
  } catch (err) {
    return { credential: null, problem: err instanceof UnreadableSecret ? err.message : null }
  }
}
