import { notFound } from '../adminError'
import type { AdminContext } from '../context'
import type { SessionFigures } from '../../store/queries/sessionQuery'
import { scope } from './requests'
import type { Handlers } from './types'

/** A session's figures with its keys named (a revoked or deleted key keeps its id, its name null when gone). */
async function named<T extends SessionFigures>(
  ctx: AdminContext,
  sessions: T[],
): Promise<Array<Omit<T, 'key_ids'> & { keys: Array<{ id: string; name: string | null }> }>> {
  const names = new Map((await ctx.gw.store.keys.all()).map((k) => [k.id, k.name]))
  return sessions.map(({ key_ids, ...s }) => ({ ...s, keys: key_ids.map((id) => ({ id, name: names.get(id) ?? null })) }))
}

export const sessionHandlers: Handlers<'sessions.list' | 'sessions.get'> = {
  async 'sessions.list'(ctx, input) {
    // Queued records would be missing from a session a user opens while its tool is still working.
    await ctx.gw.records.flushed()
    const { items, total } = await ctx.gw.store.queries.listSessions(input, await scope(ctx))
    return { items: await named(ctx, items), total }
  },

  async 'sessions.get'(ctx, input) {
    await ctx.gw.records.flushed()
    const found = await ctx.gw.store.queries.getSession(input, await scope(ctx), ctx.gw.clock())
    if (!found) throw notFound(`session ${input.id}`)
    return { session: (await named(ctx, [found.session]))[0], cache: found.cache, requests: found.requests }
  },
}
