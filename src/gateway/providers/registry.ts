import type { ProviderRow, ProviderTimeouts } from '../store/providersRepo'
import { createUpstreamAgent, defaultTimeouts, type CallDeadlines, type UpstreamAgent } from '../upstream/client'
import { resolveCredential, type Credential, type CredentialLookup, type SecretStore } from '../secrets/secretStore'
import { Redactor } from '../secrets/redactor'
import { builtinProviders } from './builtin'
import type { ProviderDialect, ProviderWire } from '../../contract/providers'

export interface Provider {
  id: string
  kind: string
  label: string
  baseUrl: string
  local: boolean
  /** Has a row in the store (a custom provider, or a built-in one with a changed base URL). */
  stored: boolean
  timeouts: ProviderTimeouts
  /** The timeouts of a call to it: its own where set, the defaults otherwise. */
  deadlines: CallDeadlines
  /** Kind openai: the OpenAI wires it serves natively (stored, else its default). */
  wire: ProviderWire
  /** Kind openai: the dialect set for it (stored, else a built-in's own); null to follow its base URL (`dialectOf`). */
  dialect: ProviderDialect | null
}

/** Whether a provider takes OpenAI's Responses API (`POST /responses`) as it is. */
export const servesResponses = (p: Provider): boolean => p.kind === 'openai' && p.wire !== 'chat'

/** Whether a provider of kind openai takes chat completions (other kinds are reached through their adapter). */
export const servesChatCompletions = (p: Provider): boolean => p.kind !== 'openai' || p.wire !== 'responses'

const deadlinesOf = (t: ProviderTimeouts): CallDeadlines => ({
  firstByteMs: t.first_byte_ms ?? defaultTimeouts.firstByteMs,
  idleMs: t.idle_ms ?? defaultTimeouts.idleMs,
})
const defaultDeadlines = deadlinesOf({})

/**
 * Built-in providers merged with the ones stored by `gw providers set`. Credentials are read
 * from the environment or the secret store once and kept in memory until configuration changes
 * (keychain reads go over D-Bus and cost milliseconds, database ones a round trip and a
 * decryption). Every credential loaded is remembered by its redactor, through which every error
 * text from a provider passes.
 */
export class ProviderRegistry {
  private providers = new Map<string, Provider>()
  private credentials = new Map<string, Promise<CredentialLookup>>()
  /** The lookups that have settled: a request's provider call reads its credential here without a promise. */
  private settled = new Map<string, CredentialLookup>()
  private agents = new Map<string, UpstreamAgent>()
  /** When each stored provider's settings were last saved, as of the last reload. */
  private saved = new Map<string, number>()
  /** Problems already told to `onProblem`: a stored key that cannot be read is said once, not at every reload. */
  private readonly told = new Set<string>()
  readonly redactor = new Redactor()

  constructor(
    private readonly secrets: SecretStore,
    private readonly env: NodeJS.ProcessEnv,
    /** The shared keep-alive pool for providers without their own timeouts; a provider's own pool has as many connections. */
    private readonly shared: UpstreamAgent = createUpstreamAgent(),
    /** Hears, once each, of stored keys this gateway cannot read (another GW_SECRET_KEY, none). */
    private readonly onProblem: (providerId: string, problem: string) => void = () => {},
  ) {
    this.reload([])
  }

  /**
   * The built-in providers with the stored ones over them. Returns the providers whose stored
   * settings were saved, added or removed since the last reload, here or in another process: a
   * key is saved with its provider's settings, so these are also the ones whose key may have changed.
   */
  reload(rows: ProviderRow[]): string[] {
    const saved = new Map(rows.map((r) => [r.id, r.updated_at]))
    const changed = [...new Set([...this.saved.keys(), ...saved.keys()])].filter((id) => this.saved.get(id) !== saved.get(id))
    this.saved = saved
    const next = new Map<string, Provider>()
    for (const b of builtinProviders)
      next.set(b.id, { ...b, wire: b.wire ?? 'chat', dialect: b.dialect ?? null, stored: false, timeouts: {}, deadlines: defaultDeadlines })
    for (const row of rows) {
      const builtin = next.get(row.id)
      const timeouts = JSON.parse(row.timeouts) as ProviderTimeouts
      next.set(row.id, {
        id: row.id,
        kind: row.kind,
        label: builtin?.label ?? row.id,
        baseUrl: row.base_url ?? builtin?.baseUrl ?? '',
        local: builtin?.local ?? false,
        stored: true,
        timeouts,
        deadlines: deadlinesOf(timeouts),
        wire: row.wire ?? builtin?.wire ?? 'chat',
        dialect: row.dialect ?? builtin?.dialect ?? null,
      })
    }
    this.providers = next
    this.credentials.clear()
    this.settled.clear()
    const old = [...this.agents.values()]
    this.agents.clear()
    // Requests already running or waiting on an old pool finish on it; it closes when they are done.
    for (const a of old) void a.slots.idle().then(() => a.close())
    return changed
  }

  /** The connection pool for a provider: its own when it has its own connect timeout, the shared one otherwise. */
  dispatcher(provider: Provider): UpstreamAgent {
    const connectMs = provider.timeouts.connect_ms
    if (connectMs === undefined) return this.shared
    let agent = this.agents.get(provider.id)
    if (!agent) {
      agent = createUpstreamAgent({ connectMs, connections: this.shared.slots.limit })
      this.agents.set(provider.id, agent)
    }
    return agent
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()))
  }

  get(id: string): Provider | undefined {
    return this.providers.get(id)
  }

  all(): Provider[] {
    return [...this.providers.values()]
  }

  credential(id: string): Promise<Credential | null> {
    return this.lookup(id).then((found) => found.credential)
  }

  /**
   * The credential when its lookup has already settled (null: there is none), undefined when it
   * has not: the request path reads it so, and awaits `credential` only the first time.
   */
  knownCredential(id: string): Credential | null | undefined {
    return this.settled.get(id)?.credential
  }

  /** Why a provider has no credential although one is stored (it cannot be read here), or null. */
  credentialProblem(id: string): Promise<string | null> {
    return this.lookup(id).then((found) => found.problem)
  }

  private lookup(id: string): Promise<CredentialLookup> {
    let c = this.credentials.get(id)
    if (!c) {
      const lookup: Promise<CredentialLookup> = resolveCredential(id, this.secrets, this.env).then((found) => {
        // Not when a reload cleared this lookup meanwhile: its result may be stale.
        if (this.credentials.get(id) === lookup) this.settled.set(id, found)
        if (found.credential) this.redactor.remember(found.credential.value)
        if (found.problem && !this.told.has(found.problem)) {
          this.told.add(found.problem)
          this.onProblem(id, found.problem)
        }
        return found
      })
      c = lookup
      this.credentials.set(id, c)
    }
    return c
  }
}
