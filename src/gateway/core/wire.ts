import type { Preset } from '../../contract/presets'
import type { ApiError } from '../errors'
import type { AdmitOptions } from '../pipeline/admit'
import type { ClientAbort } from '../upstream/clientAbort'
import type { RequestContext } from '../pipeline/requestContext'
import type { Target } from '../pipeline/resolveModel'
import type { UpstreamRequest } from '../providers/adapter'
import type { Redactor } from '../secrets/redactor'
import type { Outcome, RequestRecord } from '../store/requestsRepo'
import type { UpstreamResponse } from '../upstream/client'
import type { Sink } from './sink'

/** How a request ended, for its record. */
export interface Finished {
  status: number
  outcome: Outcome
  error?: ApiError | null
}

/** What the core needs to know of a body in its inbound wire. */
export interface Inbound<B> {
  /** The body as the wire carries it on (checked; the envelope may still be in it). */
  body: B
  model: string
  stream: boolean
  /** The `gw` attribution envelope, where the wire has one in its body. */
  envelope: unknown
}

/**
 * One inbound wire (chat completions, embeddings, …): what it takes, how a preset changes it, what
 * policy and balance estimate from, what it asks of a provider and how the answer goes out. The
 * core runs the stages in between, the same for every wire.
 */
export interface InboundWire<B extends Record<string, unknown>> {
  readonly endpoint: RequestRecord['endpoint']
  /** Request headers the caller may send for the provider (lower case; `x-codex-*` names a prefix); `request` decides which targets get them. */
  readonly forwardHeaders?: readonly string[]
  /** Checks the body as sent; a 400 names the field. */
  read(body: unknown): Inbound<B>
  /** The session a calling tool names in the body (Claude Code's `metadata.user_id`); asked only when no header named one. */
  bodySession?(body: B): string | null
  /** The body under a preset; absent when the wire takes no preset (then naming one is refused). */
  applyPreset?: (body: B, preset: Preset) => B
  /**
   * What the body refers to outside itself (a stored response it continues), looked up once for
   * the caller's key before admission; refuses with a 4xx naming the reference.
   */
  resolve?(ctx: RequestContext, body: B): Promise<void>
  /** What the key's policy and the balance reservation estimate from (after `resolve`). */
  control(body: B, ctx: RequestContext): AdmitOptions
  /**
   * The answer, when the wire gives it without calling the primary target (token counting where
   * that provider cannot count: an estimate); null to call the provider.
   */
  answerLocally?(ctx: RequestContext, body: B, target: Target, sink: Sink): Promise<Finished> | null
  /**
   * The request for one candidate; a 400 ApiError when that provider cannot take it. `forwarded`
   * holds the `forwardHeaders` the caller sent (null when none): they speak the wire's own
   * protocol, so they go only to a provider that speaks it too.
   */
  request(ctx: RequestContext, body: B, target: Target, forwarded: Record<string, string> | null): UpstreamRequest
  /** Reads the provider's 200 answer and delivers it, priced, to the sink. */
  deliver(ctx: RequestContext, body: B, upstream: UpstreamResponse, sink: Sink, signal: ClientAbort, redactor: Redactor): Promise<Finished>
}

/** A request answered in full (one shared object: nothing changes a Finished). */
export const OK: Readonly<Finished> = { status: 200, outcome: 'ok' }
