import pino, { type Logger } from 'pino'
import type { Settings } from '../contract/settings'
import type { SessionAlert } from '../contract/sessionAlerts'
import { instanceName, type GatewayConfig } from './config'
import { ResponsesApi } from './wires/responses/responsesApi'
import { AliasTable } from './pipeline/aliases'
import { openStore } from './store/openStore'
import type { RecordSink, Store } from './store/store'
import type { Preset } from '../contract/presets'
import { Balances } from './pipeline/balances'
import { RateLimiter } from './pipeline/rateLimiter'
import { SessionSpend } from './pipeline/sessionSpend'
import { SharedLimits } from './pipeline/sharedLimits'
import { alertThresholdPico, SessionAlerts } from './pipeline/sessionAlerts'
import { KeychainSecretStore, type SecretStore } from './secrets/secretStore'
import { DatabaseSecretStore } from './secrets/databaseSecretStore'
import { SECRET_KEY_VAR, secretKeyFromEnv, type SecretKey } from './secrets/secretKey'
import { ProviderRegistry } from './providers/registry'
import { ProviderHealth } from './providers/health'
import { PriceBook } from './pricing/priceBook'
import { builtinCatalog } from './pricing/catalog'
import type { PriceCatalog } from './pricing/types'
import { KeyIndex } from './pipeline/authenticate'
import { createUpstreamAgent, type UpstreamAgent } from './upstream/client'
import { defaultRouting, type RoutingConfig } from './routing/routingConfig'
import { Cooldown } from './routing/cooldown'
import { SessionRoutes } from './routing/sessionRoutes'
import { ResponseCache } from './routing/responseCache'
import { RecordBackpressure } from './core/recordBackpressure'
import { OpenStreams } from './core/openStreams'
import type { RequestObserver, RequestTracer } from './core/requestObserver'
import type { TracingConfig } from './tracing/tracingConfig'
import { ReadinessCheck } from './core/readiness'

/** How long after a failed configuration reload it is tried again. */
const RELOAD_RETRY_MS = 1000

export interface GatewayOptions {
  config: GatewayConfig
  /**
   * Where provider keys live beside a SQLite store: the OS keychain unless given (tests give a
   * memory one). A PostgreSQL store keeps them itself, encrypted under GW_SECRET_KEY.
   */
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
  /** Trace requests as this says (see tracingConfig); absent: tracing is off and nothing of OpenTelemetry is loaded. */
  tracing?: TracingConfig | null
}

/**
 * Everything a request needs, built once: the store, in-memory configuration (keys, providers,
 * prices) refreshed when any process changes it, the upstream connection pool and the record
 * writer. Knows nothing of HTTP or Electron.
 */
export class Gateway {
  /** The Responses API's wires and the conversations they keep for what the gateway answers itself. */
  readonly responses: ResponsesApi
  readonly balances: Balances
  readonly rateLimiter: RateLimiter
  /** Sessions that passed the settings' alert threshold. */
  readonly sessionAlerts = new SessionAlerts()
  readonly sessions: SessionSpend
  /** Keys' limits held in the database several gateways share (PostgreSQL); null where this process holds them all (SQLite). */
  readonly shared: SharedLimits | null
  /** Settings saved from the dashboard over the start-up configuration; reloaded on change. */
  settings!: Settings
  /** The settings' session alert threshold in pico-dollars, converted as they are read. */
  private sessionAlertPico: bigint | null = null
  readonly routing: RoutingConfig
  readonly cooldown: Cooldown
  readonly sessionRoutes: SessionRoutes
  /** Current preset versions by name, reloaded on configuration change. */
  presets = new Map<string, Preset>()
  /** Model aliases, compiled on configuration change. */
  readonly aliases = new AliasTable()
  /** The store's record writer, which the core hands every request's record. */
  readonly records: RecordSink
  /** Refuses new requests while the records held for the store reach their bound. */
  readonly backpressure: RecordBackpressure
  /** Answers kept for repeats of requests that use the response cache. */
  readonly responseCache: ResponseCache
  /** Told of every record besides the store: the metrics that are turned on (traces begin with the request: `tracer`). */
  readonly observers: RequestObserver[] = []
  /** Streamed answers being relayed now (read by the metrics). */
  readonly streams = new OpenStreams()
  /** Traces requests when tracing is on (set once, as the gateway opens); null when off. */
  tracer: RequestTracer | null = null
  /** What `/readyz` answers: the store answers and requests are not being refused. */
  readonly readiness: ReadinessCheck
  readonly registry: ProviderRegistry
  readonly health: ProviderHealth
  readonly priceBook: PriceBook
  readonly clock: () => number
  readonly keyIndex = new KeyIndex()
  readonly agent: UpstreamAgent
  readonly secrets: SecretStore
  /** The secret store when it is the database (a PostgreSQL store): what `secrets.status` and `secrets.rotate` work on. */
  readonly databaseSecrets: DatabaseSecretStore | null
  readonly logger: Logger
  /**
   * The name every record this gateway makes carries (`instanceName`): the host name alone until
   * a server listens for it, which names it with its port (server.ts).
   */
  instance: string
  private pruneTimer: NodeJS.Timeout | null = null
  /** The reload under way, which requests arriving meanwhile wait for. */
  private reloading: Promise<void> | null = null

  /** Opens the store the configuration names and loads the configuration into memory. */
  static async open(options: GatewayOptions): Promise<Gateway> {
    const logger = options.logger ?? pino({ level: 'silent' })
    const env = options.env ?? process.env
    // Checked before anything is opened: a malformed key stops the start in one line naming the variable.
    const secretKey = options.config.databaseUrl ? secretKeyFromEnv(env) : null
    const store = await openStore({ ...options.config, onRecordError: (err) => logger.error({ err }, 'request records: could not write') })
    const gw = new Gateway(options, store, logger, secretKey)
    gw.logKeyStore(env)
    try {
      // Loaded only when tracing is on: a gateway without it never loads OpenTelemetry.
      const tracing = options.tracing
      if (tracing) {
        gw.tracer = (await import('./tracing/requestTracer')).startTracer(
          tracing,
          (id) => gw.registry.get(id),
          (message) => logger.warn(message),
        )
        logger.info(
          { endpoint: tracing.shownUrl, propagate: tracing.propagate, capture_content: tracing.captureContent },
          `tracing: spans go to ${tracing.shownUrl} over OTLP/HTTP`,
        )
      }
      await gw.reload()
      await gw.shared?.start()
    } catch (err) {
      await store.close()
      await gw.tracer?.shutdown()
      throw err
    }
    gw.startPruning()
    return gw
  }

  private constructor(
    readonly options: GatewayOptions,
    readonly store: Store,
    logger: Logger,
    secretKey: SecretKey | null,
  ) {
    this.logger = logger
    this.instance = instanceName(options.config, null)
    this.records = store.records
    this.backpressure = new RecordBackpressure(
      () => this.records.backlog(),
      { records: options.config.maxQueuedRecords, bytes: options.config.maxQueuedRecordBytes },
      logger,
    )
    this.readiness = new ReadinessCheck(() => this.store.ping(), this.backpressure)
    this.databaseSecrets = options.config.databaseUrl ? new DatabaseSecretStore(store.providerSecrets, secretKey) : null
    this.secrets = this.databaseSecrets ?? options.secrets ?? new KeychainSecretStore((options.env ?? process.env).GW_KEYCHAIN_SERVICE)
    this.clock = options.clock ?? Date.now
    this.responseCache = new ResponseCache(store.responseCache, this.clock, options.config.responseCacheBytes, logger)
    this.routing = { ...defaultRouting, ...options.routing }
    this.cooldown = new Cooldown(this.routing, this.clock)
    this.sessionRoutes = new SessionRoutes(async (keyId, sessionId, preset) => {
      const row = await this.store.requests.sessionTarget(keyId, sessionId, preset)
      return row ? { provider: row.provider, upstreamModel: row.upstream_model, softCap: row.soft_cap !== null } : null
    })
    this.agent = createUpstreamAgent({ connections: options.config.upstreamConnections })
    this.registry = new ProviderRegistry(this.secrets, options.env ?? process.env, this.agent, (provider, problem) =>
      logger.warn({ provider }, `provider key not usable: ${problem}`),
    )
    this.health = new ProviderHealth(this.agent, this.registry)
    this.priceBook = new PriceBook(options.catalog ?? builtinCatalog)
    this.rateLimiter = new RateLimiter(this.clock)
    this.balances = new Balances(this.store.ledger, this.records, this.clock)
    const alerts = { threshold: () => this.sessionAlertPico, raise: (alert: SessionAlert) => this.sessionAlerts.raise(alert) }
    this.sessions = new SessionSpend((keyId, sessionId) => this.store.requests.sessionTotals(keyId, sessionId), this.records, alerts)
    this.shared = store.limits ? new SharedLimits(store.limits, this.records, () => this.instance, alerts, logger) : null
    this.responses = new ResponsesApi({
      responses: this.store.responses,
      requests: this.store.requests,
      records: this.records,
      retentionDays: () => this.settings.response_retention_days,
    })
  }

  /** Where this gateway keeps provider keys, once at start: the key id lets an operator see which gateways share a key. */
  private logKeyStore(env: NodeJS.ProcessEnv): void {
    const key = this.databaseSecrets?.key
    if (key) this.logger.info({ key_id: key.id }, `provider keys: in the database, encrypted under ${SECRET_KEY_VAR} (key id ${key.id})`)
    else if (this.databaseSecrets) {
      this.logger.info(
        `provider keys: ${SECRET_KEY_VAR} is not set, so this gateway reads no key stored in the database and stores none; <ID>_API_KEY in its environment works`,
      )
    } else if (env[SECRET_KEY_VAR]) {
      this.logger.info(
        `provider keys: ${SECRET_KEY_VAR} is ignored, as this gateway's store is SQLite, whose provider keys stay in ${this.secrets.description}`,
      )
    }
  }

  private startPruning(): void {
    const prune = () => void this.pruneRecords().catch((err) => this.logger.error({ err }, 'request records: could not prune'))
    prune()
    this.pruneTimer = setInterval(prune, 3600_000)
    this.pruneTimer.unref()
  }

  /**
   * Called at the start of every request: null (nothing to wait for) unless some process changed
   * configuration since the last check; then the reload, which every request arriving meanwhile
   * waits for too. It never rejects: a reload the store cannot answer leaves the configuration in
   * memory as it was (see reloadFailed).
   */
  refreshing(): Promise<void> | null {
    if (this.reloading) return this.reloading
    if (!this.store.config.changed()) return null
    const reloading = this.reload()
      .catch((err) => this.reloadFailed(err))
      .finally(() => {
        if (this.reloading === reloading) this.reloading = null
      })
    this.reloading = reloading
    return reloading
  }

  /**
   * The database could not be read (it is restarting, or unreachable): requests go on with the
   * configuration in memory rather than failing, and the reload is tried again a moment later.
   */
  private reloadFailed(err: unknown): void {
    this.logger.error(
      { err },
      `configuration: could not be read from the store; serving the configuration in memory and trying again in ${RELOAD_RETRY_MS / 1000} s`,
    )
    setTimeout(() => this.store.config.invalidate(), RELOAD_RETRY_MS).unref()
  }

  /** Waits for configuration any process changed to be in memory (or for the attempt, when the store cannot be read). */
  async refresh(): Promise<void> {
    await this.refreshing()
  }

  private async reload(): Promise<void> {
    const c = this.options.config
    const [settings, keys, presets, aliases, providers, prices, calendars] = await Promise.all([
      this.store.settings.read({
        port: c.port,
        bind: c.host,
        allowed_hosts: [],
        cors_origins: [],
        log_bodies: false,
        retention_days: null,
        response_retention_days: 30,
        session_alert_usd: null,
        price_source_url: null,
      }),
      this.store.keys.all(),
      this.store.presets.all(),
      this.store.aliases.all(),
      this.store.providers.all(),
      this.store.prices.all(),
      this.store.prices.calendars(),
    ])
    // Everything read, the new configuration applies at once: no request sees half of it.
    this.settings = settings
    this.sessionAlertPico = alertThresholdPico(settings)
    this.keyIndex.reload(keys)
    this.presets = new Map(presets.map((p) => [p.name, p]))
    this.aliases.reload(aliases)
    // Read again before the next admission, once usage debits still queued are committed.
    this.balances.reload()
    // A provider saved again (a new key, another address) starts afresh: its failures were the old one's.
    for (const id of this.registry.reload(providers)) this.cooldown.clear(id)
    this.priceBook.reload(prices, calendars)
    this.health.clear()
  }

  /** After a change outside the store (the keychain): the configuration is read again before this resolves. */
  async configChanged(): Promise<void> {
    this.store.config.invalidate()
    await this.refresh()
  }

  /**
   * Deletes records older than the retention setting (their tags, dimensions and bodies go with
   * them), stored responses past theirs, and the response cache's expired answers.
   */
  async pruneRecords(now = this.clock()): Promise<number> {
    await this.store.responses.prune(now, now - this.settings.response_retention_days * 86_400_000)
    await this.responseCache.prune(now)
    const days = this.settings.retention_days
    if (days === null) return 0
    await this.records.flushed()
    return this.store.requests.prune(now - days * 86_400_000)
  }

  async close(): Promise<void> {
    if (this.pruneTimer) clearInterval(this.pruneTimer)
    await this.shared?.leave()
    await this.registry.close()
    await this.agent.close()
    await this.store.close()
    // After the records: the last requests' spans are exported before the gateway is gone.
    await this.tracer?.shutdown()
  }
}
