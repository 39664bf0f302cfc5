import { notFound } from '../adminError'
import type { AdminContext } from '../context'
import { getSession, listSessions, type SessionFigures } from '../queries/sessionQuery'
import { KeysRepo } from '../../store/keysRepo'
import { scope } from './requests'
import type { Handlers } from './types'

/** A session's figures with its keys named (a revoked or deleted key keeps its id, its name null when gone). */
function named<T extends SessionFigures>(ctx: AdminContext, sessions: T[]): Array<Omit<T, 'key_ids'> & { keys: Array<{ id: string; name: string | null }> }> {
  const names = new Map(new KeysRepo(ctx.gw.db).all().map((k) => [k.id, k.name]))
  return sessions.map(({ key_ids, ...s }) => ({ ...s, keys: key_ids.map((id) => ({ id, name: names.get(id) ?? null })) }))
}

export const sessionHandlers: Handlers<'sessions.list' | 'sessions.get'> = {
  'sessions.list'(ctx, input) {
    // Queued records would be missing from a session a user opens while its tool is still working.
    ctx.gw.records.flush()
    const { items, total } = listSessions(ctx.gw.db, input, scope(ctx))
    return { items: named(ctx, items), total }
  },

  'sessions.get'(ctx, input) {
    ctx.gw.records.flush()
    const found = getSession(ctx.gw.db, input, scope(ctx))
    if (!found) throw notFound(`session ${input.id}`)
    return { session: named(ctx, [found.session])[0], requests: found.requests }
  },
}
