import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SseParser } from '../../src/gateway/upstream/sse'

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
})
