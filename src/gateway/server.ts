import { instanceName, resolveConfig, type ConfigOverrides, type GatewayConfig } from './config'
import { Gateway, type GatewayOptions } from './gateway'
import { buildApp, VERSION, type AppOptions } from './app'
import { AdminService } from './admin/adminService'
import { logRotationStatus } from './admin/context'
import { openLog } from './log'
import { announceRunning, newOperatorToken } from './http/api/runningGateway'
import { listenForMetrics } from './http/metricsRoute'
import { tracingConfig } from './tracing/tracingConfig'

/**
 * Connections the kernel may hold for the gateway before it accepts them (it caps this at
 * net.core.somaxconn, 4096 on current Linux). Node's default of 511 overflowed when a thousand
 * clients connected at once (coding agents fanning out): every connection past it had its SYN
 * dropped and retried by the client's kernel a second later, which set the burst's p99.
 */
const LISTEN_BACKLOG = 4096

export interface RunningGateway {
  url: string
  config: GatewayConfig
  gateway: Gateway
  admin: AdminService
  /** Where `/metrics` is served, and whether it asks for the token; null while metrics are off. */
  metrics: { url: string; token_required: boolean } | null
  close(): Promise<void>
}

/** Starts the gateway and listens; used by `gw serve`, the desktop app's main process and tests. */
export async function startGateway(
  overrides: ConfigOverrides = {},
  options: Omit<GatewayOptions, 'config' | 'logger'> & Pick<AppOptions, 'dashboardDir'> = {},
): Promise<RunningGateway> {
  const env = options.env ?? process.env
  const resolved = resolveConfig(overrides, env)
  // Before anything is opened: a protocol the gateway cannot export with stops the start in one line.
  const tracing = tracingConfig(env, resolved.tracePropagate)
  const log = openLog({ level: resolved.logLevel, file: resolved.logFile, rotation: resolved.logRotation })
  let gateway: Gateway
  try {
    gateway = await Gateway.open({ ...options, config: resolved, logger: log.logger, tracing })
  } catch (err) {
    await log.close()
    throw err
  }
  // Started with the gateway, not with the first batch: records wait on no thread start-up.
  gateway.records.start()
  // Port and bind saved from the dashboard apply from the next start, unless a flag or the
  // environment says otherwise.
  const config = {
    ...resolved,
    port: overrides.port !== undefined || env.GW_PORT ? resolved.port : gateway.settings.port,
    host: overrides.host !== undefined || env.GW_HOST ? resolved.host : gateway.settings.bind,
  }
  const admin = new AdminService(gateway, {
    base_url: '',
    version: VERSION,
    data_dir: config.dataDir,
    log_file: log.file,
    log_rotation: logRotationStatus(log.rotation),
    metrics: null,
  })
  const operatorToken = newOperatorToken()
  // Only when metrics are on does the core have an observer to tell, and is prom-client loaded: off, they cost nothing.
  const metrics = config.metrics && { ...config.metrics, metrics: new (await import('./metrics/gatewayMetrics')).GatewayMetrics(gateway) }
  if (metrics) gateway.observers.push(metrics.metrics.tallies)
  const app = buildApp(gateway, config, {
    admin,
    dashboardDir: options.dashboardDir,
    operatorToken,
    ...(metrics?.port === null && { metrics }),
  })
  let metricsListener: Awaited<ReturnType<typeof listenForMetrics>> | null = null
  try {
    await app.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG })
    if (metrics && metrics.port !== null) {
      const allowedHosts = () => [...config.allowedHosts, ...gateway.settings.allowed_hosts]
      metricsListener = await listenForMetrics(metrics.metrics, { port: metrics.port, token: metrics.token, allowedHosts })
    }
  } catch (err) {
    await app.close()
    await gateway.close()
    await log.close()
    throw err
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  // Before the first request can arrive: the default name holds the port actually bound.
  gateway.instance = instanceName(config, port)
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  let closing: Promise<void> | null = null
  const url = `http://${host}:${port}`
  const metricsAt = config.metrics && {
    url: metricsListener ? `http://127.0.0.1:${metricsListener.port}/metrics` : `${url}/metrics`,
    token_required: config.metrics.token !== null,
  }
  admin.listening(`${url}/v1`, metricsAt)
  const announced = announceRunning(config.dataDir, url, operatorToken)
  return {
    url,
    config: { ...config, port },
    gateway,
    admin,
    metrics: metricsAt,
    close: () =>
      (closing ??= (async () => {
        announced.withdraw()
        await metricsListener?.close()
        await app.close()
        await gateway.close()
        log.logger.info('stopped')
        await log.close()
      })()),
  }
}
