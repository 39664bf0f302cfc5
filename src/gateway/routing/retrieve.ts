import { pipeline, Transform, type Readable } from 'node:stream'
import type { ClientAbort } from '../upstream/clientAbort'
import type { Provider } from '../providers/registry'
import { coolingError, coolsDown } from './cooldown'
import type { RoutingDeps } from './route'
import { callProvider, ClientAborted, ProviderFailure, type AttemptReport } from './sendToProvider'

/** Something a provider keeps, asked for under its base URL. */
export interface Retrieval {
  method: 'GET' | 'DELETE'
  /** The path under the provider's base URL, with the query the caller sent. */
  path: string
}

/** The provider's 200: its content type and its body as it comes. */
export interface Retrieved {
  contentType: string
  body: Readable
}

/** A retrieval's attempt goes into no record: nothing to report it to. */
const unrecorded: AttemptReport = { sending() {}, ended() {} }

/**
 * A GET or DELETE of what a provider keeps (a stored response, its input items), sent as an
 * inference attempt is (`callProvider`): with the provider's credential and deadlines, the idle
 * one timed on the body as it is relayed, and ended when the client goes away. Of routing's
 * treatment it takes what fits a call that only one provider can answer:
 * - no retry: there is no other candidate, the client's SDK retries 408, 409, 429 and 5xx itself,
 *   and a DELETE retried after its answer was lost on the way would report its own deletion as a 404;
 * - the cool-down: a provider cooling down is not called (a 503 with retry-after at once, rather
 *   than a wait on a provider that keeps failing), and the call's failures and success count
 *   toward it as an inference attempt's do;
 * - no record: retrieval is not inference (nothing is priced or recorded), so the attempt joins
 *   no record's attempts; the request's own log line has its status and latency.
 * Throws the provider's error as an ApiError, or ClientAborted when the client left.
 */
export async function retrieve(deps: RoutingDeps, provider: Provider, call: Retrieval, signal: ClientAbort): Promise<Retrieved> {
  const cooling = deps.cooldown.cooling(provider.id)
  if (cooling) throw coolingError(provider.id, cooling, deps.clock())
  try {
    const res = await callProvider(deps.registry, deps.clock, provider, call, signal, unrecorded)
    deps.cooldown.clear(provider.id)
    // Each piece of the body restarts the idle deadline, as a relayed answer's does.
    const body = new Transform({
      transform(chunk, _encoding, done) {
        res.heard()
        done(null, chunk)
      },
    })
    // An error on either side (a deadline, the client leaving) ends both; the reply reports it.
    pipeline(res.body, body, () => {})
    return { contentType: String(res.headers['content-type'] ?? 'application/json'), body }
  } catch (err) {
    if (err instanceof ClientAborted || !(err instanceof ProviderFailure)) throw err
    if (coolsDown(err)) deps.cooldown.failure(provider.id, err.error.message)
    throw err.error
  }
}
