import type { Sink } from '../core/sink'
import { ApiError } from '../errors'
import { gwExtension } from '../pipeline/cost'
import type { RequestContext } from '../pipeline/requestContext'
import type { UpstreamResponse } from '../upstream/client'
import { upstreamNetworkError } from '../upstream/upstreamErrors'

/**
 * Sends an answer with its `gw` block. An answer the gateway did not change goes out as the
 * provider's text (no second serialisation; numbers and key order untouched), any other is
 * serialised here as Fastify would. A logged response keeps the answer's text without the block:
 * routing and cost are the record's own fields, and the block was over half of a short answer's
 * bytes, which the record thread pays for twice (WAL and checkpoint). `withGwBlock` puts it back
 * when the body is read.
 */
export async function sendJson(ctx: RequestContext, sink: Sink, answer: Record<string, unknown>, asSent?: string): Promise<void> {
  await ctx.readyToDeliver()
  // A gateway upstream of this one may have put its own block there; ours replaces it.
  const chained = 'gw' in answer
  if (chained) delete answer.gw
  const text = asSent !== undefined && !chained ? asSent.trim() : JSON.stringify(answer)
  const gw = JSON.stringify(gwExtension(ctx))
  if (ctx.bodies) ctx.bodies.response = text
  ctx.markFirstByte()
  await sink.json(/^\{\s*\}$/.test(text) ? `{"gw":${gw}}` : `${text.slice(0, -1)},"gw":${gw}}`, gwHeaders(ctx))
}

/** The request id and cost as headers, for clients that read no body field of the gateway's (the Anthropic SDKs). */
export function gwHeaders(ctx: RequestContext): Record<string, string> {
  const cost = ctx.cost?.final_usd
  return { 'x-gw-request-id': ctx.id, ...(cost !== undefined && cost !== null && { 'x-gw-cost-usd': String(cost) }) }
}

/**
 * Reads a provider's JSON answer, telling the call's idle timeout of every read; DeepSeek may
 * send blank lines first, which JSON.parse tolerates. Listeners rather than `for await`, as the
 * stream relay reads: no async iterator and no promise per read.
 */
export function readJson(providerId: string, upstream: UpstreamResponse): Promise<{ json: Record<string, unknown>; text: string }> {
  const body = upstream.body
  const parts: Buffer[] = []
  return new Promise((resolve, reject) => {
    body.on('data', (bytes: Buffer) => {
      upstream.heard()
      parts.push(bytes)
    })
    // Stays attached once settled: a body that errors with no listener would take the process down.
    body.on('error', (err) => reject(upstreamNetworkError(providerId, err)))
    body.on('end', () => {
      try {
        resolve(parseAnswer(providerId, parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8')))
      } catch (err) {
        reject(err)
      }
    })
  })
}

function parseAnswer(providerId: string, text: string): { json: Record<string, unknown>; text: string } {
  try {
    const json = JSON.parse(text)
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return { json, text }
  } catch {
    // fall through
  }
  throw new ApiError(502, 'server_error', `${providerId} answered 200 with a body that is not a JSON object`, 'upstream_error')
}
