import { Agent, request, type Dispatcher } from 'undici'
import type { ClientAbort } from '../pipeline/clientAbort'

export interface UpstreamTimeouts {
  connectMs: number
  /** Until response headers arrive (a non-streamed reasoning answer can take minutes). */
  firstByteMs: number
  /** Longest silence between two chunks of a body. */
  idleMs: number
}

export const defaultTimeouts: UpstreamTimeouts = { connectMs: 10_000, firstByteMs: 600_000, idleMs: 300_000 }

/** One keep-alive pool per gateway: upstream TLS handshakes are paid once, not per request. */
export function createUpstreamAgent(timeouts: UpstreamTimeouts = defaultTimeouts): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: 256,
    pipelining: 1,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
  })
}

export interface UpstreamCall {
  url: string
  method: 'GET' | 'POST'
  /** Credential and protocol headers, from the provider's adapter. */
  headers: Record<string, string>
  body?: unknown
  /** Aborts the call: an AbortSignal or undici's other form, an emitter with `aborted` and 'abort'. */
  signal?: AbortSignal | ClientAbort
  headersTimeoutMs?: number
}

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

export function callUpstream(agent: Dispatcher, call: UpstreamCall): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'gw-gateway/0.1', ...call.headers }
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  const body = call.body === undefined ? undefined : JSON.stringify(call.body)
  const target = parsedUrl(call.url)
  if (target) {
    return agent.request({
      origin: target.origin,
      path: target.path,
      method: call.method,
      headers,
      body,
      signal: call.signal,
      headersTimeout: call.headersTimeoutMs,
    })
  }
  return request(call.url, {
    dispatcher: agent,
    method: call.method,
    headers,
    body,
    signal: call.signal,
    headersTimeout: call.headersTimeoutMs,
  })
}

/** Joins a provider base URL and an API path without doubling or dropping slashes. */
export const joinUrl = (base: string, path: string) => base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '')
