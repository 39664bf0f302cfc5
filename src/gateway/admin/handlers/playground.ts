import { SseParser } from '../../upstream/sse'
import { forbidden } from '../adminError'
import type { AdminContext } from '../context'
import { visibleKey } from './keys'
import type { Handlers } from './types'

type Chunk = { choices?: Array<{ delta?: { content?: string }; finish_reason?: string | null }>; gw?: Record<string, unknown>; error?: { message: string; type: string; code: string | null } }

/**
 * The Playground sends its request through the gateway's own /v1 pipeline (in-process, no
 * network), under one of the user's keys: the same authentication rules, presets, policies,
 * balance and record as any API call, the record marked as from the Playground.
 */
export const playgroundHandlers: Handlers<'playground.chat'> = {
  async 'playground.chat'(ctx: AdminContext, input) {
    const key = visibleKey(ctx, input.key_id)
    if (key.revoked_at !== null) throw forbidden(`key ${key.name} is revoked`)
    const { key_id: _k, ...body } = input
    const res = await ctx.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', ...ctx.gw.internalHeaders(key.id) },
      payload: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    })
    const requestId = typeof res.headers['x-request-id'] === 'string' ? res.headers['x-request-id'] : null
    const stream = res.stream()
    if (res.statusCode !== 200) {
      let text = ''
      for await (const c of stream) text += c
      const error = (JSON.parse(text) as Chunk).error!
      ctx.emit({ type: 'error', request_id: requestId, status: res.statusCode, error: { message: error.message, type: error.type, code: error.code } })
      return
    }
    const parser = new SseParser()
    let finish: string | null = null
    const handle = (data: string) => {
      if (data === '[DONE]') return
      const chunk = JSON.parse(data) as Chunk
      if (chunk.error) {
        ctx.emit({ type: 'error', request_id: requestId, status: 502, error: chunk.error })
        return
      }
      for (const c of chunk.choices ?? []) {
        if (c.delta?.content) ctx.emit({ type: 'delta', content: c.delta.content })
        if (c.finish_reason) finish = c.finish_reason
      }
      if (chunk.gw) ctx.emit({ type: 'done', request_id: requestId ?? String(chunk.gw.request_id), gw: chunk.gw, finish_reason: finish })
    }
    for await (const bytes of stream) for (const ev of parser.push(Buffer.from(bytes as Buffer))) handle(ev.data)
    for (const ev of parser.end()) handle(ev.data)
  },
}
