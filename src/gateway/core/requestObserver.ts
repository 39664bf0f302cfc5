import type { RequestRecord } from '../store/requestsRepo'

/**
 * Who learns of each recorded request besides the store and the log (metrics, traces). Called on
 * the request's own turn, after its record is queued: an observer must be cheap, keep no
 * reference it does not need, and never throw into the request.
 */
export interface RequestObserver {
  recorded(record: RequestRecord): void
}
