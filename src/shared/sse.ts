export interface SseEvent {
  event: string | null
  data: string
}

/**
 * The longest line, and the most `data` one event may gather, in characters: 16 MiB. Far above
 * any real provider event (a large tool-call argument or a base64 image is a few MB), and it
 * bounds what one stream can make the gateway hold.
 */
export const MAX_SSE_LINE_CHARS = 16 * 1024 * 1024

/** A stream broke the parser's bounds; nothing more of it can be read. */
export class SseLimitError extends Error {}

const LINE_END = /\r\n|\r|\n/g
const CR = 13
const LF = 10

/**
 * Incremental SSE parser, for providers' streams in the gateway and the Playground's in the
 * dashboard (pure: no Node module, so both can use it): accepts \n, \r\n and \r line ends, multi-line
 * `data:` fields, `event:` names, and comment lines (`: keep-alive`, `: OPENROUTER PROCESSING`),
 * and keeps partial lines (and partial UTF-8 sequences, through the decoder) across reads.
 *
 * Each read is scanned once: a line that spans reads is kept as its pieces and joined once at
 * its end, so a line of n bytes costs O(n) however many reads bring it. Throws SseLimitError
 * when a line or an event outgrows `maxChars`.
 */
export class SseParser {
  private readonly decoder = new TextDecoder()
  /** Pieces of the line not yet ended, and their length. */
  private pieces: string[] = []
  private pending = 0
  /** The last read ended in \r: a \n starting the next one is the same line end. */
  private afterCR = false
  private event: string | null = null
  private data: string[] = []
  private dataChars = 0

  constructor(private readonly maxChars = MAX_SSE_LINE_CHARS) {}

  push(bytes: Uint8Array): SseEvent[] {
    const out: SseEvent[] = []
    this.scan(this.decoder.decode(bytes, { stream: true }), out)
    return out
  }

  /** Whatever is left when the upstream closes (a last event without its blank line still counts). */
  end(): SseEvent[] {
    const out: SseEvent[] = []
    this.scan(this.decoder.decode(), out)
    if (this.pending > 0) this.line(this.take(''), out)
    this.line('', out)
    return out
  }

  private scan(text: string, out: SseEvent[]): void {
    let start = this.afterCR && text.charCodeAt(0) === LF ? 1 : 0
    LINE_END.lastIndex = start
    let m: RegExpExecArray | null
    while ((m = LINE_END.exec(text))) {
      this.line(this.take(text.slice(start, m.index)), out)
      start = m.index + m[0].length
    }
    if (text.length > 0) this.afterCR = start === text.length && text.charCodeAt(start - 1) === CR
    if (start < text.length) {
      this.pending += text.length - start
      if (this.pending > this.maxChars) this.tooLong('line')
      this.pieces.push(text.slice(start))
    }
  }

  /** The whole line whose last piece is `tail`. */
  private take(tail: string): string {
    if (this.pending + tail.length > this.maxChars) this.tooLong('line')
    if (this.pending === 0) return tail
    this.pieces.push(tail)
    const whole = this.pieces.join('')
    this.pieces = []
    this.pending = 0
    return whole
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ event: this.event, data: this.data.join('\n') })
      this.event = null
      this.data = []
      this.dataChars = 0
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') {
      // As joined: the values and a \n between each two.
      this.dataChars += value.length + (this.data.length > 0 ? 1 : 0)
      if (this.dataChars > this.maxChars) this.tooLong('event')
      this.data.push(value)
    } else if (field === 'event') this.event = value
  }

  private tooLong(what: 'line' | 'event'): never {
    throw new SseLimitError(`sent an SSE ${what} longer than the gateway's limit of ${this.maxChars} characters`)
  }
}
