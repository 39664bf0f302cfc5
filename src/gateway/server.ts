import { resolveConfig, type ConfigOverrides, type GatewayConfig } from './config'
import { Gateway, type GatewayOptions } from './gateway'
import { buildApp } from './app'

export interface RunningGateway {
  url: string
  config: GatewayConfig
  gateway: Gateway
  close(): Promise<void>
}

/** Starts the gateway and listens; used by `gw serve`, the desktop app's main process and tests. */
export async function startGateway(
  overrides: ConfigOverrides = {},
  options: Omit<GatewayOptions, 'config'> = {},
): Promise<RunningGateway> {
  const config = resolveConfig(overrides, options.env)
  const gateway = new Gateway({ ...options, config })
  const app = buildApp(gateway, config)
  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (err) {
    await gateway.close()
    throw err
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  let closing: Promise<void> | null = null
  return {
    url: `http://${host}:${port}`,
    config: { ...config, port },
    gateway,
    close: () =>
      (closing ??= (async () => {
        await app.close()
        await gateway.close()
      })()),
  }
}
