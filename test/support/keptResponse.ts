import { randomUUID } from 'node:crypto'
import type { ResponsesRepo } from '../../src/gateway/store/responsesRepo'

const DAY = 86_400_000
const idOf = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`

/**
 * Keeps a turn as the translated Responses path does (a user's question, the model's answer),
 * made now and expiring `ttl` later (30 days unless said), continuing `previous` if given.
 */
export async function keepTurn(repo: ResponsesRepo, keyId: string, question: string, opts: { ttl?: number; previous?: string } = {}): Promise<string> {
  const now = Date.now()
  const id = idOf('resp')
  await repo.save({
    id,
    key_id: keyId,
    request_id: idOf('req'),
    previous_response_id: opts.previous ?? null,
    created_at: now,
    expires_at: now + (opts.ttl ?? 30 * DAY),
    response: {
      id,
      object: 'response',
      created_at: Math.floor(now / 1000),
      status: 'completed',
      model: 'deepseek-chat',
      previous_response_id: opts.previous ?? null,
      store: true,
      usage: { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
      output: [
        {
          id: idOf('msg'),
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `About ${question}: it depends.`, annotations: [] }],
        },
      ],
    },
    input: [{ id: idOf('msg'), type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] }],
  })
  return id
}
