import type { Preset } from '../../contract/presets'
import type { ApiError } from '../errors'
import type { AdmitOptions } from '../pipeline/admit'
import type { ClientAbort } from '../upstream/clientAbort'
import type { Dropped, RequestContext } from '../pipeline/requestContext'
import type { Target } from '../pipeline/resolveModel'
import type { UpstreamRequest } from '../providers/adapter'
import type { NormalizedUsage } from '../pricing/types'
import type { Redactor } from '../secrets/redactor'
import type { Outcome, RequestRecord } from '../store/requestsRepo'
import type { UpstreamResponse } from '../upstream/client'
import type { GwBlock } from '../pipeline/cost'
import type { PromptParts } from '../pipeline/promptFingerprint'
import type { Sink } from './sink'

/** How a request ended, for its record. */
export interface Finished {
  status: number
  outcome: Outcome
  error?: ApiError | null
}

/** A request answered in full (one shared object: nothing changes a Finished). */
export const OK: Readonly<Finished> = { status: 200, outcome: 'ok' }

/** What one delivery produced: how it ended, the usage it read, and what the record keeps of the answer. */
export interface Delivered extends Finished {
  /** The usage the provider reported (or, for an answer cut short, what it was estimated as); null when there is none. */
  usage: NormalizedUsage | null
  /** The usage was reconstructed, not reported (a stream cut short). */
  estimated?: boolean
  /** The answer as the client saw it, when body logging is on. */
  logged?: string | null
  /** The provider's id of an answer it keeps for later retrieval (a Responses response). */
  upstreamId?: string | null
}

export type { Dropped }

/**
 * What the core gives one answer's delivery: the target that answered, where the answer goes, and
 * the one way its end is priced. A delivery never prices, records or charges by itself.
 */
export interface Delivery {
  /** The provider and model that answered. */
  readonly target: Target
  readonly stream: boolean
  readonly sink: Sink
  /** Fires when the client goes away. */
  readonly signal: ClientAbort
  /** Takes provider credentials out of what the provider echoes back. */
  readonly redactor: Redactor
  /** Body logging is on: the delivery returns the answer as the client saw it (`Delivered.logged`). */
  readonly logging: boolean
  /** The answer's first bytes go out now (the record's time to first byte). */
  firstByte(): void
  /** A field of the caller's request the answer could not honour. */
  ignore(d: Dropped): void
  /** A write the end of the answer waits for, so what a client received whole is in the store (a kept Responses answer). */
  hold(write: Promise<unknown>): void
  /**
   * The answer is complete with `usage` (`estimated` when the provider reported none and it was
   * reconstructed): the core prices it (the request's one price) and returns the `gw` block its end carries.
   */
  close(usage: NormalizedUsage | null, estimated?: boolean): GwBlock
  /**
   * What must be stored before the end of a whole answer goes out (held writes, then a prepaid
   * charge); null when nothing is, as for most requests. Rejects with the ApiError that replaces
   * the withheld end.
   */
  ready(): Promise<void> | null
  /** The request id and, once priced, its cost, as headers (for clients that read no body field of the gateway's). */
  headers(): Record<string, string>
}

/**
 * One call on a wire, made by `read` from the body as sent: the body as it changes on its way
 * (a preset), what the wire looked up for it, and everything the wire decides for it. The call
 * holds its own state, so nothing of a request lives beside it.
 */
export interface WireCall {
  readonly model: string
  readonly stream: boolean
  /** The `gw` attribution envelope, where the wire has one in its body. */
  readonly envelope: unknown
  /** The body as it goes on (after a preset); the policy reads it and may put a token ceiling into it. */
  readonly body: Record<string, unknown>
  /** The session a calling tool names in the body (Claude Code's `metadata.user_id`); asked only when no header named one. */
  bodySession?(): string | null
  /** The prompt's system prompt, tools and messages as the body now has them, for the cache doctor's fingerprint. */
  promptParts?(): PromptParts
  /** Applies a preset; absent when the wire takes no preset (then naming one is refused). */
  applyPreset?(preset: Preset): void
  /**
   * What the body refers to outside itself (a stored response it continues), looked up once for
   * the caller's key before admission; refuses with a 4xx naming the reference.
   */
  resolve?(ctx: RequestContext): Promise<void>
  /** What the key's policy and the balance reservation estimate from (after `resolve`). */
  control(): AdmitOptions
  /**
   * The answer, when the wire gives it without calling the primary target (token counting where
   * that provider cannot count: an estimate); null to call the provider.
   */
  answerLocally?(out: Delivery): Promise<Delivered> | null
  /**
   * The request for one candidate; a 400 ApiError when that provider cannot take it. `forwarded`
   * holds the wire's `forwardHeaders` the caller sent (null when none): they speak the wire's own
   * protocol, so they go only to a provider that speaks it too.
   */
  request(ctx: RequestContext, target: Target, forwarded: Record<string, string> | null): UpstreamRequest
  /** Reads the provider's 200 answer and delivers it to the client. */
  deliver(upstream: UpstreamResponse, out: Delivery): Promise<Delivered>
}

/**
 * One inbound wire (chat completions, embeddings, Messages, Responses, …): what it takes and what
 * a call on it is. The core runs the stages in between, the same for every wire.
 */
export interface InboundWire {
  readonly endpoint: RequestRecord['endpoint']
  /** Request headers the caller may send for the provider (lower case; `x-codex-*` names a prefix); `request` decides which targets get them. */
  readonly forwardHeaders?: readonly string[]
  /** Checks the body as sent (a 400 names the field) and starts the call. */
  read(body: unknown): WireCall
}
