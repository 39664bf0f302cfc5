import { hash, timingSafeEqual } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { ApiError } from '../errors'
import type { GatewayMetrics } from '../metrics/gatewayMetrics'
import { hostChecker } from './hostCheck'

/**
 * Whether the Authorization header is `Bearer <token>`. Both sides are hashed first, so the
 * comparison takes the same time whatever was sent, its length included.
 */
export function presentsBearer(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false
  return timingSafeEqual(hash('sha256', header.slice(7), 'buffer'), hash('sha256', token, 'buffer'))
}

const unauthorized = () =>
  new ApiError(
    401,
    'invalid_request_error',
    'Scraping /metrics needs `Authorization: Bearer <token>` with the token the gateway was started with (--metrics-token, GW_METRICS_TOKEN).',
    'invalid_metrics_token',
    null,
    { 'www-authenticate': 'Bearer' },
  )

/** `GET /metrics`: the exposition in Prometheus' text format, for the bearer of the token when one is set. */
export function metricsRoute(app: FastifyInstance, metrics: GatewayMetrics, token: string | null): void {
  app.get('/metrics', async (req, reply) => {
    if (token !== null && !presentsBearer(req.headers.authorization, token)) throw unauthorized()
    return reply
      .type(metrics.contentType)
      .header('cache-control', 'no-store')
      .send(await metrics.text())
  })
}

const HOST = '127.0.0.1'

/**
 * `/metrics` on a listener of its own (`--metrics-port`), always on 127.0.0.1: a scraper on this
 * machine, or a proxy in front, reaches it; the gateway's port may stay closed to it. The same
 * Host check as the gateway's (its allowed hosts, live from the settings) keeps browsers' DNS
 * rebinding out; nothing else is served there.
 */
export async function listenForMetrics(
  metrics: GatewayMetrics,
  options: { port: number; token: string | null; allowedHosts: () => string[] },
): Promise<{ port: number; close(): Promise<void> }> {
  const app = Fastify()
  app.addHook('onRequest', (req, _reply, done) => {
    if (hostChecker(HOST, options.allowedHosts())(req.headers.host)) return done()
    done(
      new ApiError(
        403,
        'invalid_request_error',
        `Host "${req.headers.host ?? ''}" is not allowed. Add it to GW_ALLOWED_HOSTS to reach the gateway by that name.`,
        'host_not_allowed',
      ),
    )
  })
  app.setErrorHandler((err, _req, reply) => {
    const e = err instanceof ApiError ? err : new ApiError(500, 'server_error', 'The metrics could not be read.', 'internal_error')
    return reply.code(e.status).headers(e.headers).send(e.toBody())
  })
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send(new ApiError(404, 'invalid_request_error', `Only GET /metrics is served on this port (${req.method} ${req.url}).`, 'unknown_url').toBody()),
  )
  metricsRoute(app, metrics, options.token)
  await app.listen({ host: HOST, port: options.port })
  const address = app.server.address()
  return { port: typeof address === 'object' && address ? address.port : options.port, close: () => app.close() }
}
