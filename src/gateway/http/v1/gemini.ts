import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Gateway } from '../../gateway'
import type { CoreDeps } from '../../core/runInference'
import type { InboundWire } from '../../core/wire'
import { findModel, listModels, type ModelEntry } from '../../core/modelList'
import { invalidRequest, notFound } from '../../errors'
import { countTokensGeminiWire } from '../../wires/gemini/geminiCountWire'
import { batchEmbedContents, embedContent } from '../../wires/gemini/geminiEmbedWire'
import { generateContent, streamGenerateContent } from '../../wires/gemini/geminiWire'
import { GeminiArrayGrammar, geminiSseGrammar } from '../geminiGrammar'
import type { Grammar } from '../replySink'
import { credentialOf, serveInference } from '../serveInference'

/** Google's methods on a model, and the wire each is. */
const METHODS: Record<string, InboundWire> = {
  generateContent,
  streamGenerateContent,
  countTokens: countTokensGeminiWire,
  embedContent,
  batchEmbedContents,
}

/** A path's tail decoded; with a stray `%` (in a model's name), as it came. */
function decoded(tail: string): string {
  try {
    return decodeURIComponent(tail)
  } catch {
    return tail
  }
}

/**
 * `{model}:{method}` from the path after `models/`; the colon may come percent-encoded (`%3A`), and
 * the model may hold slashes (the gateway's `provider/model` ids).
 */
function modelAndMethod(tail: string): { model: string; method: string } {
  const path = decoded(tail)
  const colon = path.lastIndexOf(':')
  if (colon <= 0) throw notFound(`No method in models/${path}: the path is models/{model}:{method}, method one of ${Object.keys(METHODS).join(', ')}`)
  return { model: path.slice(0, colon), method: path.slice(colon + 1) }
}

function serveMethod(gw: CoreDeps, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { model, method } = modelAndMethod((req.params as { '*': string })['*'])
  const wire = METHODS[method]
  if (!wire) throw notFound(`Method ${method} is not served on models/${model} (served: ${Object.keys(METHODS).join(', ')})`)
  const sse = (req.query as { alt?: unknown }).alt === 'sse'
  const grammar: Grammar = method === 'streamGenerateContent' && !sse ? new GeminiArrayGrammar() : geminiSseGrammar
  return serveInference(gw, wire, req, reply, grammar, { model, body: req.body })
}

/** What Google's model list says of a method set: a chat model generates and counts, an embedding model embeds. */
const methodsOf = (m: ModelEntry): string[] =>
  m.gw.kind === 'embedding' ? ['embedContent', 'batchEmbedContents'] : ['generateContent', 'streamGenerateContent', 'countTokens']

/** One model as Google's API describes it; its name is the gateway's id, so it is usable in `models/{model}:generateContent`. */
export function googleModel(m: ModelEntry) {
  return {
    name: `models/${m.id}`,
    baseModelId: m.gw.upstream_model,
    version: '',
    displayName: `${m.gw.upstream_model} (${m.gw.provider})`,
    description: m.gw.status ?? '',
    ...(m.gw.context_length !== null && { inputTokenLimit: m.gw.context_length }),
    ...(m.gw.max_output_tokens !== null && { outputTokenLimit: m.gw.max_output_tokens }),
    supportedGenerationMethods: methodsOf(m),
  }
}

/** Google's page size: 50 unless asked, at most 1000. */
const DEFAULT_PAGE = 50
const MAX_PAGE = 1000

export type GooglePageQuery = { pageSize?: unknown; pageToken?: unknown }

/**
 * A page of Google's model list: the models that can be served now (the list feeds pickers), in
 * id order, `pageSize` at a time; `nextPageToken` is where the next page starts.
 */
export function googlePage(models: ModelEntry[], query: GooglePageQuery) {
  const size = query.pageSize === undefined ? DEFAULT_PAGE : Number(query.pageSize)
  if (!Number.isInteger(size) || size < 1) throw invalidRequest('pageSize: must be a positive integer', 'pageSize')
  const start = query.pageToken === undefined || query.pageToken === '' ? 0 : Number(query.pageToken)
  if (!Number.isInteger(start) || start < 0) throw invalidRequest('pageToken: not a token this list gave', 'pageToken')
  const listed = models.filter((m) => m.gw.availability.available).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const end = start + Math.min(size, MAX_PAGE)
  return { models: listed.slice(start, end).map(googleModel), ...(end < listed.length && { nextPageToken: String(end) }) }
}

/**
 * Google's generateContent API under `/v1beta` (its SDK's default) and `/v1`: the methods on a
 * model, and the model list in Google's shape. The key comes in `x-goog-api-key`, `?key=` or
 * `Authorization: Bearer`; errors are in Google's shape (errorShape.ts).
 */
export function geminiRoutes(app: FastifyInstance, gw: Gateway): void {
  for (const version of ['/v1beta', '/v1']) app.post(`${version}/models/*`, (req, reply) => serveMethod(gw, req, reply))
  const authenticate = (req: FastifyRequest) => gw.keyIndex.authenticate(credentialOf(req.headers, geminiSseGrammar, req.query))
  app.get('/v1beta/models', async (req) => {
    authenticate(req)
    return googlePage(await listModels(gw), req.query as GooglePageQuery)
  })
  app.get('/v1beta/models/*', async (req) => {
    authenticate(req)
    const id = decoded((req.params as { '*': string })['*'])
    const found = await findModel(gw, id)
    if (!found) throw notFound(`models/${id} is not found for API version v1beta, or is not served by this gateway.`)
    return googleModel(found)
  })
}
