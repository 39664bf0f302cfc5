import type { FastifyInstance } from 'fastify'
import type { CoreDeps } from '../../core/runInference'
import { chatWire } from '../../wires/chat/chatWire'
import { embeddingsWire } from '../../wires/embeddings'
import { countTokensWire } from '../../wires/messages/countTokensWire'
import { messagesWire } from '../../wires/messages/messagesWire'
import { inputTokensWire } from '../../wires/responses/inputTokensWire'
import type { Conversations } from '../../wires/responses/conversations'
import { responsesWire } from '../../wires/responses/responsesWire'
import { anthropicGrammar } from '../anthropicGrammar'
import { responsesGrammar } from '../responsesGrammar'
import { serveInference } from '../serveInference'

export function inferenceRoutes(app: FastifyInstance, gw: CoreDeps & { conversations: Conversations }): void {
  const responses = responsesWire(gw.conversations)
  const inputTokens = inputTokensWire(gw.conversations)
  app.post('/v1/chat/completions', (req, reply) => serveInference(gw, chatWire, req, reply))
  app.post('/v1/embeddings', (req, reply) => serveInference(gw, embeddingsWire, req, reply))
  app.post('/v1/responses', (req, reply) => serveInference(gw, responses, req, reply, responsesGrammar))
  app.post('/v1/responses/input_tokens', (req, reply) => serveInference(gw, inputTokens, req, reply))
  // `?beta=true` (the SDKs' beta client) reaches the same route: Fastify matches the path alone.
  app.post('/v1/messages', (req, reply) => serveInference(gw, messagesWire, req, reply, anthropicGrammar))
  app.post('/v1/messages/count_tokens', (req, reply) => serveInference(gw, countTokensWire, req, reply, anthropicGrammar))
}
