import type { Logger } from 'pino'
import { ApiError } from '../errors'
import type { RecordBacklog } from '../store/store'

/** What a gateway holds in memory for a store that does not take its records (GatewayConfig's maxQueued…). */
export interface BacklogBound {
  records: number
  bytes: number
}

/** What a refused client is told to wait before it tries again (the SDKs honour retry-after on a 503). */
const RETRY_AFTER_S = 5

const MB = 1024 * 1024

/**
 * Every request's record is kept until the store has it: none is dropped while the database is
 * unreachable. So that this cannot grow without bound, a new request is refused (503, before it
 * reaches a provider) while the records held reach the bound; records of requests already under
 * way are still kept, so the backlog may pass the bound by the requests in flight. Refused
 * requests are not recorded (that would grow the backlog it protects); each has its line in the
 * gateway's log, and the log says when refusing begins and ends.
 */
export class RecordBackpressure {
  private refusing = false

  constructor(
    private readonly backlog: () => RecordBacklog,
    private readonly bound: BacklogBound,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /** Null while a new request may be admitted; otherwise the 503 to refuse it with, saying why. */
  refusal(): ApiError | null {
    const backlog = this.backlog()
    const full = backlog.records >= this.bound.records || backlog.bytes >= this.bound.bytes
    if (full !== this.refusing) {
      this.refusing = full
      if (full) this.log.warn({ records: backlog.records, bytes: backlog.bytes }, `refusing new requests: ${this.why(backlog)}`)
      else this.log.info({ records: backlog.records, bytes: backlog.bytes }, 'accepting new requests again: the store took the records held')
    }
    if (!full) return null
    return new ApiError(503, 'server_error', `${this.why(backlog)}; new requests are refused until the store has them.`, 'store_unavailable', null, {
      'retry-after': String(RETRY_AFTER_S),
    })
  }

  private why(backlog: RecordBacklog): string {
    const held = `${backlog.records} request records are waiting to be written (${Math.ceil(backlog.bytes / MB)} MB; the gateway holds at most ${this.bound.records} records or ${Math.round(this.bound.bytes / MB)} MB)`
    if (backlog.failingSince === null) return `The gateway's store is behind: ${held}`
    const seconds = Math.max(0, Math.round((Date.now() - backlog.failingSince) / 1000))
    return `The gateway's store has been unreachable for ${seconds} s and ${held}`
  }
}
