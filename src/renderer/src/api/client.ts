import type { GwApi, Input, OperationName, Output, StreamingName } from '../../../contract'
import type { PlaygroundEvent } from '../../../contract/playground'
import { SseParser, type SseEvent } from '../../../shared/sse'
import { ApiError, toApiError } from './errors'
import { SignOutGate } from './signOutGate'

declare global {
  interface Window {
    /** The Electron preload bridge; absent in a browser, where the HTTP API is used. */
    gw?: GwApi
  }
}

type Listener = (e: ApiError) => void
const unauthenticatedListeners = new Set<Listener>()

/** Called when any call answers 401 (the session ended or expired), so the app can ask to sign in again. */
export function onUnauthenticated(fn: Listener): () => void {
  unauthenticatedListeners.add(fn)
  return () => unauthenticatedListeners.delete(fn)
}

async function errorFrom(res: Response): Promise<ApiError> {
  let body: unknown = null
  try {
    body = await res.json()
  } catch {
    /* not JSON */
  }
  const e = (body as { error?: unknown } | null)?.error
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    return toApiError({ status: res.status, ...(e as object) })
  }
  return new ApiError({
    code: res.status === 401 ? 'unauthenticated' : 'http_error',
    status: res.status,
    message: `the gateway answered ${res.status} ${res.statusText}`.trim(),
  })
}

function post(name: string, input: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`/api/${name}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: name === 'playground.chat' ? 'text/event-stream' : 'application/json' },
    body: JSON.stringify(input ?? {}),
    signal,
  })
}

async function httpCall(name: OperationName, input: unknown): Promise<unknown> {
  let res: Response
  try {
    res = await post(name, input)
  } catch (err) {
    throw new ApiError({ code: 'network', status: 0, message: `cannot reach the gateway (${(err as Error).message})` })
  }
  if (!res.ok) throw await errorFrom(res)
  return res.json()
}

/** Reads `data: <json>` events of a text/event-stream body as they arrive. */
async function httpStream(input: unknown, onEvent: (e: PlaygroundEvent) => void, signal?: AbortSignal): Promise<void> {
  let res: Response
  try {
    res = await post('playground.chat', input, signal)
  } catch (err) {
    if (signal?.aborted) return
    throw new ApiError({ code: 'network', status: 0, message: `cannot reach the gateway (${(err as Error).message})` })
  }
  if (!res.ok) throw await errorFrom(res)
  if (!res.body) throw new ApiError({ code: 'http_error', status: res.status, message: 'the gateway sent no stream' })
  const reader = res.body.getReader()
  const parser = new SseParser()
  const deliver = (events: SseEvent[]) => {
    for (const e of events) if (e.data !== '[DONE]') onEvent(JSON.parse(e.data) as PlaygroundEvent)
  }
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await reader.read()
    } catch (err) {
      // Stopped by the caller: closing the connection is what ends the call on the gateway.
      if (signal?.aborted) return
      throw err
    }
    if (chunk.done) break
    deliver(parser.push(chunk.value))
  }
  deliver(parser.end())
}

function bridge(): GwApi | undefined {
  return typeof window !== 'undefined' ? window.gw : undefined
}

/** The desktop bridge when present, else HTTP: pages never know which. */
export const transport: 'electron' | 'http' = bridge() ? 'electron' : 'http'

const gate = new SignOutGate()

/** Calls one management operation. Rejects with an ApiError. */
export async function call<N extends Exclude<OperationName, StreamingName>>(name: N, input: Input<N>): Promise<Output<N>> {
  if (name === 'auth.signOut') return gate.signOut(() => send(name, input))
  if (!(await gate.open())) throw new ApiError({ code: 'signed_out', status: 0, message: 'signed out' })
  return send(name, input)
}

async function send<N extends Exclude<OperationName, StreamingName>>(name: N, input: Input<N>): Promise<Output<N>> {
  try {
    const gw = bridge()
    const fn = gw ? (gw[name] as unknown as (i: Input<N>) => Promise<Output<N>>) : null
    return fn ? await fn(input) : ((await httpCall(name, input)) as Output<N>)
  } catch (err) {
    const e = toApiError(err)
    if (e.status === 401 && name !== 'auth.signIn' && name !== 'auth.status') unauthenticatedListeners.forEach((l) => l(e))
    throw e
  }
}

/**
 * The Playground's streaming call: events arrive in order (the body sent, deltas, then done or
 * error). Aborting `signal` ends the call, upstream included; the promise then resolves.
 */
export async function stream(input: Input<'playground.chat'>, onEvent: (e: PlaygroundEvent) => void, signal?: AbortSignal): Promise<void> {
  try {
    const gw = bridge()
    if (gw) await gw['playground.chat'](input, onEvent, (cancel) => signal?.addEventListener('abort', cancel, { once: true }))
    else await httpStream(input, onEvent, signal)
  } catch (err) {
    const e = toApiError(err)
    if (e.status === 401) unauthenticatedListeners.forEach((l) => l(e))
    throw e
  }
}
