import type { FastifyReply, FastifyRequest } from 'fastify'
import { runInference, type CoreDeps } from '../core/runInference'
import type { InboundWire } from '../core/wire'
import { ClientAbort } from '../pipeline/clientAbort'
import { ReplySink } from './replySink'

/**
 * An inference route: the HTTP request described for the core, its answer on the reply. The
 * client's leaving (the connection closing before the answer was written) aborts the call.
 */
export async function serveInference<B extends Record<string, unknown>>(gw: CoreDeps, wire: InboundWire<B>, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const abort = new ClientAbort()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort()
  })
  const ctx = await runInference(
    gw,
    wire,
    {
      id: req.id,
      authorization: req.headers.authorization,
      body: req.body,
      rawBody: req.rawBody,
      rawHeaders: req.raw.rawHeaders,
      source: 'api',
      abort,
      log: req.log,
    },
    new ReplySink(reply),
  )
  // The core logged this request's line: the generic one is not added.
  if (ctx) req.inferenceLogged = true
}
