import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_SSE_LINE_CHARS, SseLimitError, SseParser } from '../../src/shared/sse'

const bytes = (s: string) => new TextEncoder().encode(s)

describe('SSE parser', () => {
  it('parses unnamed data events and [DONE]', () => {
    const p = new SseParser()
    const events = p.push(bytes('data: {"a":1}\n\ndata: [DONE]\n\n'))
    assert.deepEqual(events, [
      { event: null, data: '{"a":1}' },
      { event: null, data: '[DONE]' },
    ])
  })

  it('handles \\r\\n and \\r line ends, comments, event names and multi-line data', () => {
    const p = new SseParser()
    const events = p.push(bytes(': keep-alive\r\n\r\nevent: ping\rdata: {}\r\revent: message_start\r\ndata: line1\r\ndata: line2\r\n\r\n'))
    assert.deepEqual(events, [
      { event: 'ping', data: '{}' },
      { event: 'message_start', data: 'line1\nline2' },
    ])
  })

  it('reads fields as the SSE spec does: one optional space, a bare name, unknown fields and look-alike names ignored', () => {
    const p = new SseParser()
    const events = p.push(bytes('data:a\ndata\ndata:  b\nid: 7\nretry: 10\ndatas: no\nevents: no\nevent\n\nevent:named\ndata: c\n\n'))
    assert.deepEqual(events, [
      { event: '', data: 'a\n\n b' },
      { event: 'named', data: 'c' },
    ])
  })

  it('reads \n-only reads and \r reads of one stream alike, whichever comes first', () => {
    const p = new SseParser()
    const out = [...p.push(bytes('data: 1\n\nda')), ...p.push(bytes('ta: 2\r\n\r\ndata: 3\n')), ...p.push(bytes('\ndata: 4\r')), ...p.push(bytes('\n\r\n'))]
    assert.deepEqual(
      out.map((e) => e.data),
      ['1', '2', '3', '4'],
    )
  })

  it('keeps frames split across reads, including inside a UTF-8 sequence and between \\r and \\n', () => {
    const p = new SseParser()
    const whole = bytes('data: {"t":"héllo ✓"}\r\n\r\n')
    const out = []
    for (let i = 0; i < whole.length; i++) out.push(...p.push(whole.slice(i, i + 1)))
    assert.deepEqual(out, [{ event: null, data: '{"t":"héllo ✓"}' }])
  })

  it('emits a last event that lacks its blank line when the stream ends', () => {
    const p = new SseParser()
    assert.deepEqual(p.push(bytes('data: tail')), [])
    assert.deepEqual(p.end(), [{ event: null, data: 'tail' }])
  })

  it('joins a line that arrives over many reads, and a \r\n split between two of them', () => {
    const p = new SseParser()
    const value = 'x'.repeat(100_000)
    const whole = bytes(`data: ${value}\r\n\r\ndata: next\r`)
    const out = []
    for (let i = 0; i < whole.length; i += 1000) out.push(...p.push(whole.slice(i, i + 1000)))
    out.push(...p.push(bytes('\n\r\n')))
    assert.deepEqual(out, [
      { event: null, data: value },
      { event: null, data: 'next' },
    ])
  })

  it('takes a line of exactly the limit and refuses one character more, naming the limit', () => {
    const ok = new SseParser(10)
    assert.deepEqual(ok.push(bytes('data: 1234\n\n')), [{ event: null, data: '1234' }])
    const over = new SseParser(10)
    assert.throws(
      () => over.push(bytes('data: 12345\n\n')),
      (err: Error) => err instanceof SseLimitError && /line longer than .* 10 characters/.test(err.message),
    )
  })

  it('refuses an over-long line while it is still arriving, without waiting for its end', () => {
    const p = new SseParser()
    const piece = new Uint8Array(64 * 1024).fill(0x61)
    p.push(bytes('data: '))
    let pushed = 0
    assert.throws(() => {
      while (pushed < 2 * MAX_SSE_LINE_CHARS) {
        p.push(piece)
        pushed += piece.length
      }
    }, SseLimitError)
    assert.ok(pushed <= MAX_SSE_LINE_CHARS, `read ${pushed} bytes past the limit`)
  })

  it('refuses an event whose data lines together outgrow the limit', () => {
    const p = new SseParser(10)
    assert.deepEqual(p.push(bytes('data: 1234\ndata: 1234\n')), [])
    assert.throws(
      () => p.push(bytes('data: 1\n')),
      (err: Error) => err instanceof SseLimitError && /event longer/.test(err.message),
    )
  })
})
