import { Agent, errors, request, type Dispatcher } from 'undici'
import { AbortEmitter, type ClientAbort } from './clientAbort'
import { OriginSlots } from './originSlots'
import { DEFAULT_UPSTREAM_CONNECTIONS } from '../config'

export interface UpstreamTimeouts {
  connectMs: number
  /** Until response headers arrive (a non-streamed reasoning answer can take minutes). */
  firstByteMs: number
  /** Longest silence between two chunks of a body. */
  idleMs: number
}

export type CallDeadlines = Omit<UpstreamTimeouts, 'connectMs'>

export const defaultTimeouts: UpstreamTimeouts = { connectMs: 10_000, firstByteMs: 600_000, idleMs: 300_000 }

export interface UpstreamAgentOptions {
  connectMs?: number
  /** Connections per origin; calls beyond it wait in `slots`. */
  connections?: number
}

/**
 * One keep-alive pool per gateway: upstream TLS handshakes are paid once, not per request.
 * Its requests have no timers of their own: a call's deadlines are `callUpstream`'s.
 */
export class UpstreamAgent extends Agent {
  readonly slots: OriginSlots

  constructor({ connectMs = defaultTimeouts.connectMs, connections = DEFAULT_UPSTREAM_CONNECTIONS }: UpstreamAgentOptions = {}) {
    super({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      // The slots keep calls within this; undici's own queue would hold a call whose client left.
      connections,
      pipelining: 1,
      connect: { timeout: connectMs },
      headersTimeout: 0,
      bodyTimeout: 0,
    })
    this.slots = new OriginSlots(connections)
  }
}

export const createUpstreamAgent = (options: UpstreamAgentOptions = {}) => new UpstreamAgent(options)

export interface UpstreamCall {
  url: string
  method: 'GET' | 'POST' | 'DELETE'
  /** Credential and protocol headers, from the provider's adapter. */
  headers: Record<string, string>
  /**
   * JSON text. The caller serialises it before the call, so a body that cannot be serialised is
   * never mistaken for the upstream's failure.
   */
  body?: string
  /** A caller's own end for the call (a probe's deadline). */
  signal?: AbortSignal
  /** A client's request: the call ends when the client goes away, or when the provider is slower than its deadlines. */
  client?: ClientAbort
  deadlines?: CallDeadlines
}

export interface UpstreamResponse extends Dispatcher.ResponseData {
  /** Some of the body arrived: the idle timeout starts again. A streamed body's reader calls it per read. */
  heard(): void
}

/**
 * The signal undici gets for a call with deadlines: it fires when the client goes away, when the
 * headers take longer than `firstByteMs`, or when the body falls silent for `idleMs`.
 *
 * The deadlines are kept here rather than in undici for memory's sake: undici's long timers sit
 * in an array swept twice a second, so a request's two of them outlived two scavenges and were
 * tenured. Under load they were most of what the old generation still had to collect (the old
 * space grew ~1.4 MB/s at 7,500 req/s and peak RSS by ~20 MB; without them it stays flat). A
 * native timer is unlinked when cleared and dies young.
 */
class CallGuard extends AbortEmitter {
  private timer: NodeJS.Timeout | null = null
  private readonly onClientAbort = () => this.abort(this.client?.reason ?? new errors.RequestAbortedError())

  constructor(
    private readonly client: ClientAbort | undefined,
    private readonly deadlines: CallDeadlines,
  ) {
    super()
    this.arm(deadlines.firstByteMs, () => new errors.HeadersTimeoutError(`no response headers in ${deadlines.firstByteMs} ms`))
    if (client?.aborted) this.onClientAbort()
    else client?.once('abort', this.onClientAbort)
  }

  /** The headers are in: from now on the body's silences are timed. */
  body(body: Dispatcher.ResponseData['body']): void {
    const { idleMs } = this.deadlines
    this.arm(idleMs, () => new errors.BodyTimeoutError(`no data for ${idleMs} ms`))
    body.once('close', () => this.end())
  }

  readonly heard = (): void => {
    this.timer?.refresh()
  }

  override abort(reason: Error): void {
    super.abort(reason)
    this.end()
  }

  end(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.client?.removeListener('abort', this.onClientAbort)
  }

  private arm(ms: number, timeout: () => Error): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.abort(timeout()), ms)
    this.timer.unref()
  }
}

const heardNothing = () => {}

/**
 * Upstream URLs come from configuration, so there are few of them: each is parsed once into the
 * origin and path undici's top-level request() would derive from it on every call.
 */
const parsedUrls = new Map<string, { origin: string; path: string }>()
function parsedUrl(url: string): { origin: string; path: string } | null {
  let p = parsedUrls.get(url)
  if (!p) {
    let u: URL
    try {
      u = new URL(url)
    } catch {
      return null
    }
    // Anything unusual keeps going through request(), which validates and reports it.
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) return null
    if (parsedUrls.size >= 256) parsedUrls.clear()
    p = { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname }
    parsedUrls.set(url, p)
  }
  return p
}

export async function callUpstream(agent: UpstreamAgent, call: UpstreamCall): Promise<UpstreamResponse> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'gw-gateway/0.1', ...call.headers }
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  const target = parsedUrl(call.url)
  const guard = call.deadlines ? new CallGuard(call.client, call.deadlines) : null
  const signal = guard ?? call.signal
  // The origin whose slot this call holds. A URL undici must validate itself takes none: undici's
  // own limit still holds for it.
  let slot: string | null = null
  let res: Dispatcher.ResponseData
  try {
    if (target) {
      const wait = agent.slots.take(target.origin, signal)
      if (wait) await wait
      slot = target.origin
    }
    res = target
      ? await agent.request({ origin: target.origin, path: target.path, method: call.method, headers, body: call.body, signal })
      : await request(call.url, { dispatcher: agent, method: call.method, headers, body: call.body, signal })
  } catch (err) {
    if (slot !== null) agent.slots.give(slot)
    guard?.end()
    throw err
  }
  if (target) res.body.once('close', () => agent.slots.give(target.origin))
  if (!guard) return Object.assign(res, { heard: heardNothing })
  guard.body(res.body)
  return Object.assign(res, { heard: guard.heard })
}

/** Joins a provider base URL and an API path without doubling or dropping slashes. */
export const joinUrl = (base: string, path: string) => base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '')
