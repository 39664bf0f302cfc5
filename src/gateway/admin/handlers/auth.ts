import { hashPassword, verifyPassword } from '../../auth/passwords'
import { UsersRepo } from '../../store/usersRepo'
import { AdminError, conflict, forbidden, notFound } from '../adminError'
import { me, type AdminContext } from '../context'
import type { Handlers } from './types'

/** Verified against when the user name is unknown, so a wrong name costs as long as a wrong password. */
let dummyHash: Promise<string> | null = null

function startSession(ctx: AdminContext, userId: string, remember: boolean): void {
  const s = new UsersRepo(ctx.gw.db).startSession(userId, remember)
  ctx.session = { set: { ...s, remember } }
}

export const authHandlers: Handlers<'auth.status' | 'auth.setup' | 'auth.signIn' | 'auth.signOut' | 'users.list' | 'users.create' | 'users.remove'> = {
  'auth.status': (ctx) => ({ setup_required: new UsersRepo(ctx.gw.db).count() === 0, user: ctx.caller.user }),

  async 'auth.setup'(ctx, input) {
    const users = new UsersRepo(ctx.gw.db)
    if (users.count() > 0) throw conflict('the owner account exists already; sign in instead')
    const user = users.create(input.username, await hashPassword(input.password), 'admin')
    startSession(ctx, user.id, false)
    return user
  },

  async 'auth.signIn'(ctx, input) {
    const throttleKeys = [`user:${input.username.toLowerCase()}`, `address:${ctx.caller.address}`]
    const wait = ctx.throttle.reserve(throttleKeys)
    if (wait > 0) throw new AdminError(429, 'too_many_attempts', `Too many failed sign-ins; try again in ${Math.ceil(wait / 1000)} s.`)
    const users = new UsersRepo(ctx.gw.db)
    const found = users.withPassword(input.username)
    dummyHash ??= hashPassword('not a real password')
    const ok = await verifyPassword(input.password, found?.password_hash ?? (await dummyHash))
    if (!found || !ok) {
      throw new AdminError(401, 'invalid_credentials', 'Wrong user name or password.')
    }
    ctx.throttle.succeed(throttleKeys)
    startSession(ctx, found.id, input.remember)
    return { id: found.id, username: found.username, role: found.role, created_at: found.created_at }
  },

  'auth.signOut'(ctx) {
    if (ctx.caller.sessionToken) new UsersRepo(ctx.gw.db).endSession(ctx.caller.sessionToken)
    ctx.session = { clear: true }
    return { ok: true as const }
  },

  'users.list': (ctx) => new UsersRepo(ctx.gw.db).all(),

  async 'users.create'(ctx, input) {
    try {
      return new UsersRepo(ctx.gw.db).create(input.username, await hashPassword(input.password), input.role)
    } catch (err) {
      throw new AdminError(409, 'conflict', (err as Error).message, 'username')
    }
  },

  'users.remove'(ctx, input) {
    const users = new UsersRepo(ctx.gw.db)
    const target = users.byId(input.id)
    if (!target) throw notFound(`user ${input.id}`)
    if (target.id === me(ctx).id) throw forbidden('you cannot remove yourself; ask another admin')
    if (target.role === 'admin' && users.admins() <= 1) throw forbidden('the last admin cannot be removed')
    users.remove(target.id)
    return { ok: true as const }
  },
}
