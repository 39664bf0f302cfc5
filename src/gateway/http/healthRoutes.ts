import type { FastifyInstance } from 'fastify'
import type { Gateway } from '../gateway'
import { VERSION } from '../version'

/**
 * `/healthz` says the process serves HTTP (liveness: it never touches the store, so a restart is
 * never ordered for a database's outage); `/readyz` says whether it can serve requests now (the
 * store answers, records are not piling up), for a load balancer to route by. No key needed;
 * the Host check applies as everywhere.
 */
export function healthRoutes(app: FastifyInstance, gw: Gateway): void {
  app.get('/healthz', async () => ({ status: 'ok', version: VERSION }))
  app.get('/readyz', async (_req, reply) => {
    const readiness = await gw.readiness.check()
    if (readiness.ready) return { status: 'ready', version: VERSION }
    return reply.code(503).send({ status: 'unavailable', reason: readiness.reason, version: VERSION })
  })
}
