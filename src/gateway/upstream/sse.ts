export interface SseEvent {
  event: string | null
  data: string
}

/**
 * Incremental SSE parser for upstream streams: accepts \n, \r\n and \r line ends, multi-line
 * `data:` fields, `event:` names, and comment lines (`: keep-alive`, `: OPENROUTER PROCESSING`),
 * and keeps partial lines (and partial UTF-8 sequences, through the decoder) across reads.
 */
export class SseParser {
  private readonly decoder = new TextDecoder()
  private buffer = ''
  private event: string | null = null
  private data: string[] = []

  push(bytes: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(bytes, { stream: true })
    return this.drain(false)
  }

  /** Whatever is left when the upstream closes (a last event without its blank line still counts). */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode()
    return this.drain(true)
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = []
    const lineEnd = /\r\n|\r|\n/g
    let start = 0
    let m: RegExpExecArray | null
    while ((m = lineEnd.exec(this.buffer))) {
      // A lone \r at the end of the buffer may be the first half of \r\n.
      if (m[0] === '\r' && m.index + 1 === this.buffer.length && !final) break
      this.line(this.buffer.slice(start, m.index), out)
      start = m.index + m[0].length
    }
    this.buffer = this.buffer.slice(start)
    if (final) {
      if (this.buffer) this.line(this.buffer, out)
      this.buffer = ''
      this.line('', out)
    }
    return out
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n') })
      this.event = null
      this.data = []
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
  }
}
