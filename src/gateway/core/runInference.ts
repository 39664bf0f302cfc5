import type { Logger } from 'pino'
import type { Preset } from '../../contract/presets'
import type { Settings } from '../../contract/settings'
import { ApiError } from '../errors'
import { admit, policyRefusal, type AdmitDeps } from '../pipeline/admit'
import { resolveAttribution } from '../pipeline/attribution'
import type { KeyIndex } from '../pipeline/authenticate'
import { chargeBeforeDelivery, chargesBeforeDelivery, settleCharge } from '../pipeline/charge'
import type { ClientAbort } from '../upstream/clientAbort'
import { pricedIfSentNowhere } from '../pipeline/cost'
import { RequestContext } from '../pipeline/requestContext'
import { resolveModel, type ModelSources, type Target } from '../pipeline/resolveModel'
import { steer } from '../pipeline/resolvePreset'
import type { AliasTable } from '../pipeline/aliases'
import { ClientAborted } from '../routing/sendToProvider'
import { candidatesFor } from '../routing/candidates'
import { route, type RoutingDeps } from '../routing/route'
import type { KeyRow } from '../store/keysRepo'
import type { RecordSink } from '../store/store'
import { logInference } from './inferenceLog'
import type { RecordBackpressure } from './recordBackpressure'
import type { Sink } from './sink'
import type { Finished, InboundWire } from './wire'
import { requestedTier } from '../pricing/tiers'

/** nginx's convention for "client closed the request": no response was ever sent. */
export const CLIENT_CLOSED = 499

/** One inference call, as any transport describes it. */
export interface InferenceCall {
  /** The request id, in the answer and the record. */
  id: string
  /** The credential the caller presented (an `Authorization` header's value)… */
  authorization?: string
  /** …or the id of a key a signed-in user chose and the dashboard checked (the Playground). */
  keyId?: string
  /** The body as parsed, in its inbound wire. */
  body: unknown
  /** Its text as received, for body logging; serialised from `body` only when logging needs it and there is none. */
  rawBody: string | null
  /** Header names and values in order, for `X-Gw-*` attribution. */
  rawHeaders: string[]
  source: 'api' | 'playground'
  /** Fires when the caller goes away; the provider call is aborted with it. */
  abort: ClientAbort
  /** The request's logger (bound to its id). */
  log: Pick<Logger, 'info' | 'error'>
}

/** What the core reads of the gateway: configuration in memory, the stages' state, the record writer. */
export interface CoreDeps extends ModelSources, RoutingDeps, AdmitDeps {
  keyIndex: KeyIndex
  presets: Map<string, Preset>
  aliases: AliasTable
  settings: Settings
  records: RecordSink
  /** The gateway's name, which its records carry. */
  instance: string
  backpressure: Pick<RecordBackpressure, 'refusal'>
}

/**
 * Runs one inference call through the pipeline (authenticate → attribution → preset → policy
 * and balance → route → the wire's answer and cost) and records it, whatever happens: the record
 * is written for every call that passed authentication (success, caller error, provider failure,
 * client abort). The call's abort ends the upstream call the moment its client goes away. A
 * prepaid charge is in the ledger before the end of the answer goes out (`beforeDelivery`), or
 * at the latest here, before the record is queued. Resolves to the request's context, or null
 * when authentication or the records' backpressure refused it (nothing recorded; the transport
 * logs it).
 */
export async function runInference<B extends Record<string, unknown>>(
  gw: CoreDeps,
  wire: InboundWire<B>,
  call: InferenceCall,
  sink: Sink,
): Promise<RequestContext | null> {
  let key: KeyRow
  try {
    key = call.keyId !== undefined ? gw.keyIndex.authenticateById(call.keyId) : gw.keyIndex.authenticate(call.authorization)
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    sink.error(err)
    return null
  }
  // Before anything is spent on it: while the records held for the store reach their bound, a
  // request is refused, not recorded (see RecordBackpressure).
  const refused = gw.backpressure.refusal()
  if (refused) {
    sink.error(refused)
    return null
  }
  const ctx = new RequestContext(call.id, wire.endpoint, key)
  ctx.source = call.source
  let finished: Finished
  try {
    finished = await serve(gw, wire, call, ctx, sink)
  } catch (err) {
    if (err instanceof ClientAborted || call.abort.aborted) {
      finished = { status: CLIENT_CLOSED, outcome: 'aborted' }
    } else {
      // An ApiError is an answer; anything else is a defect, and its stack is what finds it.
      if (!(err instanceof ApiError)) call.log.error({ err }, 'internal error')
      const apiError = err instanceof ApiError ? err : new ApiError(500, 'server_error', `internal error: ${(err as Error).message}`, 'internal_error')
      finished = { status: apiError.status, outcome: 'error', error: apiError }
    }
  }
  pricedIfSentNowhere(ctx)
  const debit = await settleCharge(gw, ctx)
  const error = finished.error ?? null
  const record = ctx.toRecord(finished.status, finished.outcome, error, gw.instance)
  if (record) gw.records.push(record, debit, gw.settings.log_bodies ? ctx.bodies : null)
  gw.sessions.recorded(ctx.sessionHold, record)
  logInference(call.log, ctx, finished.status, finished.outcome, error, record?.latency_ms ?? ctx.elapsedMs())
  if (finished.outcome === 'aborted') sink.abandon()
  else if (error) sink.error(error)
  return ctx
}

const matchers = new WeakMap<readonly string[], (name: string) => boolean>()

/** Whether a header name is listed, where a name ending in `*` stands for every name it begins; made once per list. */
function matcherOf(names: readonly string[]): (name: string) => boolean {
  let match = matchers.get(names)
  if (!match) {
    const exact = new Set(names.filter((n) => !n.endsWith('*')))
    const prefixes = names.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1))
    match = (name) => exact.has(name) || prefixes.some((p) => name.startsWith(p))
    matchers.set(names, match)
  }
  return match
}

/** The listed headers present in `rawHeaders` (name, value, name, value…); null when none is. */
function pickHeaders(rawHeaders: string[], names: readonly string[]): Record<string, string> | null {
  const listed = matcherOf(names)
  let picked: Record<string, string> | null = null
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    if (listed(name)) (picked ??= {})[name] = rawHeaders[i + 1]
  }
  return picked
}

/** The stages, from the body as sent to the answer delivered. */
async function serve<B extends Record<string, unknown>>(
  gw: CoreDeps,
  wire: InboundWire<B>,
  call: InferenceCall,
  ctx: RequestContext,
  sink: Sink,
): Promise<Finished> {
  const asSent = wire.read(call.body)
  ctx.model = asSent.model
  ctx.stream = asSent.stream
  const bodySession = wire.bodySession
  ctx.attribution = resolveAttribution(asSent.envelope, call.rawHeaders, bodySession ? () => bodySession(asSent.body) : null)
  if (gw.settings.log_bodies) ctx.bodies = { request: call.rawBody ?? JSON.stringify(call.body), response: null }
  let body = asSent.body
  const steering = steer(gw.presets, gw.aliases, ctx.key, asSent.model, wire.applyPreset !== undefined, wire.endpoint)
  ctx.preset = steering.preset
  ctx.alias = steering.alias
  if (ctx.preset && wire.applyPreset) body = wire.applyPreset(body, ctx.preset)
  ctx.requestedTier = requestedTier(body)
  const primary = await resolveModel(gw, steering.model)
  ctx.target = primary
  if (wire.resolve) await wire.resolve(ctx, body)
  const control = wire.control(body, ctx)
  await admit(gw, ctx, body, control)
  if (chargesBeforeDelivery(ctx.reservation)) ctx.beforeDelivery = () => chargeBeforeDelivery(gw, ctx)
  const local = wire.answerLocally?.(ctx, body, primary, sink)
  if (local) return local
  const forwarded = wire.forwardHeaders ? pickHeaders(call.rawHeaders, wire.forwardHeaders) : null
  const build = (t: Target) => wire.request(ctx, body, t, forwarded)
  const candidates = ctx.preset ? await candidatesFor(gw, ctx, primary, ctx.preset.fallbacks) : [primary]
  const { target, response } = await route(
    gw,
    ctx,
    candidates,
    build,
    call.abort,
    // The primary passed the policy at admission.
    (t) => (t === primary ? null : policyRefusal(ctx, t, body, control)),
  )
  ctx.target = target
  ctx.fallbackUsed = target !== primary
  return wire.deliver(ctx, body, response, sink, call.abort, gw.registry.redactor)
}
