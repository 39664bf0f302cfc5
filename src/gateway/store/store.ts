import type { RequestRecord } from './requestsRepo'
import type { Bodies, Debit } from './recordBatch'
import type { ConfigWatch } from './configRev'
import type { Sql } from './sql'
import type { SharedLimitStore } from './sharedLimitStore'
import { KeysRepo } from './keysRepo'
import { ProvidersRepo } from './providersRepo'
import { PricesRepo } from './pricesRepo'
import { RequestsRepo } from './requestsRepo'
import { ResponsesRepo } from './responsesRepo'
import { ResponseCacheRepo } from './responseCacheRepo'
import { PresetsRepo } from './presetsRepo'
import { AliasesRepo } from './aliasesRepo'
import { SettingsRepo } from './settingsRepo'
import { LedgerRepo } from './ledgerRepo'
import { UsersRepo } from './usersRepo'
import { SignInFailuresRepo } from './signInFailuresRepo'
import { ProviderSecretsRepo } from './providerSecretsRepo'
import { exportRequests, listRequests, type ListRequestsInput, type Scope } from './queries/requestQuery'
import { groupBy, overview, type GroupByInput, type OverviewInput } from './queries/analyticsQuery'
import { getSession, listSessions, type GetSessionInput, type ListSessionsInput } from './queries/sessionQuery'

/** Request records held in memory until the store has them. */
export interface RecordBacklog {
  /** Records pushed and not yet written (or set aside): queued, or in a batch being written. */
  records: number
  /** An estimate of the memory they hold: their logged bodies' text and a fixed share per record. */
  bytes: number
  /** Since when (Unix ms) writing has failed for a passing reason with nothing written since; null while writes succeed. */
  failingSince: number | null
  /** How long the last batch written had waited, from its first record's queuing to its commit (0 before any). */
  lagMs: number
}

/** One connection pool's use now (PostgreSQL's: the main pool, the records' and the limits'). */
export interface PoolUse {
  pool: string
  inUse: number
  idle: number
  /** Queries waiting for a connection. */
  waiting: number
}

/**
 * Where request records go: queued in memory and written in batches beside the requests' path
 * (SQLite: a thread with its own connection; PostgreSQL: multi-row inserts on a pool connection).
 */
export interface RecordSink {
  push(record: RequestRecord, debit?: Debit | null, bodies?: Bodies | null): void
  /** Starts writing now rather than with the first batch (a gateway calls this as it starts). */
  start(): void
  /** Resolves once everything pushed so far has been tried, so a read that follows sees it. */
  flushed(): Promise<void>
  /** This key's records pushed and not yet known to be committed; what is not listed was committed before a read that begins now. */
  unwritten(keyId: string): RequestRecord[]
  /** What is held in memory now, for the gateway to stop admitting requests before it grows without bound. */
  backlog(): RecordBacklog
  close(): Promise<void>
}

/** The store's requests-screen queries, each over one snapshot. */
export class Queries {
  constructor(private readonly sql: Sql) {}
  listRequests = (input: ListRequestsInput, scope: Scope) => listRequests(this.sql, input, scope)
  exportRequests = (input: Omit<ListRequestsInput, 'limit' | 'offset'>, scope: Scope, max?: number) => exportRequests(this.sql, input, scope, max)
  overview = (input: OverviewInput, scope: Scope, now: number) => overview(this.sql, input, scope, now)
  groupBy = (input: GroupByInput, scope: Scope) => groupBy(this.sql, input, scope)
  listSessions = (input: ListSessionsInput, scope: Scope) => listSessions(this.sql, input, scope)
  getSession = (input: GetSessionInput, scope: Scope, now: number) => getSession(this.sql, input, scope, now)
}

/**
 * Everything the gateway keeps, behind one asynchronous interface with one implementation per
 * database (SQLite, PostgreSQL). Nothing outside `src/gateway/store/` writes SQL: it calls these.
 */
export class Store {
  readonly keys: KeysRepo
  readonly providers: ProvidersRepo
  readonly prices: PricesRepo
  readonly requests: RequestsRepo
  /** Responses the gateway answered on a translated path, for continuing them. */
  readonly responses: ResponsesRepo
  /** Answers kept for repeats of the requests that asked for the response cache. */
  readonly responseCache: ResponseCacheRepo
  readonly presets: PresetsRepo
  readonly aliases: AliasesRepo
  readonly settings: SettingsRepo
  readonly ledger: LedgerRepo
  readonly users: UsersRepo
  /** Failed sign-ins, counted by every gateway on the store. */
  readonly signInFailures: SignInFailuresRepo
  /** Provider keys, encrypted; used on PostgreSQL only (a SQLite store's are in the OS keychain). */
  readonly providerSecrets: ProviderSecretsRepo
  readonly queries: Queries

  constructor(
    private readonly sql: Sql,
    /** Tells when any process or gateway changed configuration. */
    readonly config: ConfigWatch,
    readonly records: RecordSink,
    private readonly closeConnections: () => Promise<void>,
    /** Keys' limits held in the database, where several gateways share it; null where one process holds them (SQLite). */
    readonly limits: SharedLimitStore | null = null,
    /** The connection pools' use, read when asked (metrics); none for SQLite's connections, which never wait. */
    readonly pools: () => PoolUse[] = () => [],
  ) {
    this.keys = new KeysRepo(sql)
    this.providers = new ProvidersRepo(sql)
    this.prices = new PricesRepo(sql)
    this.requests = new RequestsRepo(sql)
    this.responses = new ResponsesRepo(sql)
    this.responseCache = new ResponseCacheRepo(sql)
    this.presets = new PresetsRepo(sql)
    this.aliases = new AliasesRepo(sql)
    this.settings = new SettingsRepo(sql)
    this.ledger = new LedgerRepo(sql)
    this.users = new UsersRepo(sql)
    this.signInFailures = new SignInFailuresRepo(sql)
    this.providerSecrets = new ProviderSecretsRepo(sql)
    this.queries = new Queries(sql)
  }

  /** Resolves once the database answers a statement (a new connection when none is open), or rejects with why it does not. */
  async ping(): Promise<void> {
    await this.sql.get('SELECT 1')
  }

  /** Writes what the record writer holds, then closes every connection. */
  async close(): Promise<void> {
    await this.records.close()
    await this.config.close()
    await this.closeConnections()
  }
}
