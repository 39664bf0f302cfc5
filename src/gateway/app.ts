import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import type { GatewayConfig } from './config'
import { ApiError } from './errors'
import type { Gateway } from './gateway'
import { hostChecker } from './http/hostCheck'
import { newRequestId } from './pipeline/requestContext'
import { chatRoutes } from './http/v1/chat'
import { embeddingsRoutes } from './http/v1/embeddings'
import { modelsRoutes } from './http/v1/models'

export const VERSION = '0.1.0'

function toApiError(err: FastifyError, config: GatewayConfig): ApiError {
  if (err instanceof ApiError) return err
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
    const mb = (config.bodyLimitBytes / 1024 / 1024).toFixed(0)
    return new ApiError(413, 'invalid_request_error', `The request body is larger than the gateway's limit of ${mb} MB.`, 'request_too_large')
  }
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError(
      400,
      'invalid_request_error',
      `We could not parse the JSON body of your request (${err.message}). Send a JSON object with \`Content-Type: application/json\`.`,
      'invalid_json',
    )
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request_error', err.message, err.code ?? null)
  }
  return new ApiError(500, 'server_error', 'The gateway had an internal error; the request id is in x-request-id.', 'internal_error')
}

/** Builds the HTTP app around a gateway; listening is the caller's business (server.ts, tests). */
export function buildApp(gw: Gateway, config: GatewayConfig): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newRequestId(),
    // Client SDKs keep connections open between calls.
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
  })
  const hostAllowed = hostChecker(config.host, config.allowedHosts)
  const routeMethods = new Map<string, string[]>()
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    routeMethods.set(route.url, [...(routeMethods.get(route.url) ?? []), ...methods])
  })

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id)
    if (!hostAllowed(req.headers.host)) {
      throw new ApiError(
        403,
        'invalid_request_error',
        `Host "${req.headers.host ?? ''}" is not allowed. Add it to GW_ALLOWED_HOSTS to reach the gateway by that name.`,
        'host_not_allowed',
      )
    }
  })
  if (config.corsOrigins.length > 0) {
    app.register(cors, {
      origin: config.corsOrigins.includes('*') ? true : config.corsOrigins,
      exposedHeaders: ['x-request-id'],
      maxAge: 600,
    })
  }
  // Tools that forget the content type (curl -d) still get their JSON read.
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string))
    } catch (err) {
      done(err as Error, undefined)
    }
  })

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const e = toApiError(err, config)
    if (e.status >= 500 && !(err instanceof ApiError)) req.log.error(err)
    reply.code(e.status).headers(e.headers).send(e.toBody())
  })
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]
    const methods =
      routeMethods.get(path) ??
      [...routeMethods.entries()].find(([url]) => url.endsWith('/*') && path.startsWith(url.slice(0, -1)))?.[1]
    if (methods) {
      const allow = [...new Set(methods.filter((m) => m !== 'HEAD'))].join(', ')
      const e = new ApiError(405, 'invalid_request_error', `Method ${req.method} is not allowed on ${path}; use ${allow}.`, 'method_not_allowed')
      return reply.code(405).header('allow', allow).send(e.toBody())
    }
    const e = new ApiError(404, 'invalid_request_error', `Invalid URL (${req.method} ${path})`, 'unknown_url')
    return reply.code(404).send(e.toBody())
  })

  app.get('/healthz', async () => ({ status: 'ok', version: VERSION }))
  chatRoutes(app, gw)
  embeddingsRoutes(app, gw)
  modelsRoutes(app, gw)
  return app
}
