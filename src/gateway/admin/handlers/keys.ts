import type { KeySummary } from '../../../contract/keys'
import { toKeyInfo, type KeyRow } from '../../store/keysRepo'
import { picoToUsdNumber, usdToPico } from '../../store/ledgerRepo'
import { conflict, forbidden, invalid, notFound } from '../adminError'
import { actorOf, isAdmin, me, type AdminContext } from '../context'
import type { Handlers } from './types'
import { startOfUtcDay, startOfUtcMonth } from '../../pipeline/balances'

/** Keys the caller may see and use: all for an admin, their own for a member. */
export async function visibleKeys(ctx: AdminContext): Promise<KeyRow[]> {
  const all = await ctx.gw.store.keys.all()
  return isAdmin(ctx) ? all : all.filter((k) => k.owner_id === me(ctx).id)
}

export async function visibleKey(ctx: AdminContext, id: string): Promise<KeyRow> {
  const key = (await visibleKeys(ctx)).find((k) => k.id === id)
  if (!key) throw notFound(`key ${id}`)
  return key
}

export async function summarize(ctx: AdminContext, row: KeyRow): Promise<KeySummary> {
  const owner = row.owner_id ? await ctx.gw.store.users.byId(row.owner_id) : undefined
  return {
    ...toKeyInfo(row),
    owner: owner ? { id: owner.id, username: owner.username } : null,
    balance_usd: row.prepaid ? picoToUsdNumber(await ctx.gw.store.ledger.balance(row.id)) : null,
  }
}

/** The key as stored now, summarized. */
const current = async (ctx: AdminContext, id: string) => summarize(ctx, (await ctx.gw.store.keys.byId(id))!)

/** Members steer their own keys' names and default presets; policies, limits and money are for admins. */
function guardControls(ctx: AdminContext, input: Record<string, unknown>): void {
  if (isAdmin(ctx)) return
  for (const field of ['policy', 'daily_limit_usd', 'monthly_limit_usd', 'balance_usd', 'owner_id']) {
    if (input[field] !== undefined) throw forbidden(`only admins set ${field} on keys`)
  }
}

async function checkPreset(ctx: AdminContext, name: string | null | undefined): Promise<void> {
  if (name && !(await ctx.gw.store.presets.get(name))) throw invalid('default_preset', `no preset named ${name}`)
}

/** A key by id, exact name or gw- prefix, among those the caller may see. */
async function findVisibleKey(ctx: AdminContext, ref: string): Promise<KeyRow> {
  let found: KeyRow | undefined
  try {
    found = await ctx.gw.store.keys.find(ref)
  } catch (err) {
    throw conflict((err as Error).message)
  }
  if (!found) throw notFound(`key "${ref}"`)
  return visibleKey(ctx, found.id)
}

export const keyHandlers: Handlers<
  'keys.list' | 'keys.find' | 'keys.get' | 'keys.create' | 'keys.update' | 'keys.revoke' | 'keys.deleteResponses' | 'keys.topUp' | 'keys.adjust'
> = {
  'keys.list': async (ctx) => Promise.all((await visibleKeys(ctx)).map((k) => summarize(ctx, k))),

  'keys.find': async (ctx, input) => summarize(ctx, await findVisibleKey(ctx, input.ref)),

  async 'keys.get'(ctx, input) {
    const key = await visibleKey(ctx, input.id)
    const ledger = ctx.gw.store.ledger
    // The figures the spend limits are checked against, queued records included.
    await ctx.gw.records.flushed()
    const now = ctx.gw.clock()
    const spent = {
      today_usd: picoToUsdNumber(await ledger.spendSince(key.id, startOfUtcDay(now))),
      month_usd: picoToUsdNumber(await ledger.spendSince(key.id, startOfUtcMonth(now))),
    }
    return {
      key: await summarize(ctx, key),
      ledger: await ledger.entries(key.id, input.ledger_limit),
      spent,
      stored_responses: await ctx.gw.store.responses.countForKey(key.id, now),
    }
  },

  async 'keys.create'(ctx, input) {
    guardControls(ctx, input)
    await checkPreset(ctx, input.default_preset)
    if (input.owner_id && !(await ctx.gw.store.users.byId(input.owner_id))) throw invalid('owner_id', 'no such user')
    const { secret, info } = await ctx.gw.store.keys.create(
      input.name,
      {
        default_preset: input.default_preset,
        policy: input.policy,
        daily_limit_usd: input.daily_limit_usd,
        monthly_limit_usd: input.monthly_limit_usd,
        response_cache_ttl_s: input.response_cache_ttl_s,
        balanceUsd: input.balance_usd,
        ownerId: input.owner_id ?? (ctx.caller.operator ? null : me(ctx).id),
      },
      actorOf(ctx),
    )
    return { secret, key: await current(ctx, info.id) }
  },

  async 'keys.update'(ctx, input) {
    guardControls(ctx, input)
    const key = await visibleKey(ctx, input.id)
    await checkPreset(ctx, input.default_preset)
    const { id: _id, ...settings } = input
    await ctx.gw.store.keys.update(key.id, settings)
    return current(ctx, key.id)
  },

  async 'keys.revoke'(ctx, input) {
    const key = await visibleKey(ctx, input.id)
    if (!(await ctx.gw.store.keys.revoke(key.id))) throw conflict(`key ${key.id} (${key.name}) was already revoked`)
    return current(ctx, key.id)
  },

  async 'keys.deleteResponses'(ctx, input) {
    const key = await visibleKey(ctx, input.id)
    return { deleted: await ctx.gw.store.responses.deleteForKey(key.id, ctx.gw.clock()) }
  },

  async 'keys.topUp'(ctx, input) {
    const key = await visibleKey(ctx, input.id)
    await ctx.gw.store.ledger.credit(key.id, usdToPico(input.amount_usd), 'top_up', actorOf(ctx), input.note ?? null)
    return current(ctx, key.id)
  },

  async 'keys.adjust'(ctx, input) {
    const key = await visibleKey(ctx, input.id)
    if (!key.prepaid) throw invalid('id', `key ${key.name} has no prepaid balance; top it up to give it one`)
    await ctx.gw.store.ledger.credit(key.id, usdToPico(input.amount_usd), 'adjustment', actorOf(ctx), input.note)
    return current(ctx, key.id)
  },
}
