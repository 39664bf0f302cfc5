import type { KeyPolicy, KeySummary } from '../../../contract/keys'
import { globMatch } from '../../pipeline/enforcePolicy'
import { lookupModel, targetName } from '../../pipeline/resolveModel'
import { softCapModelProblem } from '../../pipeline/softCap'
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

/**
 * A soft cap must have a limit to be near, and a model it can send requests to: a priced chat
 * model the key's own policy allows (its providers and models). `limits` are the key's spend
 * limits as they will be; `model` says whether the cap's model was given now (a change of the
 * limits alone checks that it still has one).
 */
function checkSoftCap(ctx: AdminContext, policy: KeyPolicy, limits: { daily: number | null; monthly: number | null }, model: boolean): void {
  const cap = policy.soft_cap
  if (!cap) return
  if (limits.daily === null && limits.monthly === null && policy.max_session_usd === undefined) {
    throw invalid('policy.soft_cap', 'needs a spend limit to be near: set daily_limit_usd, monthly_limit_usd or policy.max_session_usd')
  }
  if (!model) return
  const field = 'policy.soft_cap.model'
  const found = lookupModel(ctx.gw.registry, ctx.gw.priceBook, cap.model)
  if (!found) throw invalid(field, `unknown model "${cap.model}"; use \`<provider>/<model>\` or a model from GET /v1/models`)
  const problem = softCapModelProblem(found)
  if (problem) throw invalid(field, problem)
  const id = targetName(found)
  if (policy.allowed_providers && !policy.allowed_providers.some((g) => globMatch(g, found.provider.id))) {
    throw invalid(field, `the key's policy does not allow provider ${found.provider.id} (allowed_providers)`)
  }
  if (policy.allowed_models && !policy.allowed_models.some((g) => globMatch(g, id) || globMatch(g, found.upstreamModel) || globMatch(g, cap.model))) {
    throw invalid(field, `the key's policy does not allow ${id} (allowed_models)`)
  }
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
    if (input.policy) checkSoftCap(ctx, input.policy, { daily: input.daily_limit_usd ?? null, monthly: input.monthly_limit_usd ?? null }, true)
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
    checkSoftCap(
      ctx,
      input.policy ?? (JSON.parse(key.policy) as KeyPolicy),
      {
        daily: input.daily_limit_usd === undefined ? key.daily_limit_usd : input.daily_limit_usd,
        monthly: input.monthly_limit_usd === undefined ? key.monthly_limit_usd : input.monthly_limit_usd,
      },
      // The cap's model is checked when the cap changes, not on every change of the key.
      input.policy !== undefined && JSON.stringify(input.policy.soft_cap) !== JSON.stringify((JSON.parse(key.policy) as KeyPolicy).soft_cap),
    )
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
