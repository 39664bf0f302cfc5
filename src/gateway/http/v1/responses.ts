import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Gateway } from '../../gateway'
import { retrieveProviderResponse } from '../../core/providerResponses'
import { invalidRequest } from '../../errors'
import { ClientAborted } from '../../routing/sendToProvider'
import type { KeyRow } from '../../store/keysRepo'
import { abortWhenGone } from '../abortWhenGone'

type Obj = Record<string, unknown>

/** One page of a response's input items, as OpenAI lists them: newest first unless `order=asc`, 20 unless `limit` says, after the `after` id. */
function page(items: Obj[], query: Record<string, unknown>): Obj {
  const limit = query.limit === undefined ? 20 : Number(query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidRequest("Invalid 'limit': expected an integer from 1 to 100.", 'limit', 'invalid_value')
  const order = query.order ?? 'desc'
  if (order !== 'asc' && order !== 'desc') throw invalidRequest("Invalid 'order': expected 'asc' or 'desc'.", 'order', 'invalid_value')
  const ordered = order === 'asc' ? items : [...items].reverse()
  let start = 0
  if (typeof query.after === 'string' && query.after !== '') {
    const at = ordered.findIndex((i) => i.id === query.after)
    if (at === -1) throw invalidRequest(`Invalid 'after': no input item of this response has the id '${query.after}'.`, 'after', 'invalid_value')
    start = at + 1
  }
  const data = ordered.slice(start, start + limit)
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length }
}

/**
 * A response a provider keeps, from the provider that made it (`retrieveProviderResponse`), sent
 * on as it comes. The client's leaving ends the provider call; then nothing is answered.
 */
async function askProvider(gw: Gateway, key: KeyRow, req: FastifyRequest, reply: FastifyReply, id: string, tail: '' | '/input_items'): Promise<FastifyReply> {
  const query = req.url.indexOf('?')
  try {
    const sources = { routing: gw.routing, cooldown: gw.cooldown, registry: gw.registry, conversations: gw.responses.conversations, clock: gw.clock }
    const kept = await retrieveProviderResponse(
      sources,
      key.id,
      id,
      { method: req.method as 'GET' | 'DELETE', tail, query: query === -1 ? '' : req.url.slice(query) },
      abortWhenGone(reply.raw),
    )
    return reply.type(kept.contentType).send(kept.body)
  } catch (err) {
    if (err instanceof ClientAborted) return reply.hijack()
    throw err
  }
}

/**
 * `GET` and `DELETE /v1/responses/{id}` and `GET /v1/responses/{id}/input_items`, for the
 * caller's own responses: those the gateway answered on a translated path from its store, those a
 * provider keeps from that provider. An id of another key's response is not found, as an unknown one.
 */
export function responsesRoutes(app: FastifyInstance, gw: Gateway): void {
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id

  app.get('/v1/responses/:id', async (req, reply) => {
    const key = gw.keyIndex.authenticate(req.headers.authorization)
    const id = idOf(req)
    const kept = await gw.store.responses.get(id, key.id, gw.clock())
    if (!kept) return askProvider(gw, key, req, reply, id, '')
    if ((req.query as Obj).stream === 'true') {
      throw invalidRequest('A response the gateway answered on a translated path is kept whole, not as its stream; fetch it without stream=true.', 'stream')
    }
    return kept
  })

  app.delete('/v1/responses/:id', async (req, reply) => {
    const key = gw.keyIndex.authenticate(req.headers.authorization)
    const id = idOf(req)
    if (!(await gw.store.responses.delete(id, key.id, gw.clock()))) return askProvider(gw, key, req, reply, id, '')
    return { id, object: 'response.deleted', deleted: true }
  })

  app.get('/v1/responses/:id/input_items', async (req, reply) => {
    const key = gw.keyIndex.authenticate(req.headers.authorization)
    const id = idOf(req)
    const items = await gw.store.responses.inputItems(id, key.id, gw.clock())
    if (!items) return askProvider(gw, key, req, reply, id, '/input_items')
    return page(items, req.query as Obj)
  })
}
