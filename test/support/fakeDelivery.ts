import type { Sink } from '../../src/gateway/core/sink'
import type { Delivery, Dropped } from '../../src/gateway/core/wire'
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
 * The core's side of a delivery, as a wire's grammar sees it, for testing a grammar without the
 * core: it keeps what the grammar told it (first byte, ignored fields, the usage it closed with)
 * and closes with a `gw` block naming that usage, so a test sees where the block went.
 */
export class FakeDelivery implements Delivery {
  readonly signal = new ClientAbort()
  readonly redactor = new Redactor()
  firstBytes = 0
  readonly ignored: Dropped[] = []
  readonly held: Promise<unknown>[] = []
  closedWith: NormalizedUsage | null | undefined = undefined

  constructor(
    readonly sink: Sink,
    readonly target: Target = fakeTarget(),
    readonly stream = true,
    readonly logging = false,
  ) {}

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
    return { request_id: 'req_test', routing: {} as never, cost: null }
  }

  ready(): Promise<void> | null {
    return this.held.length ? Promise.all(this.held).then(() => undefined) : null
  }

  headers(): Record<string, string> {
    return { 'x-gw-request-id': 'req_test' }
  }
}
