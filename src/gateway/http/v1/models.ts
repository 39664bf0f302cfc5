import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Gateway } from '../../gateway'
import { invalidRequest, modelNotFound } from '../../errors'
import { anthropicGrammar } from '../anthropicGrammar'
import { isGoogleRequest } from '../errorShape'
import { geminiSseGrammar } from '../geminiGrammar'
import { openAIGrammar } from '../replySink'
import { credentialOf } from '../serveInference'
import { googleModel, googlePage, type GooglePageQuery } from './gemini'
import { findModel, listModels, type ModelEntry } from '../../core/modelList'

/** One model as Anthropic's SDKs read it; the id is the gateway's, so it is usable as `model` on /v1/messages. */
function anthropicModel(m: ModelEntry) {
  return { type: 'model', id: m.id, display_name: `${m.gw.upstream_model} (${m.gw.provider})`, created_at: new Date(m.created * 1000).toISOString() }
}

/** Anthropic's page size: 20 unless asked, 1 to 1000. */
const DEFAULT_PAGE = 20
const MAX_PAGE = 1000

type PageQuery = { limit?: unknown; after_id?: unknown; before_id?: unknown }

/**
 * A page of Anthropic's model list: newest first, `limit` models after `after_id` or just before
 * `before_id` (as its SDKs page forward with `last_id` and backward with `first_id`). Only models
 * that can be served now are listed: the list feeds model pickers.
 */
function anthropicPage(models: ModelEntry[], query: PageQuery) {
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalidRequest(`limit: Input should be an integer from 1 to ${MAX_PAGE}`, 'limit')
  const listed = models.filter((m) => m.gw.availability.available).sort((a, b) => b.created - a.created)
  const cursor = (name: 'after_id' | 'before_id') => {
    const id = query[name]
    if (id === undefined) return null
    const at = typeof id === 'string' ? listed.findIndex((m) => m.id === id) : -1
    if (at === -1) throw invalidRequest(`${name}: no model ${String(id)} in the list`, name)
    return at
  }
  const after = cursor('after_id')
  const before = cursor('before_id')
  if (after !== null && before !== null) throw invalidRequest('after_id and before_id cannot be used together', 'before_id')
  const start = before !== null ? Math.max(0, before - limit) : after !== null ? after + 1 : 0
  const end = before ?? Math.min(listed.length, start + limit)
  const data = listed.slice(start, end).map(anthropicModel)
  return { data, has_more: before !== null ? start > 0 : end < listed.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }
}

/** Where each client's SDKs put the key. */
const GRAMMARS = { anthropic: anthropicGrammar, google: geminiSseGrammar, openai: openAIGrammar }

/**
 * The model list, in OpenAI's shape with the gateway's details, in Anthropic's for an Anthropic
 * client (a request with `anthropic-version`), which may present its key in `x-api-key`, or in
 * Google's for a Google client (`x-goog-api-key`, `?key=`).
 */
export function modelsRoutes(app: FastifyInstance, gw: Gateway): void {
  /** Whose client asks: an Anthropic one sends `anthropic-version`, a Google one its key Google's way. */
  const authenticate = (req: FastifyRequest): 'anthropic' | 'google' | 'openai' => {
    const client = req.headers['anthropic-version'] !== undefined ? 'anthropic' : isGoogleRequest(req.url, req.headers) ? 'google' : 'openai'
    gw.keyIndex.authenticate(credentialOf(req.headers, GRAMMARS[client], req.query))
    return client
  }
  app.get('/v1/models', async (req) => {
    const client = authenticate(req)
    const models = await listModels(gw)
    if (client === 'anthropic') return anthropicPage(models, req.query as PageQuery)
    return client === 'google' ? googlePage(models, req.query as GooglePageQuery) : { object: 'list', data: models }
  })
  app.get('/v1/models/*', async (req) => {
    const client = authenticate(req)
    const id = decodeURIComponent((req.params as { '*': string })['*'])
    const found = await findModel(gw, id)
    if (!found) throw modelNotFound(id)
    return client === 'anthropic' ? anthropicModel(found) : client === 'google' ? googleModel(found) : found
  })
}
