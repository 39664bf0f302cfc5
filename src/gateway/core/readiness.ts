import type { RecordBackpressure } from './recordBackpressure'
import { storeFailure } from '../store/storeFailure'

/** How long a store check's answer is reused: a load balancer polling every second costs at most one statement a second. */
const CACHE_MS = 1000

/** How long the store has to answer before the gateway says it is not ready. */
const ANSWER_MS = 2000

export type Readiness = { ready: true } | { ready: false; reason: string }

/**
 * Whether this gateway can serve the requests a load balancer would send it: its store answers a
 * statement (checked at most once every CACHE_MS, callers meanwhile sharing the answer or the
 * check under way) and it is not refusing requests for the records it holds. On SQLite the store
 * always answers once open.
 */
export class ReadinessCheck {
  private last: { at: number; readiness: Readiness } | null = null
  private checking: Promise<Readiness> | null = null

  constructor(
    private readonly ping: () => Promise<void>,
    private readonly backpressure: Pick<RecordBackpressure, 'refusal'>,
  ) {}

  async check(): Promise<Readiness> {
    const refused = this.backpressure.refusal()
    if (refused) return { ready: false, reason: refused.message }
    if (this.last && Date.now() - this.last.at < CACHE_MS) return this.last.readiness
    this.checking ??= this.askStore().then((readiness) => {
      this.last = { at: Date.now(), readiness }
      this.checking = null
      return readiness
    })
    return this.checking
  }

  private async askStore(): Promise<Readiness> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${ANSWER_MS / 1000} s`)), ANSWER_MS)
    })
    try {
      await Promise.race([this.ping(), late])
      return { ready: true }
    } catch (err) {
      return { ready: false, reason: `The gateway's store does not answer (${storeFailure(err)}).` }
    } finally {
      clearTimeout(timer)
    }
  }
}
