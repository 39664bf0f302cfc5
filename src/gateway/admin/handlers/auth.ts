import { hashPassword, verifyPassword } from '../../auth/passwords'
import { AdminError, conflict, forbidden, notFound } from '../adminError'
import { me, type AdminContext } from '../context'
import type { Handlers } from './types'

/** Verified against when the user name is unknown, so a wrong name costs as long as a wrong password. */
let dummyHash: Promise<string> | null = null

async function startSession(ctx: AdminContext, userId: string, remember: boolean): Promise<void> {
  const s = await ctx.gw.store.users.startSession(userId, remember)
  ctx.session = { set: { ...s, remember } }
}

export const authHandlers: Handlers<'auth.status' | 'auth.setup' | 'auth.signIn' | 'auth.signOut' | 'users.list' | 'users.create' | 'users.remove'> = {
  'auth.status': async (ctx) => ({ setup_required: (await ctx.gw.store.users.count()) === 0, user: ctx.caller.user }),

  async 'auth.setup'(ctx, input) {
    const users = ctx.gw.store.users
    if ((await users.count()) > 0) throw conflict('the owner account exists already; sign in instead')
    const user = await users.create(input.username, await hashPassword(input.password), 'admin')
    await startSession(ctx, user.id, false)
    return user
  },

  async 'auth.signIn'(ctx, input) {
    const throttleKeys = [`user:${input.username.toLowerCase()}`, `address:${ctx.caller.address}`]
    const wait = await ctx.throttle.reserve(throttleKeys)
    if (wait > 0) throw new AdminError(429, 'too_many_attempts', `Too many failed sign-ins; try again in ${Math.ceil(wait / 1000)} s.`)
    const found = await ctx.gw.store.users.withPassword(input.username)
    dummyHash ??= hashPassword('not a real password')
    const ok = await verifyPassword(input.password, found?.password_hash ?? (await dummyHash))
    if (!found || !ok) {
      throw new AdminError(401, 'invalid_credentials', 'Wrong user name or password.')
    }
    await ctx.throttle.succeed(throttleKeys)
    await startSession(ctx, found.id, input.remember)
    return { id: found.id, username: found.username, role: found.role, created_at: found.created_at }
  },

  async 'auth.signOut'(ctx) {
    if (ctx.caller.sessionToken) await ctx.gw.store.users.endSession(ctx.caller.sessionToken)
    ctx.session = { clear: true }
    return { ok: true as const }
  },

  'users.list': (ctx) => ctx.gw.store.users.all(),

  async 'users.create'(ctx, input) {
    try {
      return await ctx.gw.store.users.create(input.username, await hashPassword(input.password), input.role)
    } catch (err) {
      throw new AdminError(409, 'conflict', (err as Error).message, 'username')
    }
  },

  async 'users.remove'(ctx, input) {
    const users = ctx.gw.store.users
    const target = await users.byId(input.id)
    if (!target) throw notFound(`user ${input.id}`)
    if (target.id === me(ctx).id) throw forbidden('you cannot remove yourself; ask another admin')
    if (target.role === 'admin' && (await users.admins()) <= 1) throw forbidden('the last admin cannot be removed')
    await users.remove(target.id)
    return { ok: true as const }
  },
}
