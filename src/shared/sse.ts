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
const COLON = 58
const SPACE = 32
/** Decoding a read keeps a partial UTF-8 sequence for the next one; one options object for all reads. */
const STREAMING = { stream: true }

/**
 * Incremental SSE parser, for providers' streams in the gateway and the Playground's in the
 * dashboard (pure: no Node module, so both can use it): accepts \n, \r\n and \r line ends, multi-line
 * `data:` fields, `event:` names, and comment lines (`: keep-alive`, `: OPENROUTER PROCESSING`),
 * and keeps partial lines (and partial UTF-8 sequences, through the decoder) across reads.
 *
 * Each read is scanned once: a line that spans reads is kept as its pieces and joined once at
 * its end, so a line of n bytes costs O(n) however many reads bring it. Throws SseLimitError
 * when a line or an event outgrows `maxChars`.
 *
 * It runs once for every event a stream relays, so a line costs one slice (its value) and an
 * event one object: a read without \r is split with indexOf rather than the regular expression,
 * and a field's name is compared in place rather than cut out.
 */
export class SseParser {
  private readonly decoder = new TextDecoder()
  /** Pieces of the line not yet ended, and their length. */
  private pieces: string[] = []
  private pending = 0
  /** The last read ended in \r: a \n starting the next one is the same line end. */
  private afterCR = false
  private event: string | null = null
  /** The event's data lines so far, joined by \n; null before its first. */
  private data: string | null = null

  constructor(private readonly maxChars = MAX_SSE_LINE_CHARS) {}

  push(bytes: Uint8Array): SseEvent[] {
    const out: SseEvent[] = []
    this.scan(this.decoder.decode(bytes, STREAMING), out)
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
    if (text.indexOf('\r', start) === -1) {
      // \n alone ends lines (what nearly every provider sends).
      for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
        this.line(this.take(text.slice(start, end)), out)
        start = end + 1
      }
    } else {
      LINE_END.lastIndex = start
      let m: RegExpExecArray | null
      while ((m = LINE_END.exec(text))) {
        this.line(this.take(text.slice(start, m.index)), out)
        start = m.index + m[0].length
      }
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
    if (line.length === 0) {
      if (this.data !== null) out.push({ event: this.event, data: this.data })
      this.event = null
      this.data = null
      return
    }
    if (line.charCodeAt(0) === COLON) return
    let colon = line.indexOf(':')
    if (colon === -1) colon = line.length
    // The value starts after the colon and one space, if there is one.
    const from = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1
    if (colon === 4 && line.startsWith('data')) {
      const value = from >= line.length ? '' : line.slice(from)
      if (this.data === null) this.data = value
      else {
        if (this.data.length + 1 + value.length > this.maxChars) this.tooLong('event')
        this.data += '\n' + value
      }
    } else if (colon === 5 && line.startsWith('event')) this.event = from >= line.length ? '' : line.slice(from)
  }

  private tooLong(what: 'line' | 'event'): never {
    throw new SseLimitError(`sent an SSE ${what} longer than the gateway's limit of ${this.maxChars} characters`)
  }
}
