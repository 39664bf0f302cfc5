import fs from 'node:fs'
import path from 'node:path'
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import cors from '@fastify/cors'
import fastifyStatic from '@fastify/static'
import type { AdminService } from './admin/adminService'
import { apiRoutes } from './http/api/routes'
import type { GatewayConfig } from './config'
import { assertBoundedJson } from './boundedJson'
import { ApiError } from './errors'
import type { Gateway } from './gateway'
import { hostChecker } from './http/hostCheck'
import { healthRoutes } from './http/healthRoutes'
import { clientErrorHandler } from './http/clientError'
import { errorReply, requestIdHeaders } from './http/errorShape'
import { RequestLog } from './http/requestLog'
import { newRequestId } from './pipeline/requestContext'
import { inferenceRoutes } from './http/v1/inference'
import { geminiRoutes } from './http/v1/gemini'
import { modelsRoutes } from './http/v1/models'
import { responsesRoutes } from './http/v1/responses'
import { metricsRoute } from './http/metricsRoute'
import type { GatewayMetrics } from './metrics/gatewayMetrics'

const patterns = new Map<string, RegExp>()
/** A route's URL as a regular expression over request paths, made once per URL. */
function routePattern(url: string): RegExp {
  let re = patterns.get(url)
  if (!re) {
    const body = url
      .split('/')
      .map((seg) => (seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')
    re = new RegExp(`^${body}$`)
    patterns.set(url, re)
  }
  return re
}

export { VERSION } from './version'

/** Where `electron-vite build` puts the dashboard. */
export const defaultDashboardDir = path.resolve(import.meta.dirname, '../../out/renderer')

export interface AppOptions {
  admin?: AdminService
  /** The built dashboard to serve at `/`; absent or missing means no dashboard over HTTP. */
  dashboardDir?: string
  /** Makes a management call the local operator's (see http/api/runningGateway.ts). */
  operatorToken?: string
  /** Serves `/metrics` on this app (`--metrics` without a port of its own); absent: a 404 there. */
  metrics?: { metrics: GatewayMetrics; token: string | null }
}

/** Headers for the dashboard's pages: no inline scripts, no framing, no sniffing. */
const DASHBOARD_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

/** Node's own default, set explicitly so a `--max-http-header-size` flag cannot raise it unnoticed. */
const MAX_HEADER_BYTES = 16 * 1024

/** How often Node checks connections against the timeouts: often enough to keep them to about a tenth. */
function timeoutCheckMs(config: GatewayConfig): number {
  const shortest = Math.min(...[config.headersTimeoutMs, config.requestTimeoutMs].filter((ms) => ms > 0))
  return Math.max(10, Math.min(1000, Math.ceil(shortest / 10)))
}

/** Fastify's refusals of a malformed request, said in the gateway's words: [status, code, message]. */
const FRAMEWORK_REFUSALS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    'unsupported_media_type',
    'The Content-Type header is not a media type. Send the body as JSON with `Content-Type: application/json`.',
  ],
  FST_ERR_BAD_URL: [400, 'invalid_url', 'The URL path is not valid percent-encoding.'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'uri_too_long', 'A segment of the URL path is longer than 100 characters.'],
}

const withRequestId = (req: FastifyRequest, reply: FastifyReply): FastifyReply => reply.headers(requestIdHeaders(req.url, req.headers, req.id))

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
  const refusal = err.code ? FRAMEWORK_REFUSALS[err.code] : undefined
  if (refusal) return new ApiError(refusal[0], 'invalid_request_error', refusal[2], refusal[1])
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request_error', err.message, err.code ?? null)
  }
  return new ApiError(500, 'server_error', 'The gateway had an internal error; the request id is in x-request-id.', 'internal_error')
}

/** Builds the HTTP app around a gateway; listening is the caller's business (server.ts, tests). */
export function buildApp(gw: Gateway, config: GatewayConfig, options: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    // The gateway's own logger, typed as Fastify's view of it so routes keep the default types.
    loggerInstance: gw.logger as FastifyBaseLogger,
    logController: new RequestLog(),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newRequestId(gw.clock()),
    // Client SDKs keep connections open between calls.
    keepAliveTimeout: 65_000,
    // Requests that arrive while the server closes get their 503 from the onRequest hook, in the
    // route's shape with a request id, not Fastify's bare one.
    return503OnClosing: false,
    // Slow or stalled requests are cut (408); the answer, however long it streams, is not counted.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: timeoutCheckMs(config),
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node would answer a request without Host itself, bare; the Host check refuses it instead,
      // in the route's shape.
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler({
      maxHeaderBytes: MAX_HEADER_BYTES,
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
    }),
    // A path the router cannot decode or a parameter over its length: before any hook, so the
    // request id is set here.
    frameworkErrors: (err, req, reply) => sendError(err, req, withRequestId(req, reply)),
  })
  app.decorateRequest('inferenceLogged', false)
  // Allowed hosts and CORS origins come from start-up flags plus the dashboard's settings, and
  // follow the settings live: the checker is rebuilt whenever they change.
  let hostAllowed = hostChecker(config.host, config.allowedHosts)
  let hostSource: string[] = []
  const allowHost = (host: string | undefined) => {
    if (gw.settings.allowed_hosts !== hostSource) {
      hostSource = gw.settings.allowed_hosts
      hostAllowed = hostChecker(config.host, [...config.allowedHosts, ...hostSource])
    }
    return hostAllowed(host)
  }
  const corsOrigins = () => [...config.corsOrigins, ...gw.settings.cors_origins]
  const routeMethods = new Map<string, string[]>()
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    routeMethods.set(route.url, [...(routeMethods.get(route.url) ?? []), ...methods])
  })
  /** The methods of every route whose pattern (`:param` one segment, `*` the rest) takes `path`: a wrong method there is a 405, not a 404. */
  const methodsMatching = (path: string): string[] => [...routeMethods].flatMap(([url, methods]) => (routePattern(url).test(path) ? methods : []))

  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  // A callback hook, not an async one: no promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    withRequestId(req, reply)
    if (closing) {
      reply.header('connection', 'close')
      return done(new ApiError(503, 'server_error', 'The gateway is shutting down; retry in a moment.', 'shutting_down'))
    }
    // The one configuration check per request: keys, presets, prices and settings changed by any
    // process apply from here on (a reload, when one is due, is waited for: no promise otherwise).
    const reloading = gw.refreshing()
    if (reloading) return void reloading.then(() => admitHost(req, done), done)
    admitHost(req, done)
  })
  const admitHost = (req: FastifyRequest, done: (err?: Error) => void) => {
    if (!allowHost(req.headers.host)) {
      const host = req.headers.host ?? ''
      return done(
        new ApiError(
          403,
          'invalid_request_error',
          `Host "${host}" is not allowed. Add it to GW_ALLOWED_HOSTS to reach the gateway by that name.`,
          'host_not_allowed',
        ),
      )
    }
    done()
  }
  app.register(cors, {
    // No origin configured: no CORS headers at all, so browsers keep other sites out.
    origin: (origin, cb) => {
      // API clients send no Origin: nothing to decide.
      if (origin === undefined) return cb(null, false)
      const allowed = corsOrigins()
      cb(null, allowed.includes('*') || allowed.includes(origin) ? origin : false)
    },
    exposedHeaders: ['x-request-id'],
    maxAge: 600,
  })
  // Every body is read by Fastify's own JSON parser (it refuses prototype poisoning) and its text
  // is kept, so body logging stores exactly what the client sent without serialising it again.
  // Each parsed body is checked once for what the gateway cannot carry (nesting deeper than the
  // stack can serialise, numbers beyond a double), so no later stage meets it.
  const defaultParser = app.getDefaultJsonParser('error', 'error')
  const parseJson: typeof defaultParser = (req, body, done) => {
    // The text kept is the text parsed, without a byte-order mark (U+FEFF), which the parser would
    // drop itself: the provider may be sent this text (core/clientText.ts).
    const text = body as string
    req.rawBody = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
    defaultParser(req, req.rawBody, (err, value) => {
      if (err) return done(err)
      try {
        assertBoundedJson(value)
      } catch (refusal) {
        return done(refusal as ApiError)
      }
      done(null, value)
    })
  }
  app.decorateRequest('rawBody', null)
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
  // Tools that forget the content type (curl -d) still get their JSON read.
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined)
    parseJson(req, body as string, done)
  })

  function sendError(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
    const e = toApiError(err, config)
    if (e.status >= 500 && !(err instanceof ApiError)) req.log.error(err)
    return sendApiError(req.url, req, reply, e)
  }
  /** An error in the shape of the route `url` belongs to (and, on the model list, of the client asking). */
  function sendApiError(url: string, req: FastifyRequest, reply: FastifyReply, e: ApiError) {
    const { status, headers, body } = errorReply(url, req.headers, e)
    return reply.code(status).headers(headers).send(body)
  }
  app.setErrorHandler(sendError)
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]
    // HEAD rides with GET, and CORS answers OPTIONS on every path: neither makes a path a route.
    const methods = (routeMethods.get(path) ?? methodsMatching(path)).filter((m) => m !== 'HEAD' && m !== 'OPTIONS')
    if (methods.length) {
      const allow = [...new Set(methods)].join(', ')
      const e = new ApiError(405, 'invalid_request_error', `Method ${req.method} is not allowed on ${path}; use ${allow}.`, 'method_not_allowed')
      return sendApiError(path, req, reply.header('allow', allow), e)
    }
    return sendApiError(path, req, reply, new ApiError(404, 'invalid_request_error', `Invalid URL (${req.method} ${path})`, 'unknown_url'))
  })

  healthRoutes(app, gw)
  inferenceRoutes(app, gw)
  modelsRoutes(app, gw)
  responsesRoutes(app, gw)
  geminiRoutes(app, gw)
  if (options.metrics) metricsRoute(app, options.metrics.metrics, options.metrics.token)
  if (options.admin) apiRoutes(app, options.admin, options.operatorToken)
  const dashboard = options.dashboardDir ?? defaultDashboardDir
  if (options.admin && fs.existsSync(path.join(dashboard, 'index.html'))) {
    app.register(fastifyStatic, {
      root: dashboard,
      index: 'index.html',
      wildcard: false,
      setHeaders: (res, file) => {
        if (file.endsWith('.html')) for (const [k, v] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(k, v)
        else res.setHeader('x-content-type-options', 'nosniff')
      },
    })
  }
  return app
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's text as received, when it was JSON. */
    rawBody: string | null
  }
}
