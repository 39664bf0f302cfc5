import { playgroundPath } from '../../../contract/playground'
import { newRequestId } from '../../pipeline/requestContext'
import { forbidden } from '../adminError'
import type { AdminContext } from '../context'
import { PlaygroundSink } from '../playground/playgroundSink'
import { playgroundWires } from '../playground/playgroundWires'
import { visibleKey } from './keys'
import type { Handlers } from './types'

/**
 * The Playground runs its request through the same core as API calls, on the wire the user chose
 * (what OpenAI SDKs, Claude Code, Codex or Gemini CLI send), under one of the user's keys: the same
 * presets, policies, balance and record, the record marked as from the Playground. The body is
 * shown first, as that wire carries it; the caller's Stop ends the upstream call.
 */
export const playgroundHandlers: Handlers<'playground.chat'> = {
  async 'playground.chat'(ctx: AdminContext, input) {
    const key = await visibleKey(ctx, input.key_id)
    if (key.revoked_at !== null) throw forbidden(`key ${key.name} is revoked`)
    const use = playgroundWires[input.wire]
    const body = use.body(input)
    const id = newRequestId(ctx.gw.clock())
    ctx.emit({ type: 'request', request_id: id, wire: input.wire, path: playgroundPath(input.wire, input.model), body })
    await use.run(
      ctx.gw,
      {
        id,
        keyId: key.id,
        body,
        sent: null,
        rawHeaders: [],
        source: 'playground',
        abort: ctx.abort,
        log: ctx.gw.logger.child({ request_id: id }),
      },
      new PlaygroundSink(use.reader, id, ctx.emit),
      input.model,
    )
  },
}
