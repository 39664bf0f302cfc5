import type { ProvidersRepo } from '../store/providersRepo'
import { resolveCredential, type Credential, type SecretStore } from '../secrets/secretStore'
import { builtinProviders } from './builtin'

export interface Provider {
  id: string
  kind: string
  label: string
  baseUrl: string
  local: boolean
  /** Has a row in the store (a custom provider, or a built-in one with a changed base URL). */
  stored: boolean
}

/**
 * Built-in providers merged with the ones stored by `gw providers set`. Credentials are read
 * from the environment or the keychain once and kept in memory until configuration changes
 * (keychain reads go over D-Bus and cost milliseconds).
 */
export class ProviderRegistry {
  private providers = new Map<string, Provider>()
  private credentials = new Map<string, Promise<Credential | null>>()

  constructor(
    private readonly repo: ProvidersRepo,
    private readonly secrets: SecretStore,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.reload()
  }

  reload(): void {
    const next = new Map<string, Provider>()
    for (const b of builtinProviders) next.set(b.id, { ...b, stored: false })
    for (const row of this.repo.all()) {
      const builtin = next.get(row.id)
      next.set(row.id, {
        id: row.id,
        kind: row.kind,
        label: builtin?.label ?? row.id,
        baseUrl: row.base_url ?? builtin?.baseUrl ?? '',
        local: builtin?.local ?? false,
        stored: true,
      })
    }
    this.providers = next
    this.credentials.clear()
  }

  get(id: string): Provider | undefined {
    return this.providers.get(id)
  }

  all(): Provider[] {
    return [...this.providers.values()]
  }

  credential(id: string): Promise<Credential | null> {
    let c = this.credentials.get(id)
    if (!c) {
      c = resolveCredential(id, this.secrets, this.env)
      this.credentials.set(id, c)
    }
    return c
  }
}
