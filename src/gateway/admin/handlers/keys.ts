import type { KeySummary } from '../../../contract/keys'
import { KeysRepo, toKeyInfo, type KeyRow } from '../../store/keysRepo'
import { LedgerRepo, picoToUsdNumber, usdToPico } from '../../store/ledgerRepo'
import { UsersRepo } from '../../store/usersRepo'
import { conflict, forbidden, invalid, notFound } from '../adminError'
import { actorOf, isAdmin, me, type AdminContext } from '../context'
import type { Handlers } from './types'
import { startOfUtcDay, startOfUtcMonth } from '../../pipeline/balances'

/** Keys the caller may see and use: all for an admin, their own for a member. */
export function visibleKeys(ctx: AdminContext): KeyRow[] {
  const all = new KeysRepo(ctx.gw.db).all()
  return isAdmin(ctx) ? all : all.filter((k) => k.owner_id === me(ctx).id)
}

export function visibleKey(ctx: AdminContext, id: string): KeyRow {
  const key = visibleKeys(ctx).find((k) => k.id === id)
  if (!key) throw notFound(`key ${id}`)
  return key
}

export function summarize(ctx: AdminContext, row: KeyRow): KeySummary {
  const owner = row.owner_id ? new UsersRepo(ctx.gw.db).byId(row.owner_id) : undefined
  return {
    ...toKeyInfo(row),
    owner: owner ? { id: owner.id, username: owner.username } : null,
    balance_usd: row.prepaid ? picoToUsdNumber(new LedgerRepo(ctx.gw.db).balance(row.id)) : null,
  }
}

/** Members steer their own keys' names and default presets; policies, limits and money are for admins. */
function guardControls(ctx: AdminContext, input: Record<string, unknown>): void {
  if (isAdmin(ctx)) return
  for (const field of ['policy', 'daily_limit_usd', 'monthly_limit_usd', 'balance_usd', 'owner_id']) {
    if (input[field] !== undefined) throw forbidden(`only admins set ${field} on keys`)
  }
}

function checkPreset(ctx: AdminContext, name: string | null | undefined): void {
  if (name && !ctx.gw.presetsRepo.get(name)) throw invalid('default_preset', `no preset named ${name}`)
}

/** A key by id, exact name or gw- prefix, among those the caller may see. */
function findVisibleKey(ctx: AdminContext, ref: string): KeyRow {
  let found: KeyRow | undefined
  try {
    found = new KeysRepo(ctx.gw.db).find(ref)
  } catch (err) {
    throw conflict((err as Error).message)
  }
  if (!found) throw notFound(`key "${ref}"`)
  return visibleKey(ctx, found.id)
}

export const keyHandlers: Handlers<
  'keys.list' | 'keys.find' | 'keys.get' | 'keys.create' | 'keys.update' | 'keys.revoke' | 'keys.deleteResponses' | 'keys.topUp' | 'keys.adjust'
> = {
  'keys.list': (ctx) => visibleKeys(ctx).map((k) => summarize(ctx, k)),

  'keys.find': (ctx, input) => summarize(ctx, findVisibleKey(ctx, input.ref)),

  async 'keys.get'(ctx, input) {
    const key = visibleKey(ctx, input.id)
    const ledger = new LedgerRepo(ctx.gw.db)
    // The figures the spend limits are checked against, queued records included.
    await ctx.gw.records.flushed()
    const now = ctx.gw.clock()
    const spent = { today_usd: ledger.spendSince(key.id, startOfUtcDay(now)), month_usd: ledger.spendSince(key.id, startOfUtcMonth(now)) }
    return {
      key: summarize(ctx, key),
      ledger: ledger.entries(key.id, input.ledger_limit),
      spent,
      stored_responses: ctx.gw.responses.countForKey(key.id, now),
    }
  },

  'keys.create'(ctx, input) {
    guardControls(ctx, input)
    checkPreset(ctx, input.default_preset)
    if (input.owner_id && !new UsersRepo(ctx.gw.db).byId(input.owner_id)) throw invalid('owner_id', 'no such user')
    const { secret, info } = new KeysRepo(ctx.gw.db).create(
      input.name,
      {
        default_preset: input.default_preset,
        policy: input.policy,
        daily_limit_usd: input.daily_limit_usd,
        monthly_limit_usd: input.monthly_limit_usd,
        balanceUsd: input.balance_usd,
        ownerId: input.owner_id ?? (ctx.caller.operator ? null : me(ctx).id),
      },
      actorOf(ctx),
    )
    return { secret, key: summarize(ctx, new KeysRepo(ctx.gw.db).byId(info.id)!) }
  },

  'keys.update'(ctx, input) {
    guardControls(ctx, input)
    const key = visibleKey(ctx, input.id)
    checkPreset(ctx, input.default_preset)
    const { id: _id, ...settings } = input
    new KeysRepo(ctx.gw.db).update(key.id, settings)
    return summarize(ctx, new KeysRepo(ctx.gw.db).byId(key.id)!)
  },

  'keys.revoke'(ctx, input) {
    const key = visibleKey(ctx, input.id)
    if (!new KeysRepo(ctx.gw.db).revoke(key.id)) throw conflict(`key ${key.id} (${key.name}) was already revoked`)
    return summarize(ctx, new KeysRepo(ctx.gw.db).byId(key.id)!)
  },

  'keys.deleteResponses'(ctx, input) {
    const key = visibleKey(ctx, input.id)
    const { db, responses } = ctx.gw
    // The answer is the count keys.get showed: expired responses go too, but were already gone to
    // clients and are not counted.
    return db.transaction(() => {
      const deleted = responses.countForKey(key.id, ctx.gw.clock())
      responses.deleteForKey(key.id)
      return { deleted }
    })()
  },

  'keys.topUp'(ctx, input) {
    const key = visibleKey(ctx, input.id)
    new LedgerRepo(ctx.gw.db).credit(key.id, usdToPico(input.amount_usd), 'top_up', actorOf(ctx), input.note ?? null)
    return summarize(ctx, new KeysRepo(ctx.gw.db).byId(key.id)!)
  },

  'keys.adjust'(ctx, input) {
    const key = visibleKey(ctx, input.id)
    if (!key.prepaid) throw invalid('id', `key ${key.name} has no prepaid balance; top it up to give it one`)
    new LedgerRepo(ctx.gw.db).credit(key.id, usdToPico(input.amount_usd), 'adjustment', actorOf(ctx), input.note)
    return summarize(ctx, new KeysRepo(ctx.gw.db).byId(key.id)!)
  },
}
