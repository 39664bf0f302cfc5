import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { pathOf } from '../log'

/**
 * One log line per request instead of Fastify's two ("incoming request", "request completed").
 * An inference request gets its line from the core (logInference), which knows the key, the
 * model, the provider and the cost. Every other request (health checks, the dashboard's API calls
 * and assets, requests refused before they reached a route) gets a short line at info when it
 * failed and at debug otherwise: monitors poll /healthz and /readyz and the dashboard polls /api, and at info
 * their successes would bury the inference lines an operator reads the log for.
 */
export class RequestLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' })
  }

  override incomingRequest(): void {}

  override requestCompleted(err: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (req.inferenceLogged) return
    const status = reply.statusCode
    const level = err || status >= 400 ? 'info' : 'debug'
    if (!(req.log as Logger).isLevelEnabled(level)) return
    req.log[level]({ method: req.method, path: pathOf(req.url), status, latency_ms: Math.round(reply.elapsedTime) }, 'request')
  }

  /** A client that goes away mid-stream is in the request's own line (outcome "aborted"). */
  override streamError(err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply): void {
    if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') reply.log.warn({ err }, 'response terminated with an error after headers were sent')
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the pipeline logged this request's line, so the generic line is not added. */
    inferenceLogged: boolean
  }
}
