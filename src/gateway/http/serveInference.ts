import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { runInference, type CoreDeps } from '../core/runInference'
import type { InboundWire } from '../core/wire'
import { abortWhenGone } from './abortWhenGone'
import { openAIGrammar, ReplySink, type Grammar } from './replySink'

/**
 * The credential: `Authorization: Bearer`, or `x-api-key` where the wire takes it (Anthropic's: its
 * SDKs send the key there unless given an auth token).
 */
export function credentialOf(headers: IncomingHttpHeaders, apiKeyHeader: boolean): string | undefined {
  if (headers.authorization !== undefined || !apiKeyHeader) return headers.authorization
  const key = headers['x-api-key']
  return typeof key === 'string' ? `Bearer ${key}` : undefined
}

/**
 * An inference route: the HTTP request described for the core, its answer on the reply in the
 * route's grammar. The client's leaving (the connection closing before the answer was written)
 * aborts the call.
 */
export async function serveInference(
  gw: CoreDeps,
  wire: InboundWire,
  req: FastifyRequest,
  reply: FastifyReply,
  grammar: Grammar = openAIGrammar,
): Promise<void> {
  const ctx = await runInference(
    gw,
    wire,
    {
      id: req.id,
      authorization: credentialOf(req.headers, grammar.apiKeyHeader === true),
      body: req.body,
      rawBody: req.rawBody,
      rawHeaders: req.raw.rawHeaders,
      source: 'api',
      abort: abortWhenGone(reply.raw),
      log: req.log,
    },
    new ReplySink(reply, grammar),
  )
  // The core logged this request's line: the generic one is not added.
  if (ctx) req.inferenceLogged = true
}
