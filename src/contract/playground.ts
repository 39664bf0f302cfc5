import { z } from 'zod'
import { op } from './op'

/** Events of a Playground stream, in order: chunks as they arrive, then the routing and cost, or an error. */
export const playgroundEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('delta'), content: z.string() }),
  z.object({ type: z.literal('done'), request_id: z.string(), gw: z.record(z.string(), z.unknown()), finish_reason: z.string().nullable() }),
  z.object({ type: z.literal('error'), request_id: z.string().nullable(), status: z.number().int(), error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable() }) }),
])
export type PlaygroundEvent = z.infer<typeof playgroundEvent>

export const playgroundOps = {
  'playground.chat': op({
    summary: 'Send a chat request with one of your keys through the same pipeline as API calls, streaming the answer',
    access: 'user',
    stream: true,
    input: z
      .object({
        key_id: z.string(),
        model: z.string().min(1),
        messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })).min(1),
        temperature: z.number().min(0).max(2).optional(),
        top_p: z.number().min(0).max(1).optional(),
        max_tokens: z.number().int().positive().optional(),
      })
      .strict(),
    output: playgroundEvent,
  }),
}
