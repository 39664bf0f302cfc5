import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors'
import type { Gateway } from '../gateway'
import { debitBeforeDelivery, settleCharge } from '../pipeline/charge'
import { ClientAbort } from '../pipeline/clientAbort'
import { RequestContext } from '../pipeline/requestContext'
import { ClientAborted } from '../providers/sendToProvider'
import type { Outcome, RequestRecord } from '../store/requestsRepo'
import { logInference } from './requestLog'

/** nginx's convention for "client closed the request": no response was ever sent. */
export const CLIENT_CLOSED = 499

export interface Finished {
  status: number
  outcome: Outcome
  error?: ApiError | null
}

/**
 * Runs one inference request through the pipeline and records it, whatever happens: the record
 * is written for every request that passed authentication (success, caller error, provider
 * failure, client abort). The signal aborts the upstream call the moment the client goes away.
 * A prepaid charge is in the ledger before the end of the answer goes out (`beforeDelivery`), or
 * at the latest here, before the record is queued.
 */
export async function runRecorded(
  gw: Gateway,
  req: FastifyRequest,
  reply: FastifyReply,
  endpoint: RequestRecord['endpoint'],
  handler: (ctx: RequestContext, signal: ClientAbort) => Promise<Finished>,
): Promise<void> {
  // Configuration was refreshed as this request arrived (app.ts onRequest): a change takes
  // effect from the next request, read once per request.
  const internal = gw.isInternal(req.headers['gw-internal-token'])
  const key = internal
    ? gw.keyIndex.authenticateById(String(req.headers['gw-internal-key-id']))
    : gw.keyIndex.authenticate(req.headers.authorization)
  const ctx = new RequestContext(req.id, endpoint, key)
  if (internal) ctx.source = 'playground'
  if (key.prepaid === 1) ctx.beforeDelivery = () => debitBeforeDelivery(gw.balances, ctx)
  const abort = new ClientAbort()
  const onClose = () => {
    if (!reply.raw.writableFinished) abort.abort()
  }
  reply.raw.once('close', onClose)
  let finished: Finished
  try {
    finished = await handler(ctx, abort)
  } catch (err) {
    if (err instanceof ClientAborted || abort.aborted) {
      finished = { status: CLIENT_CLOSED, outcome: 'aborted' }
    } else {
      // An ApiError is an answer; anything else is a defect, and its stack is what finds it.
      if (!(err instanceof ApiError)) req.log.error({ err }, 'internal error')
      const apiError =
        err instanceof ApiError ? err : new ApiError(500, 'server_error', `internal error: ${(err as Error).message}`, 'internal_error')
      finished = { status: apiError.status, outcome: 'error', error: apiError }
    }
  }
  const debit = settleCharge(gw.balances, ctx)
  const record = ctx.toRecord(finished.status, finished.outcome, finished.error ?? null)
  if (record) gw.records.push(record, debit, gw.settings.log_bodies ? ctx.bodies : null)
  logInference(req, ctx, finished.status, finished.outcome, finished.error ?? null, record?.latency_ms ?? ctx.elapsedMs())
  if (finished.outcome === 'aborted' && !reply.sent) reply.hijack()
  else if (finished.error && !reply.sent) throw finished.error
}
