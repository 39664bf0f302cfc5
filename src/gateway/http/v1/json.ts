import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors'
import type { RequestContext } from '../../pipeline/requestContext'
import type { UpstreamResponse } from '../../upstream/client'
import { upstreamNetworkError } from '../../upstream/upstreamErrors'

/** What Fastify would send for an object; answers serialised by the gateway itself say the same. */
const JSON_TYPE = 'application/json; charset=utf-8'

/** The request as the client sent it, for body logging (the parser kept its text). */
export const requestText = (req: FastifyRequest): string => req.rawBody ?? JSON.stringify(req.body)

/** Sends an answer serialised here, as Fastify would, so a logged response is this very text. */
export async function sendJson(ctx: RequestContext, reply: FastifyReply, answer: unknown): Promise<void> {
  const payload = JSON.stringify(answer)
  if (ctx.bodies) ctx.bodies.response = payload
  ctx.markFirstByte()
  await reply.type(JSON_TYPE).send(payload)
}

/**
 * Reads a provider's JSON answer, telling the call's idle timeout of every read; DeepSeek may
 * send blank lines first, which JSON.parse tolerates.
 */
export async function readJson(providerId: string, upstream: UpstreamResponse): Promise<Record<string, unknown>> {
  const parts: Buffer[] = []
  try {
    for await (const bytes of upstream.body) {
      upstream.heard()
      parts.push(bytes as Buffer)
    }
  } catch (err) {
    throw upstreamNetworkError(providerId, err)
  }
  const text = parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8')
  try {
    const json = JSON.parse(text)
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json
  } catch {
    // fall through
  }
  throw new ApiError(502, 'server_error', `${providerId} answered 200 with a body that is not a JSON object`, 'upstream_error')
}
