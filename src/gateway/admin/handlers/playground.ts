import type { PlaygroundEvent } from '../../../contract/playground'
import { runInference } from '../../core/runInference'
import type { Sink } from '../../core/sink'
import type { ApiError } from '../../errors'
import { ClientAbort } from '../../pipeline/clientAbort'
import { newRequestId } from '../../pipeline/requestContext'
import type { Chunk } from '../../providers/adapter'
import { chatWire } from '../../wires/chat/chatWire'
import { forbidden } from '../adminError'
import type { AdminContext } from '../context'
import { visibleKey } from './keys'
import type { Handlers } from './types'

/** A chat completion's answer as Playground events: its text as it comes, then the routing and cost, or an error. */
class PlaygroundSink implements Sink {
  private started = false
  private finishReason: string | null = null

  constructor(
    private readonly requestId: string,
    private readonly emit: (event: PlaygroundEvent) => void,
  ) {}

  async json(text: string): Promise<void> {
    this.started = true
    const answer = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>; gw?: Record<string, unknown> }
    const choice = answer.choices?.[0]
    if (typeof choice?.message?.content === 'string') this.emit({ type: 'delta', content: choice.message.content })
    this.event({ choices: [{ finish_reason: choice?.finish_reason }], gw: answer.gw })
  }

  open(): void {
    this.started = true
  }

  event(data: object): void {
    const chunk = data as Chunk & { gw?: Record<string, unknown> }
    for (const c of chunk.choices ?? []) {
      if (typeof c.delta?.content === 'string' && c.delta.content !== '') this.emit({ type: 'delta', content: c.delta.content })
      if (typeof c.finish_reason === 'string') this.finishReason = c.finish_reason
    }
    if (chunk.gw) this.emit({ type: 'done', request_id: this.requestId, gw: chunk.gw, finish_reason: this.finishReason })
  }

  /** Events reach the dashboard's transport as they are emitted: nothing to wait for. */
  wait(): boolean {
    return false
  }

  end(last: object[], error: ApiError | null): void {
    for (const event of last) this.event(event)
    if (error) this.tell(error)
  }

  error(error: ApiError): void {
    if (!this.started) this.tell(error)
  }

  abandon(): void {}

  private tell(error: ApiError): void {
    this.emit({ type: 'error', request_id: this.requestId, status: error.status, error: { message: error.message, type: error.type, code: error.code } })
  }
}

/**
 * The Playground runs its request through the same core as API calls, under one of the user's
 * keys: the same presets, policies, balance and record, the record marked as from the Playground.
 */
export const playgroundHandlers: Handlers<'playground.chat'> = {
  async 'playground.chat'(ctx: AdminContext, input) {
    const key = visibleKey(ctx, input.key_id)
    if (key.revoked_at !== null) throw forbidden(`key ${key.name} is revoked`)
    const { key_id: _k, ...body } = input
    const id = newRequestId(ctx.gw.clock())
    await runInference(
      ctx.gw,
      chatWire,
      {
        id,
        keyId: key.id,
        body: { ...body, stream: true, stream_options: { include_usage: true } },
        rawBody: null,
        rawHeaders: [],
        source: 'playground',
        abort: new ClientAbort(),
        log: ctx.gw.logger.child({ request_id: id }),
      },
      new PlaygroundSink(id, ctx.emit),
    )
  },
}
