import type { PlaygroundEvent } from '../../../contract/playground'
import type { Sink } from '../../core/sink'
import type { ApiError } from '../../errors'

/** What the Playground shows of one piece of an answer: text, the stop reason, the routing and cost, or the failure it ended with. */
export interface Reading {
  text?: string
  stop?: string
  gw?: Record<string, unknown>
  error?: ApiError
}

/** How the Playground reads one wire's answers: its stream events and its whole answer. */
export interface AnswerReader {
  /** One stream event as the wire delivered it (its JSON `text` when untouched since the provider sent it). */
  event(data: object, text?: string): Reading
  /** A whole answer, with its `gw` block. */
  answer(json: Record<string, unknown>): Reading
}

/** An answer, in whatever wire it travels, as Playground events: its text as it comes, then the routing and cost, or an error. */
export class PlaygroundSink implements Sink {
  private started = false
  private stop: string | null = null

  constructor(
    private readonly reader: AnswerReader,
    private readonly requestId: string,
    private readonly emit: (event: PlaygroundEvent) => void,
  ) {}

  async json(text: string): Promise<void> {
    this.started = true
    this.show(this.reader.answer(JSON.parse(text) as Record<string, unknown>))
  }

  open(): void {
    this.started = true
  }

  event(data: object, text?: string): void {
    this.show(this.reader.event(data, text))
  }

  /** Events reach the dashboard's transport as they are emitted: nothing to wait for. */
  wait(): boolean {
    return false
  }

  end(last: object[], error: ApiError | null): void {
    for (const event of last) this.event(event)
    if (error) this.tell(error)
  }

  error(error: ApiError): void {
    if (!this.started) this.tell(error)
  }

  abandon(): void {}

  private show({ text, stop, gw, error }: Reading): void {
    if (text) this.emit({ type: 'delta', content: text })
    if (stop) this.stop = stop
    if (error) this.tell(error)
    else if (gw) this.emit({ type: 'done', request_id: this.requestId, gw, finish_reason: this.stop })
  }

  private tell(error: ApiError): void {
    this.emit({ type: 'error', request_id: this.requestId, status: error.status, error: { message: error.message, type: error.type, code: error.code } })
  }
}
