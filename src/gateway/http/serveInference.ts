import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { runInference, type CoreDeps } from '../core/runInference'
import type { InboundWire } from '../core/wire'
import { abortWhenGone } from './abortWhenGone'
import { openAIGrammar, ReplySink, type Grammar } from './replySink'

/**
 * The credential: `Authorization: Bearer`; else the wire's key header where it has one (Anthropic's
 * SDKs send the key in `x-api-key` unless given an auth token, Google's in `x-goog-api-key`); else
 * `?key=` where the wire takes it (Google's). The query is never logged: log lines carry the path alone.
 */
export function credentialOf(headers: IncomingHttpHeaders, grammar: Pick<Grammar, 'apiKeyHeader' | 'queryKey'>, query?: unknown): string | undefined {
  if (headers.authorization !== undefined || !grammar.apiKeyHeader) return headers.authorization
  const key = headers[grammar.apiKeyHeader] ?? (grammar.queryKey ? (query as { key?: unknown } | undefined)?.key : undefined)
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
  /** What the wire reads, where it is more than the body (Google's model and method are in the path). */
  body: unknown = req.body,
): Promise<void> {
  const ctx = await runInference(
    gw,
    wire,
    {
      id: req.id,
      authorization: credentialOf(req.headers, grammar, req.query),
      body,
      sent: req.rawBody === null ? null : { text: req.rawBody, json: req.body },
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
