import { ApiError } from '../errors'
import { chargeBeforeDelivery, chargesBeforeDelivery, type Charge, type ChargeDeps } from '../pipeline/charge'
import type { Reservation } from '../pipeline/balances'
import { costOf, countedFree, gwBlock, replayedCost, type GwBlock } from '../pipeline/cost'
import type { RequestContext } from '../pipeline/requestContext'
import type { Target } from '../pipeline/resolveModel'
import type { Priced } from '../pricing/priceUsage'
import type { NormalizedUsage } from '../pricing/types'
import type { Admission } from '../pipeline/admit'
import type { Redactor } from '../secrets/redactor'
import type { ClientAbort } from '../upstream/clientAbort'
import type { Sink } from './sink'
import type { Delivery, Dropped } from './wire'
import type { CachedCall } from '../routing/responseCache'

/** The one price of a request's usage: nothing for a call no provider bills (token counting), else the target's rates at its time. */
export const priceOf = (target: Target, at: Date, free: boolean, usage: NormalizedUsage | null, estimated = false): Priced =>
  free ? countedFree() : costOf(target, at, usage, estimated)

/** A price with the usage it was made from. */
export type PricedUsage = Priced & { usage: NormalizedUsage | null }

/** A request's charge against its reservation, from its price (null: not priced). */
export const chargeFor = (ctx: RequestContext, reservation: Reservation, p: PricedUsage | null): Charge => ({
  reservation,
  pico: p?.pico ?? null,
  anomaly: Boolean(p?.usage?.anomaly),
  requestId: ctx.id,
  at: ctx.startedAt.getTime(),
})

/** How a call is answered, as the core tells its delivery: the fields it gives the wire, and what pricing and charging need. */
export interface DeliverySetup extends Pick<Delivery, 'target' | 'stream' | 'sink' | 'signal' | 'redactor' | 'logging'> {
  /** A call no provider bills. */
  free: boolean
  admission: Admission
  /** The call's use of the response cache: the answer it replays, or the provider's answer it keeps; null for a call that does not use it. */
  cache: CachedCall | null
}

/**
 * The core's side of one delivery: it prices the answer once, when the wire closes it, and stores
 * what must be stored before the answer's end (held writes, then a prepaid charge). What it priced
 * is the request's cost for its record.
 */
export class CallDelivery implements Delivery {
  readonly target: Target
  readonly stream: boolean
  readonly sink: Sink
  readonly signal: ClientAbort
  readonly redactor: Redactor
  readonly logging: boolean
  /** The usage the answer was closed with, and its price; null until it is closed. */
  priced: PricedUsage | null = null
  private held: Promise<unknown>[] | null = null

  constructor(
    private readonly deps: ChargeDeps,
    private readonly ctx: RequestContext,
    private readonly a: DeliverySetup,
  ) {
    this.target = a.target
    this.stream = a.stream
    this.sink = a.sink
    this.signal = a.signal
    this.redactor = a.redactor
    this.logging = a.logging
  }

  firstByte(): void {
    this.ctx.markFirstByte()
  }

  ignore(d: Dropped): void {
    this.ctx.ignore(d)
  }

  hold(write: Promise<unknown>): void {
    ;(this.held ??= []).push(write)
  }

  /**
   * The answer's price: the target's rates for `usage`; $0 for an answer the response cache
   * replayed, which notes on the request what it would have cost again.
   */
  price(usage: NormalizedUsage | null, estimated = false): Priced {
    const priced = priceOf(this.target, this.ctx.startedAt, this.a.free, usage, estimated)
    const replayed = this.a.cache?.hit
    if (!replayed) return priced
    this.ctx.responseCache = { hit: true, request_id: replayed.request_id, saved_usd: priced.cost.final_usd }
    return replayedCost(priced)
  }

  close(usage: NormalizedUsage | null, estimated = false): GwBlock {
    const priced = this.price(usage, estimated)
    this.priced = { cost: priced.cost, pico: priced.pico, usage }
    // The provider's answer is complete (every byte read): it is kept before the answer's end goes
    // out, so a repeat sent the moment the client has it finds it. A refusal keeps nothing.
    if (this.a.cache && !this.a.cache.hit) this.hold(this.a.cache.keep(this.ctx.id))
    return gwBlock(this.ctx.routing(this.target, priced.cost))
  }

  ready(): Promise<void> | null {
    if (!this.held && !chargesBeforeDelivery(this.a.admission.reservation)) return null
    return this.storeBeforeDelivery()
  }

  headers(): Record<string, string> {
    const cost = (this.priced ?? (this.a.free ? countedFree() : null))?.cost.final_usd
    // Literals, not a conditional spread: V8 (Node 20) builds a spread through a slow path, on every request.
    return cost === undefined || cost === null ? { 'x-gw-request-id': this.ctx.id } : { 'x-gw-request-id': this.ctx.id, 'x-gw-cost-usd': String(cost) }
  }

  private async storeBeforeDelivery(): Promise<void> {
    if (this.held) {
      try {
        await Promise.all(this.held)
      } catch (err) {
        throw new ApiError(503, 'server_error', `The answer could not be stored, so it is withheld: ${(err as Error).message}`, 'store_unavailable')
      }
    }
    const reservation = this.a.admission.reservation
    if (!reservation || !chargesBeforeDelivery(reservation)) return
    await chargeBeforeDelivery(this.deps, chargeFor(this.ctx, reservation, this.priced))
  }
}
