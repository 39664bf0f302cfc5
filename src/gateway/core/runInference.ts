import type { Logger } from 'pino'
import type { Preset } from '../../contract/presets'
import type { Settings } from '../../contract/settings'
import { ApiError } from '../errors'
import { admit, NOTHING_HELD, policyRefusal, type Admission, type AdmitDeps } from '../pipeline/admit'
import { resolveAttribution } from '../pipeline/attribution'
import type { KeyIndex } from '../pipeline/authenticate'
import { settleCharge } from '../pipeline/charge'
import type { ClientAbort } from '../upstream/clientAbort'
import { countedFree, sentNowhere } from '../pipeline/cost'
import { CallDelivery, chargeFor, type PricedUsage } from './callDelivery'
import { RequestContext } from '../pipeline/requestContext'
import { resolveModel, targetName, type ModelSources, type Target } from '../pipeline/resolveModel'
import { steer } from '../pipeline/resolvePreset'
import { softCapFor, softCapSwitch } from '../pipeline/softCap'
import type { AliasTable } from '../pipeline/aliases'
import { ClientAborted } from '../routing/sendToProvider'
import { candidatesFor } from '../routing/candidates'
import { route, type RoutingDeps } from '../routing/route'
import { heldName, isHeld, moveReason, type Held, type SessionRoutes } from '../routing/sessionRoutes'
import type { MoveReason } from '../store/requestsRepo'
import type { ResponseCache } from '../routing/responseCache'
import { cacheScope, cacheTtl } from '../pipeline/cachePolicy'
import type { Key } from '../pipeline/keyRules'
import type { RecordSink } from '../store/store'
import { logInference } from './inferenceLog'
import type { RecordBackpressure } from './recordBackpressure'
import type { RequestObserver, RequestTracer } from './requestObserver'
import type { OpenStreams } from './openStreams'
import type { Sink } from './sink'
import type { Delivered, Finished, InboundWire } from './wire'
import { requestedTier } from '../pricing/tiers'
import { fingerprintPrompt } from '../pipeline/promptFingerprint'
import { ClientText, type SentBody } from './clientText'

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
  /**
   * The request's body as received (its text, and the value parsed from it: `body`, or the part of
   * it that was the body on Google's wire, whose model is in the path): logged as it came, and sent
   * upstream as it came where nothing changed it. None from the Playground.
   */
  sent: SentBody | null
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
  responseCache: ResponseCache
  /** Told of every record (metrics); empty when none is on. */
  observers: readonly RequestObserver[]
  streams: OpenStreams
  /** Traces requests; null when tracing is off. */
  tracer: RequestTracer | null
  /** Where each session's turns under a preset were last answered. */
  sessionRoutes: SessionRoutes
}

/** What the core holds of one call while it runs: the stages' results its end needs, whatever happens. */
interface Running {
  /** The primary target once resolved, then the one that answered. */
  target: Target | null
  admission: Admission
  /** A call no provider bills (token counting). */
  free: boolean
  /** The delivery of the answer, once one began. */
  delivery: CallDelivery | null
  /** What the delivery produced, when it returned. */
  delivered: Delivered | null
  /** A streamed delivery began: counted in the open streams until the request is recorded. */
  streaming: boolean
}

/**
 * Runs one inference call through the pipeline (authenticate → attribution → preset → policy
 * and balance → route → the wire's answer) and records it, whatever happens: the record is
 * written for every call that passed authentication (success, caller error, provider failure,
 * client abort). The call's abort ends the upstream call the moment its client goes away. The
 * answer is priced once: when its delivery closes it, or here from what the delivery returned.
 * A prepaid charge is in the ledger before the end of the answer goes out, or at the latest here,
 * before the record is queued. Resolves to the request's context, or null when authentication
 * or the records' backpressure refused it (nothing recorded; the transport logs it).
 */
export async function runInference(gw: CoreDeps, wire: InboundWire, call: InferenceCall, sink: Sink): Promise<RequestContext | null> {
  let key: Key
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
  const trace = gw.tracer === null ? null : gw.tracer.begin(call.rawHeaders)
  ctx.trace = trace
  const run: Running = { target: null, admission: NOTHING_HELD, free: false, delivery: null, delivered: null, streaming: false }
  let finished: Finished
  try {
    finished = await serve(gw, wire, call, ctx, sink, run)
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
  const priced = finalPrice(ctx, run)
  const reservation = run.admission.reservation
  const debit = reservation ? await settleCharge(gw, chargeFor(ctx, reservation, priced)) : null
  const error = finished.error ?? null
  const cost = priced?.cost ?? null
  const record = ctx.toRecord(finished.status, finished.outcome, error, gw.instance, {
    target: run.target,
    usage: priced?.usage ?? null,
    cost,
    upstreamId: run.delivered?.upstreamId ?? null,
  })
  const bodies = ctx.requestBody === null ? null : { request: ctx.requestBody, response: run.delivered?.logged ?? null }
  if (record) {
    gw.records.push(record, debit, bodies)
    for (const observer of gw.observers) observer.recorded(record)
    trace?.recorded(record, bodies)
  }
  if (run.streaming) gw.streams.open--
  gw.sessions.recorded(run.admission.sessionHold, record)
  logInference(call.log, ctx, run.target, cost, finished.status, finished.outcome, error, record?.latency_ms ?? ctx.elapsedMs())
  if (finished.outcome === 'aborted') sink.abandon()
  else if (error) sink.error(error)
  return ctx
}

/**
 * The request's one price: what its delivery closed the answer with; or what the delivery
 * returned (an answer cut short, charged for what was generated); a token count that reached a
 * counter is free; a request that reached no provider cost exactly $0, said so; one that reached
 * a provider and failed before usage stays unpriced, since the provider may bill it.
 */
function finalPrice(ctx: RequestContext, run: Running): PricedUsage | null {
  const closed = run.delivery?.priced
  if (closed) return closed
  const delivered = run.delivered
  if (delivered && run.delivery) return { ...run.delivery.price(delivered.usage, delivered.estimated), usage: delivered.usage }
  if (run.free && ctx.sent) return { ...countedFree(), usage: null }
  if (!ctx.sent && run.target) return { ...sentNowhere(), usage: null }
  return null
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

/** A session's move, its cost in re-written cache filled in when the answer is priced. */
const moved = (held: Held, target: Target, reason: MoveReason) => ({ from: heldName(held), to: targetName(target), reason })

/** The stages, from the body as sent to the answer delivered. */
async function serve(gw: CoreDeps, wire: InboundWire, call: InferenceCall, ctx: RequestContext, sink: Sink, run: Running): Promise<Finished> {
  const wc = wire.read(call.body)
  ctx.model = wc.model
  ctx.stream = wc.stream
  // Bound: a call may be a class, whose method reads its own fields.
  ctx.attribution = resolveAttribution(wc.envelope, call.rawHeaders, wc.bodySession?.bind(wc) ?? null)
  if (gw.settings.log_bodies) ctx.requestBody = call.sent?.text ?? JSON.stringify(call.body)
  // Noted before any stage may change the body.
  const clientText = ClientText.of(call.sent)
  const steering = steer(gw.presets, gw.aliases, ctx.key, wc.model, wc.applyPreset !== undefined, wire.endpoint)
  ctx.preset = steering.preset
  ctx.alias = steering.alias
  if (ctx.preset && wc.applyPreset) wc.applyPreset(ctx.preset)
  // Only a session's turns are compared, so only they pay for the digests.
  if (ctx.attribution.attribution.session_id !== null && wc.promptParts) ctx.prompt = fingerprintPrompt(wc.promptParts(), clientText?.textOf)
  ctx.requestedTier = requestedTier(wc.body)
  // Awaited only when it waits (a credential's first lookup, a local server's models): no promise a request otherwise.
  const resolving = resolveModel(gw, steering.model)
  const primary = resolving instanceof Promise ? await resolving : resolving
  run.target = primary
  if (wc.resolve) await wc.resolve(ctx)
  const control = wc.control()
  if (clientText) control.sentText = clientText.textOf
  run.free = control.free === true
  const resolvingSoftCap = run.free ? null : softCapFor(gw, ctx.key, ctx.preset, primary, control.chat)
  const soft = resolvingSoftCap && (await resolvingSoftCap)
  // A session's turn under a preset goes where its previous turn was answered; read (from the
  // store, when this gateway does not know the session) while admission runs.
  const sessionId = ctx.attribution.attribution.session_id
  const holding = sessionId !== null && ctx.preset && !run.free ? gw.sessionRoutes.of(ctx.key.id, sessionId, ctx.preset.name) : null
  const admitting = admit(gw, ctx, primary, wc.body, control, soft)
  run.admission = admitting instanceof Promise ? await admitting : admitting
  if (run.admission.refused) throw run.admission.refused
  // The soft cap decided at admission: from here the request is the cap's model's, routed and
  // translated as if it had asked for it (a preset's fallbacks are the dearer model's, not tried).
  const switched = run.admission.soft
  if (switched) {
    ctx.softCap = softCapSwitch(ctx.key, soft!, switched.limit, primary)
    run.target = switched.target
  }
  const first = switched?.target ?? primary
  const ttl = run.free ? null : cacheTtl(ctx.attribution.cache, ctx.key, ctx.preset, wc.body)
  const cache = ttl === null ? null : gw.responseCache.call(cacheScope(ctx.key, ctx.preset), ttl)
  const answering = (target: Target) => {
    if (wc.stream && !run.streaming) {
      run.streaming = true
      gw.streams.open++
    }
    return (run.delivery = new CallDelivery(gw, ctx, {
      target,
      stream: wc.stream,
      sink,
      signal: call.abort,
      redactor: gw.registry.redactor,
      logging: ctx.requestBody !== null,
      free: run.free,
      admission: run.admission,
      cache,
    }))
  }
  const local = wc.answerLocally?.(answering(first))
  if (local) return (run.delivered = await local)
  const forwarded = wire.forwardHeaders ? pickHeaders(call.rawHeaders, wire.forwardHeaders) : null
  const preset = ctx.preset
  const candidates = preset && !switched ? await candidatesFor(gw, ctx, primary, preset.fallbacks) : [first]
  const held = holding instanceof Promise ? await holding : holding
  const ordered = preset ? gw.sessionRoutes.arrange(candidates, preset.name, preset.equal_candidates && !switched, sessionId, held) : candidates
  // A request no candidate answers is recorded under the one tried first.
  run.target = ordered[0]
  // Why the held target was passed over before it was tried, should it be.
  let passedOver: MoveReason | null = held && gw.cooldown.cooling(held.provider) ? 'cooled_down' : null
  const build = (t: Target) => {
    const built = wc.request(ctx, t, forwarded)
    return clientText ? clientText.forRequest(built) : built
  }
  const { target, response } = await route(gw, ctx, ordered, build, call.abort, {
    primary: first,
    skip: (t) => {
      // The first candidate passed the policy at admission.
      const refused = t === first ? null : policyRefusal(ctx, t, wc.body, control)
      if (refused && held && isHeld(t, held)) passedOver = 'policy'
      return refused
    },
    replay: cache?.replay,
  })
  run.target = target
  // Among equals, a fallback served when any but the one tried first did.
  ctx.fallbackUsed = target !== (preset?.equal_candidates ? ordered[0] : first)
  if (sessionId !== null && preset) {
    if (held && !isHeld(target, held)) ctx.moved = moved(held, target, moveReason(held, candidates, Boolean(switched), passedOver))
    gw.sessionRoutes.answered(ctx.key.id, sessionId, preset.name, target, Boolean(switched))
  }
  if (!cache) return (run.delivered = await wc.deliver(response, answering(target)))
  // A hit's saving is noted when its answer is priced.
  ctx.responseCache = cache.hit ? { hit: true, request_id: cache.hit.request_id, saved_usd: null } : { hit: false }
  const delivering = wc.deliver(response, answering(target))
  // After the delivery began listening: every wire's delivery attaches its reader synchronously.
  cache.watch(response)
  return (run.delivered = await delivering)
}
