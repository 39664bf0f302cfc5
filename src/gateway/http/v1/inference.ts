import type { FastifyInstance } from 'fastify'
import type { CoreDeps } from '../../core/runInference'
import { chatWire } from '../../wires/chat/chatWire'
import { embeddingsWire } from '../../wires/embeddings'
import { countTokensWire } from '../../wires/messages/countTokensWire'
import { messagesWire } from '../../wires/messages/messagesWire'
import type { ResponsesApi } from '../../wires/responses/responsesApi'
import { anthropicGrammar } from '../anthropicGrammar'
import { responsesGrammar } from '../responsesGrammar'
import { serveInference } from '../serveInference'

export function inferenceRoutes(app: FastifyInstance, gw: CoreDeps & { responses: ResponsesApi }): void {
  app.post('/v1/chat/completions', (req, reply) => serveInference(gw, chatWire, req, reply))
  app.post('/v1/embeddings', (req, reply) => serveInference(gw, embeddingsWire, req, reply))
  app.post('/v1/responses', (req, reply) => serveInference(gw, gw.responses.wire, req, reply, responsesGrammar))
  app.post('/v1/responses/input_tokens', (req, reply) => serveInference(gw, gw.responses.inputTokens, req, reply))
  // `?beta=true` (the SDKs' beta client) reaches the same route: Fastify matches the path alone.
  app.post('/v1/messages', (req, reply) => serveInference(gw, messagesWire, req, reply, anthropicGrammar))
  app.post('/v1/messages/count_tokens', (req, reply) => serveInference(gw, countTokensWire, req, reply, anthropicGrammar))
}
