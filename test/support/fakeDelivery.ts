import type { Sink } from '../../src/gateway/core/sink'
import type { Delivery, Dropped } from '../../src/gateway/core/wire'
import type { ApiError } from '../../src/gateway/errors'
import type { Target } from '../../src/gateway/pipeline/resolveModel'
import type { NormalizedUsage } from '../../src/gateway/pricing/types'
import { Redactor } from '../../src/gateway/secrets/redactor'
import { ClientAbort } from '../../src/gateway/upstream/clientAbort'

/** A provider's target as a delivery reads it: who answered (an OpenAI-compatible provider unless told otherwise). */
export function fakeTarget(provider: Partial<Target['provider']> = {}, upstreamModel = 'm'): Target {
  return {
    requested: upstreamModel,
    upstreamModel,
    priced: null,
    provider: {
      id: 'p',
      kind: 'openai',
      label: 'p',
      baseUrl: 'http://127.0.0.1:1',
      local: false,
      stored: false,
      timeouts: {},
      deadlines: { firstByteMs: 1000, idleMs: 1000 },
      wire: 'chat',
      dialect: null,
      ...provider,
    },
  }
}

/**
 * Where a delivery's answer goes, kept for the test to read: the whole answer, or the stream's
 * events and its end. `until` waits for what the delivery has sent so far to satisfy a test;
 * while `behind` is set the reader is behind (`wait` keeps the delivery's resume for `catchUp`).
 */
export class RecordingSink implements Sink {
  opened = false
  /** The stream's events as given, with their text where they went out as the provider sent them. */
  readonly events: Array<{ data: object; text?: string }> = []
  /** The stream's last events and how it ended, once it ended. */
  ended: { last: object[]; error: ApiError | null } | null = null
  /** A whole answer's text and headers. */
  answered: { text: string; headers: Record<string, string> } | null = null
  failed: ApiError | null = null
  abandoned = false
  behind = false
  /** How many times the delivery was told the reader is behind. */
  waits = 0
  private resume: (() => void) | null = null
  private readonly watchers = new Set<() => void>()

  async json(text: string, headers: Record<string, string>): Promise<void> {
    this.answered = { text, headers }
    this.changed()
  }

  open(): void {
    this.opened = true
    this.changed()
  }

  event(data: object, text?: string): void {
    this.events.push(text === undefined ? { data } : { data, text })
    this.changed()
  }

  wait(resume: () => void): boolean {
    if (!this.behind) return false
    this.waits++
    this.resume = resume
    this.changed()
    return true
  }

  /** The reader caught up: the delivery's resume is called. */
  catchUp(): void {
    this.behind = false
    const resume = this.resume
    this.resume = null
    resume?.()
  }

  end(last: object[], error: ApiError | null): void {
    this.ended = { last, error }
    this.changed()
  }

  error(error: ApiError): void {
    this.failed = error
    this.changed()
  }

  abandon(): void {
    this.abandoned = true
    this.changed()
  }

  /** The events' data, in order. */
  get data(): any[] {
    return this.events.map((e) => e.data)
  }

  /** Resolves once `test` holds of what was sent (checked now, and at every call of the sink). */
  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve()
    return new Promise((resolve) => {
      const watcher = () => {
        if (!test()) return
        this.watchers.delete(watcher)
        resolve()
      }
      this.watchers.add(watcher)
    })
  }

  private changed(): void {
    for (const w of [...this.watchers]) w()
  }
}

/**
 * The core's side of a delivery, as a wire's grammar sees it, for testing a grammar without the
 * core: it keeps what the grammar told it (first byte, ignored fields, the usage it closed with)
 * and closes with a fixed `gw` block (`FakeDelivery.gw`), so a test sees where the block went.
 * `ready()` waits for the held writes, or rejects with the error `refuse` set, as the core's does
 * when the store refuses a charge; `readied` resolves when the delivery first asks it.
 */
export class FakeDelivery implements Delivery {
  static readonly gw = { request_id: 'req_test', routing: {} as never, cost: null }
  readonly signal = new ClientAbort()
  readonly redactor = new Redactor()
  firstBytes = 0
  readonly ignored: Dropped[] = []
  readonly held: Promise<unknown>[] = []
  closedWith: NormalizedUsage | null | undefined = undefined
  readonly readied: Promise<void>
  private refusal: ApiError | null = null
  private markReadied!: () => void

  constructor(
    readonly sink: Sink,
    readonly target: Target = fakeTarget(),
    readonly stream = true,
    readonly logging = false,
  ) {
    this.readied = new Promise((resolve) => (this.markReadied = resolve))
  }

  /** What must be stored before the answer's end cannot be: `ready()` rejects with `error`. */
  refuse(error: ApiError): void {
    this.refusal = error
  }

  firstByte(): void {
    this.firstBytes++
  }

  ignore(d: Dropped): void {
    this.ignored.push(d)
  }

  hold(write: Promise<unknown>): void {
    this.held.push(write)
  }

  close(usage: NormalizedUsage | null) {
    this.closedWith = usage
    return FakeDelivery.gw
  }

  ready(): Promise<void> | null {
    this.markReadied()
    if (this.refusal) return Promise.reject(this.refusal)
    return this.held.length ? Promise.all(this.held).then(() => undefined) : null
  }

  headers(): Record<string, string> {
    return { 'x-gw-request-id': 'req_test' }
  }
}
