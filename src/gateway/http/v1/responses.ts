import type { FastifyInstance } from 'fastify'
import type { Gateway } from '../../gateway'
import { notFound } from '../../errors'
import { adapterFor } from '../../providers/kinds'
import { servesResponses } from '../../providers/registry'
import { callUpstream, joinUrl, type UpstreamResponse } from '../../upstream/client'
import { upstreamNetworkError } from '../../upstream/upstreamErrors'

/**
 * `GET /v1/responses/{id}`: a response the provider stored, fetched from the provider that made it
 * (the request's record keeps the provider's id), as the provider answers it, JSON or a replayed
 * stream (`?stream=true`). Only the key that made it can fetch it: the gateway's credential would
 * otherwise let any key read whatever is stored under the provider account. Not an inference
 * call: nothing is priced or recorded.
 */
export function responsesRoutes(app: FastifyInstance, gw: Gateway): void {
  app.get('/v1/responses/:id', async (req, reply) => {
    const key = gw.keyIndex.authenticate(req.headers.authorization)
    const id = (req.params as { id: string }).id
    const made = gw.requests.madeUpstream(id)
    const provider = made && made.key_id === key.id ? gw.registry.get(made.provider) : undefined
    if (!provider || !servesResponses(provider)) throw notFound(`No response found with id '${id}' made with this key through the gateway.`)
    const adapter = adapterFor(provider.kind)
    const credential = await gw.registry.credential(provider.id)
    const query = req.url.indexOf('?')
    let res: UpstreamResponse
    try {
      res = await callUpstream(gw.registry.dispatcher(provider), {
        url: joinUrl(provider.baseUrl, `responses/${encodeURIComponent(id)}`) + (query === -1 ? '' : req.url.slice(query)),
        method: 'GET',
        headers: adapter.headers(credential?.value ?? null),
        deadlines: provider.deadlines,
      })
    } catch (err) {
      throw upstreamNetworkError(provider.id, err)
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '')
      throw adapter.httpError(provider.id, res.statusCode, text, res.headers, gw.registry.redactor)
    }
    return reply.type(String(res.headers['content-type'] ?? 'application/json')).send(res.body)
  })
}
