import type { UpstreamRequest } from '../providers/adapter'
import { keysAreUnique } from '../jsonText'

/** A request's body as it came: its text, and the value JSON.parse made of it. */
export interface SentBody {
  text: string
  json: unknown
}

/**
 * Sends the client's own text upstream where the body built for a provider is the client's: the
 * same fields with the same values. A native wire builds it so when nothing steered the request
 * (Claude Code's turn to Anthropic is `{ ...body, model }` with the model as sent), and
 * serialising it again cost ~0.75 ms of the event loop on a 190 KB turn (bench/README.md).
 *
 * The fields are noted as the request is read, before any stage runs: admission may set a missing
 * token limit on the body itself. Stages change the body only at its top (a copy, a field set or
 * replaced; estimate.ts's `setLimit` copies a parent it writes into), never inside a value the
 * client sent, so a change anywhere shows among the fields. The text goes only when it means to
 * the provider what it meant to the gateway (`keysAreUnique`), decided once a request.
 */
export class ClientText {
  private readonly fields: Map<string, unknown>
  private unique: boolean | null = null

  constructor(private readonly sent: SentBody) {
    this.fields = new Map(Object.entries(sent.json as object))
  }

  /** `request`, its body's text the client's where the body is the client's own. */
  of(request: UpstreamRequest): UpstreamRequest {
    if (!this.isSent(request.body)) return request
    this.unique ??= keysAreUnique(this.sent.text)
    return this.unique ? { ...request, text: this.sent.text } : request
  }

  private isSent(body: unknown): boolean {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
    let count = 0
    for (const key in body) {
      if (!Object.hasOwn(body, key)) continue
      const value = (body as Record<string, unknown>)[key]
      if (this.fields.get(key) !== value || (value === undefined && !this.fields.has(key))) return false
      count++
    }
    return count === this.fields.size
  }

  /** The text of a body that is a JSON object (the only kind a wire builds from), or nothing to compare with. */
  static of(sent: SentBody | null): ClientText | null {
    const json = sent?.json
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? new ClientText(sent!) : null
  }
}
