import type { FastifyInstance } from 'fastify'
import type { CoreDeps } from '../../core/runInference'
import { chatWire } from '../../wires/chat/chatWire'
import { embeddingsWire } from '../../wires/embeddings'
import { serveInference } from '../serveInference'

export function inferenceRoutes(app: FastifyInstance, gw: CoreDeps): void {
  app.post('/v1/chat/completions', (req, reply) => serveInference(gw, chatWire, req, reply))
  app.post('/v1/embeddings', (req, reply) => serveInference(gw, embeddingsWire, req, reply))
}
