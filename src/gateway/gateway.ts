import pino, { type Logger } from 'pino'
import { SettingsRepo } from './store/settingsRepo'
import type { Settings } from '../contract/settings'
import type { GatewayConfig } from './config'
import { openDatabase, type Db } from './store/db'
import { ConfigWatcher } from './store/configRev'
import { KeysRepo } from './store/keysRepo'
import { ProvidersRepo } from './store/providersRepo'
import { PricesRepo } from './store/pricesRepo'
import { RequestsRepo } from './store/requestsRepo'
import { ResponsesRepo } from './store/responsesRepo'
import { Conversations } from './wires/responses/conversations'
import { RecordWriter } from './store/recordWriter'
import { PresetsRepo } from './store/presetsRepo'
import { AliasesRepo } from './store/aliasesRepo'
import { AliasTable } from './pipeline/aliases'
import { LedgerRepo } from './store/ledgerRepo'
import type { Preset } from '../contract/presets'
import { Balances } from './pipeline/balances'
import { RateLimiter } from './pipeline/rateLimiter'
import { SessionSpend } from './pipeline/sessionSpend'
import { SessionAlerts } from './pipeline/sessionAlerts'
import { KeychainSecretStore, type SecretStore } from './secrets/secretStore'
import { ProviderRegistry } from './providers/registry'
import { ProviderHealth } from './providers/health'
import { PriceBook } from './pricing/priceBook'
import { builtinCatalog } from './pricing/catalog'
import type { PriceCatalog } from './pricing/types'
import { KeyIndex } from './pipeline/authenticate'
import { createUpstreamAgent, type UpstreamAgent } from './upstream/client'
import { defaultRouting, type RoutingConfig } from './routing/routingConfig'
import { Cooldown } from './routing/cooldown'

export interface GatewayOptions {
  config: GatewayConfig
  secrets?: SecretStore
  env?: NodeJS.ProcessEnv
  catalog?: PriceCatalog
  routing?: Partial<RoutingConfig>
  /** The gateway's log (server.ts opens it from the configuration); none when absent. */
  logger?: Logger
  /**
   * Unix milliseconds now. Every request's time (its id, its record, the rates it is priced at:
   * schedules, peak hours, holidays) comes from it, so time-dependent pricing is tested by
   * giving a gateway a fixed clock, not by patching Date.
   */
  clock?: () => number
}

/**
 * Everything a request needs, built once: the store, in-memory configuration (keys, providers,
 * prices) refreshed when any process changes it, the upstream connection pool and the record
 * writer. Knows nothing of HTTP or Electron.
 */
export class Gateway {
  readonly db: Db
  readonly keys: KeysRepo
  readonly providers: ProvidersRepo
  readonly prices: PricesRepo
  readonly requests: RequestsRepo
  /** Responses the gateway answered on a translated path, for continuing them. */
  readonly responses: ResponsesRepo
  /** The Responses API's state for what the gateway answers itself. */
  readonly conversations: Conversations
  readonly presetsRepo: PresetsRepo
  readonly ledger: LedgerRepo
  readonly balances: Balances
  readonly rateLimiter = new RateLimiter()
  /** Sessions that passed the settings' alert threshold. */
  readonly sessionAlerts = new SessionAlerts()
  readonly sessions: SessionSpend
  readonly settingsRepo: SettingsRepo
  /** Settings saved from the dashboard over the start-up configuration; reloaded on change. */
  settings!: Settings
  readonly routing: RoutingConfig
  readonly cooldown: Cooldown
  /** Current preset versions by name, reloaded on configuration change. */
  presets = new Map<string, Preset>()
  readonly aliasesRepo: AliasesRepo
  /** Model aliases, compiled on configuration change. */
  readonly aliases = new AliasTable()
  readonly records: RecordWriter
  readonly registry: ProviderRegistry
  readonly health: ProviderHealth
  readonly priceBook: PriceBook
  readonly clock: () => number
  readonly keyIndex = new KeyIndex()
  readonly agent: UpstreamAgent
  readonly secrets: SecretStore
  readonly logger: Logger
  private readonly watcher: ConfigWatcher
  private readonly pruneTimer: NodeJS.Timeout

  constructor(readonly options: GatewayOptions) {
    this.logger = options.logger ?? pino({ level: 'silent' })
    this.db = openDatabase(options.config.dataDir)
    this.keys = new KeysRepo(this.db)
    this.providers = new ProvidersRepo(this.db)
    this.prices = new PricesRepo(this.db)
    this.requests = new RequestsRepo(this.db)
    this.responses = new ResponsesRepo(this.db)
    this.presetsRepo = new PresetsRepo(this.db)
    this.aliasesRepo = new AliasesRepo(this.db)
    this.settingsRepo = new SettingsRepo(this.db)
    this.ledger = new LedgerRepo(this.db)
    this.records = new RecordWriter(this.db, { onError: (err) => this.logger.error({ err }, 'request records: could not write') })
    this.secrets = options.secrets ?? new KeychainSecretStore((options.env ?? process.env).GW_KEYCHAIN_SERVICE)
    this.routing = { ...defaultRouting, ...options.routing }
    this.cooldown = new Cooldown(this.routing)
    this.agent = createUpstreamAgent({ connections: options.config.upstreamConnections })
    this.registry = new ProviderRegistry(this.providers, this.secrets, options.env ?? process.env, this.agent)
    this.health = new ProviderHealth(this.agent, this.registry)
    this.priceBook = new PriceBook(options.catalog ?? builtinCatalog)
    this.clock = options.clock ?? Date.now
    this.balances = new Balances(this.ledger, this.records)
    this.sessions = new SessionSpend((keyId, sessionId) => this.requests.sessionTotals(keyId, sessionId), this.records, {
      threshold: () => this.settings.session_alert_usd,
      raise: (alert) => this.sessionAlerts.raise(alert),
    })
    this.conversations = new Conversations({
      responses: this.responses,
      requests: this.requests,
      records: this.records,
      retentionDays: () => this.settings.response_retention_days,
    })
    this.watcher = new ConfigWatcher(this.db)
    this.refresh()
    const prune = () => void this.pruneRecords().catch((err) => this.logger.error({ err }, 'request records: could not prune'))
    prune()
    this.pruneTimer = setInterval(prune, 3600_000)
    this.pruneTimer.unref()
  }

  /** Called at the start of every request: a no-op unless some process changed configuration. */
  refresh(): void {
    if (!this.watcher.changed()) return
    const c = this.options.config
    this.settings = this.settingsRepo.read({
      port: c.port,
      bind: c.host,
      allowed_hosts: [],
      cors_origins: [],
      log_bodies: false,
      retention_days: null,
      response_retention_days: 30,
      session_alert_usd: null,
      price_source_url: null,
    })
    this.keyIndex.reload(this.keys.all())
    this.presets = new Map(this.presetsRepo.all().map((p) => [p.name, p]))
    this.aliases.reload(this.aliasesRepo.all())
    // Read again before the next admission, once usage debits still queued are committed.
    this.balances.reload()
    this.registry.reload()
    this.priceBook.reload(this.prices.all(), this.prices.calendars())
    this.health.clear()
  }

  /** After a change made through this process's own connection. */
  configChanged(): void {
    this.watcher.invalidate()
    this.refresh()
  }

  /**
   * Deletes records older than the retention setting (their tags, dimensions and bodies go with
   * them), and stored responses past theirs.
   */
  async pruneRecords(now = this.clock()): Promise<number> {
    this.responses.prune(now, now - this.settings.response_retention_days * 86_400_000)
    const days = this.settings.retention_days
    if (days === null) return 0
    await this.records.flushed()
    return this.db.prepare(`DELETE FROM requests WHERE created_at < ?`).run(now - days * 86_400_000).changes
  }

  async close(): Promise<void> {
    if (this.pruneTimer) clearInterval(this.pruneTimer)
    await this.records.close()
    await this.registry.close()
    await this.agent.close()
    this.db.close()
  }
}
