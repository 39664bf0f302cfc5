import os from 'node:os'
import path from 'node:path'
import { parseLogLevel, type LogLevel } from './log'
import type { LogRotation } from './rotatingLog'

export const APP_NAME = 'GW Gateway'

/**
 * Connections to one provider (one origin) when GW_UPSTREAM_CONNECTIONS does not say: enough for
 * a burst of 1,000 concurrent streams from local agents to start at once, and still a bound on the
 * sockets (two per stream, with the client's) a runaway script can make the gateway open.
 */
export const DEFAULT_UPSTREAM_CONNECTIONS = 1024

export interface GatewayConfig {
  host: string
  port: number
  /** Holds the log, the running gateway's announcement and, without a database URL, the SQLite store. */
  dataDir: string
  /** A PostgreSQL connection string (`postgres://…`): the store is there instead of the data dir's SQLite file. */
  databaseUrl: string | null
  /** The PostgreSQL schema the store's tables live in (created when missing); null: the connection's search_path. */
  databaseSchema: string | null
  /** Extra names accepted in the Host header besides the bound address and loopback names. */
  allowedHosts: string[]
  /** Origins allowed to call the API from a browser; empty means CORS stays off. */
  corsOrigins: string[]
  bodyLimitBytes: number
  /** How long a client may take to send a request's headers; never more than `requestTimeoutMs` (0: no limit). */
  headersTimeoutMs: number
  /** How long a client may take to send a whole request, headers and body (0: no limit). The answer is not counted. */
  requestTimeoutMs: number
  logLevel: LogLevel
  /** Where the log goes; null means standard output. */
  logFile: string | null
  /** When the log file is rotated and how many rotated files are kept; null: never (standard output, or `--log-max-size 0`). */
  logRotation: LogRotation | null
  /** Connections to each provider origin; requests beyond them wait in the gateway. */
  upstreamConnections: number
  /** The name this gateway's request records carry; null: `<host name>:<port>` (see `instanceName`). */
  instanceName: string | null
  /** Request records held in memory (the store unreachable or behind) beyond which new requests are refused with 503. */
  maxQueuedRecords: number
  /** The same bound on the memory they hold (logged bodies and a share per record), in bytes. */
  maxQueuedRecordBytes: number
  /** What the response cache's kept answers may hold in all, in bytes; the oldest go first past it. */
  responseCacheBytes: number
  /** With tracing on, send each upstream attempt's `traceparent` to the provider (off: the trace stops at the gateway). */
  tracePropagate: boolean
  /** Prometheus' `/metrics`: null while off (the default). */
  metrics: MetricsConfig | null
}

/** Where `/metrics` is served and who may read it. */
export interface MetricsConfig {
  /** A listener of its own on 127.0.0.1 at this port (0: any free one); null: the gateway's own port. */
  port: number | null
  /** The bearer token a scrape must present; null: none is asked (the Host check still applies). */
  token: string | null
}

/** The same folder Electron's app.getPath('userData') gives the desktop app, so both share one store. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir()
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_NAME)
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_NAME)
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), APP_NAME)
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

function port(value: string | number | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`port must be an integer from 0 to 65535, got "${value}"`)
  return n
}

/** A duration given in seconds (a flag or an environment variable), in milliseconds. */
function seconds(name: string, value: string | number | undefined, fallbackSeconds: number): number {
  if (value === undefined || value === '') return fallbackSeconds * 1000
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of seconds, 0 or more, got "${value}"`)
  return Math.round(n * 1000)
}

/**
 * 300 s lets a body of the default 32 MB limit arrive over a 1 Mbit/s uplink (268 s); 30 s is
 * ample for 16 KB of headers on any link, and short for a client that holds a connection by
 * sending them a byte at a time.
 */
const DEFAULT_REQUEST_TIMEOUT_S = 300
const DEFAULT_HEADERS_TIMEOUT_S = 30

function atLeastOne(value: string | number | undefined, name: string, fallback: number): number {
  return wholeAtLeastOne(value, name) ?? fallback
}

/** A whole number of at least 1, or undefined when none is given; a bad value's error names where it came from. */
export function wholeAtLeastOne(value: string | number | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, got "${value}"`)
  return n
}

/**
 * What a gateway holds for a store that cannot take its records: at about 2 KB a record (without
 * logged bodies; see recordQueue.ts) 100,000 records take about 200 MB, and 256 MB leaves room for
 * some bodies. At 1,000 requests a second that carries a gateway through 100 s of an outage.
 */
export const DEFAULT_MAX_QUEUED_RECORDS = 100_000
export const DEFAULT_MAX_QUEUED_RECORDS_MB = 256

/** The response cache's bound: room for thousands of agent turns (a long one is ~50 KB of SSE), small beside a store's records. */
export const DEFAULT_RESPONSE_CACHE_MB = 256

/**
 * A log file rotates at 10 MB and five rotated files are kept, 60 MB at most: months of a
 * desktop's log (a line is ~270 bytes, so 10 MB is ~39,000 requests), and bounded on a server,
 * whose log at 3,000 requests a second would otherwise fill a disk (and the store on it) in days.
 * A server that keeps more says so, or passes 0 to leave the file to logrotate or a shipper.
 */
export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024
export const DEFAULT_LOG_KEEP = 5

const SIZE_UNITS: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }

/**
 * A size as `--log-max-size` takes it: a number with its unit, K, M or G (1,024-based; `10M`,
 * `512K`, `1.5G`, with or without a trailing B), or 0. A bare number other than 0 is refused:
 * `10` could mean bytes or megabytes, and a log that rotates every 10 bytes is never meant.
 */
export function parseSize(value: string, name: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:([KMG])(?:I?B)?)?\s*$/i.exec(value)
  const n = m ? Number(m[1]) : NaN
  if (!m || (m[2] === undefined && n !== 0)) {
    throw new Error(`${name} must be a size with its unit, such as 10M, 512K or 1G (1,024-based), or 0 not to rotate, got "${value}"`)
  }
  return m[2] === undefined ? 0 : Math.round(n * SIZE_UNITS[m[2].toUpperCase()])
}

/** The log file's rotation from flags, else the environment, else the defaults; null when the log is not rotated. */
function logRotation(logFile: string | undefined, overrides: ConfigOverrides, env: NodeJS.ProcessEnv): LogRotation | null {
  for (const [flag, value] of [
    ['--log-max-size', overrides.logMaxSize],
    ['--log-keep', overrides.logKeep],
  ] as const) {
    if (value !== undefined && !logFile) throw new Error(`${flag} applies to a log file: give --log-file (or GW_LOG_FILE) too`)
  }
  const maxBytes =
    overrides.logMaxSize !== undefined
      ? parseSize(overrides.logMaxSize, '--log-max-size')
      : env.GW_LOG_MAX_SIZE
        ? parseSize(env.GW_LOG_MAX_SIZE, 'GW_LOG_MAX_SIZE')
        : DEFAULT_LOG_MAX_BYTES
  const keep = wholeSetting(overrides.logKeep, '--log-keep', env, 'GW_LOG_KEEP', DEFAULT_LOG_KEEP)
  return logFile && maxBytes > 0 ? { maxBytes, keep } : null
}

/** A whole number of at least 1 from its flag, else its environment variable, else `fallback`; a bad value's error names where it came from. */
function wholeSetting(flagValue: string | number | undefined, flag: string, env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  return flagValue !== undefined ? atLeastOne(flagValue, flag, fallback) : atLeastOne(env[variable], variable, fallback)
}

export interface ConfigOverrides {
  host?: string
  port?: string | number
  dataDir?: string
  databaseUrl?: string
  databaseSchema?: string
  allowedHosts?: string[]
  corsOrigins?: string[]
  bodyLimitBytes?: number
  /** In seconds, as the flag takes it. */
  headersTimeout?: string | number
  /** In seconds, as the flag takes it. */
  requestTimeout?: string | number
  logLevel?: string
  logFile?: string
  /** A size with its unit (`10M`), as the flag takes it; 0: never rotate. */
  logMaxSize?: string
  /** Rotated log files kept, as the flag takes it. */
  logKeep?: string | number
  upstreamConnections?: string | number
  instanceName?: string
  maxQueuedRecords?: string | number
  /** In megabytes, as the flag takes it. */
  maxQueuedRecordsMb?: string | number
  /** In megabytes, as the flag takes it. */
  responseCacheMb?: string | number
  /** `--metrics`: `/metrics` on the gateway's own port. */
  metrics?: boolean
  metricsPort?: string | number
  metricsToken?: string
  tracePropagate?: boolean
}

/** Flags win over environment variables, which win over defaults. */
export function resolveConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const requestTimeoutMs = seconds('request timeout', overrides.requestTimeout ?? env.GW_REQUEST_TIMEOUT_S, DEFAULT_REQUEST_TIMEOUT_S)
  const headersTimeoutMs = seconds('headers timeout', overrides.headersTimeout ?? env.GW_HEADERS_TIMEOUT_S, DEFAULT_HEADERS_TIMEOUT_S)
  const logFile = overrides.logFile ?? env.GW_LOG_FILE
  return {
    host: overrides.host ?? env.GW_HOST ?? '127.0.0.1',
    port: port(overrides.port ?? env.GW_PORT, 8787),
    dataDir: path.resolve(overrides.dataDir ?? env.GW_DATA_DIR ?? defaultDataDir(env)),
    databaseUrl: overrides.databaseUrl ?? (env.GW_DATABASE_URL || null),
    databaseSchema: schemaName(overrides.databaseSchema ?? (env.GW_DATABASE_SCHEMA || null)),
    allowedHosts: overrides.allowedHosts ?? list(env.GW_ALLOWED_HOSTS),
    corsOrigins: overrides.corsOrigins ?? list(env.GW_CORS_ORIGINS),
    bodyLimitBytes: overrides.bodyLimitBytes ?? atLeastOne(env.GW_BODY_LIMIT_MB, 'GW_BODY_LIMIT_MB', 32) * 1024 * 1024,
    requestTimeoutMs,
    // Headers are part of the request: their limit never outlasts the whole request's.
    headersTimeoutMs: requestTimeoutMs > 0 && (headersTimeoutMs === 0 || headersTimeoutMs > requestTimeoutMs) ? requestTimeoutMs : headersTimeoutMs,
    logLevel: parseLogLevel(overrides.logLevel ?? env.GW_LOG_LEVEL ?? 'info'),
    logFile: logFile ? path.resolve(logFile) : null,
    logRotation: logRotation(logFile, overrides, env),
    upstreamConnections: wholeSetting(overrides.upstreamConnections, '--upstream-connections', env, 'GW_UPSTREAM_CONNECTIONS', DEFAULT_UPSTREAM_CONNECTIONS),
    maxQueuedRecords: wholeSetting(overrides.maxQueuedRecords, '--max-queued-records', env, 'GW_MAX_QUEUED_RECORDS', DEFAULT_MAX_QUEUED_RECORDS),
    maxQueuedRecordBytes:
      wholeSetting(overrides.maxQueuedRecordsMb, '--max-queued-records-mb', env, 'GW_MAX_QUEUED_RECORDS_MB', DEFAULT_MAX_QUEUED_RECORDS_MB) * 1024 * 1024,
    responseCacheBytes: wholeSetting(overrides.responseCacheMb, '--response-cache-mb', env, 'GW_RESPONSE_CACHE_MB', DEFAULT_RESPONSE_CACHE_MB) * 1024 * 1024,
    metrics: metricsConfig(overrides, env),
    tracePropagate: overrides.tracePropagate ?? onOff('GW_TRACE_PROPAGATE', env.GW_TRACE_PROPAGATE),
    instanceName:
      overrides.instanceName !== undefined
        ? checkedInstanceName(overrides.instanceName, '--instance-name')
        : checkedInstanceName(env.GW_INSTANCE_NAME || null, 'GW_INSTANCE_NAME'),
  }
}

/** An on/off environment variable: 1, true, on or yes; 0, false, off, no or empty. */
function onOff(name: string, value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase()
  if (['1', 'true', 'on', 'yes'].includes(v)) return true
  if (['', '0', 'false', 'off', 'no'].includes(v)) return false
  throw new Error(`${name} must be 1 or 0 (true/false, on/off), got "${value}"`)
}

/**
 * Metrics are off unless asked for: `--metrics` (GW_METRICS=1) serves them on the gateway's port,
 * `--metrics-port` (GW_METRICS_PORT) on a listener of their own. A token with metrics off is a
 * mistake said at start, not a setting silently ignored.
 */
function metricsConfig(overrides: ConfigOverrides, env: NodeJS.ProcessEnv): MetricsConfig | null {
  const portGiven = overrides.metricsPort ?? (env.GW_METRICS_PORT || undefined)
  const on = overrides.metrics === true || portGiven !== undefined || onOff('GW_METRICS', env.GW_METRICS)
  const token = overrides.metricsToken ?? (env.GW_METRICS_TOKEN || null)
  if (!on) {
    if (token !== null) throw new Error('--metrics-token (GW_METRICS_TOKEN) is set but metrics are off: add --metrics or --metrics-port')
    return null
  }
  if (token !== null && token.trim() === '') throw new Error('--metrics-token must not be empty')
  return { port: portGiven === undefined ? null : port(portGiven, 0), token }
}

/** At most this many characters: a name is shown in every record's detail and offered as a filter. */
const INSTANCE_NAME_MAX = 128

/** An instance name as given: printable, without spaces at either end, at most 128 characters. */
function checkedInstanceName(value: string | null, name: string): string | null {
  if (value === null) return null
  // eslint-disable-next-line no-control-regex
  if (value.length === 0 || value.length > INSTANCE_NAME_MAX || value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new Error(`${name} must be 1 to ${INSTANCE_NAME_MAX} characters, without control characters or spaces at either end, got ${JSON.stringify(value)}`)
  }
  return value
}

/**
 * The name a gateway's request records carry, so that several gateways on one database can be
 * told apart: `--instance-name` (`GW_INSTANCE_NAME`), else `<host name>:<port>` with the port the
 * server bound; a process that serves no port (a CLI command's own gateway) is its host name.
 */
export function instanceName(config: Pick<GatewayConfig, 'instanceName'>, port: number | null): string {
  return config.instanceName ?? (port === null ? os.hostname() : `${os.hostname()}:${port}`)
}

/** A schema name as PostgreSQL takes it unquoted, lower case: it is written into SQL and a connection option. */
function schemaName(value: string | null): string | null {
  if (value === null) return null
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value)) {
    throw new Error(`--database-schema: "${value}" is not a schema name (lower-case letters, digits and _, not starting with a digit)`)
  }
  return value
}
