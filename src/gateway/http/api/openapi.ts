import { z } from 'zod'
import { operations } from '../../../contract'
import { VERSION } from '../../version'

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' }, status: { type: 'integer' } },
      required: ['code', 'message', 'status'],
    },
  },
  required: ['error'],
}

/** OpenAPI 3.1 for /api, generated from the contract so the document cannot drift from the code. */
export function openApiDocument() {
  const paths: Record<string, unknown> = {}
  for (const [name, op] of Object.entries(operations)) {
    const stream = 'stream' in op && op.stream
    paths[`/api/${name}`] = {
      post: {
        operationId: name,
        summary: op.summary,
        description: `Access: ${op.access}.${stream ? ' Answers text/event-stream, one `data:` event per output object.' : ''}`,
        security: op.access === 'public' ? [] : [{ session: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) } } },
        responses: {
          200: {
            description: 'OK',
            content: { [stream ? 'text/event-stream' : 'application/json']: { schema: z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any' }) } },
          },
          default: { description: 'Error', content: { 'application/json': { schema: errorSchema } } },
        },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'GW Gateway management API', version: VERSION },
    components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'gw_session' } } },
    paths,
  }
}
