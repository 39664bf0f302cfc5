import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { PlaygroundEvent } from '../../src/contract/playground'
import { PlaygroundSink } from '../../src/gateway/admin/playground/playgroundSink'
import { playgroundWires } from '../../src/gateway/admin/playground/playgroundWires'

// Google's answers as a gemini-kind provider writes them (wire-format §8) and the native relay
// hands them on: chunks as their JSON text, the finishing one held back and given last with `gw`.
const gw = { request_id: 'req-1', routing: { provider: 'gemini', upstream_model: 'gemini-3-flash' }, cost: { final_usd: 0.0001 } }
const candidate = (parts: object[], finishReason?: string) => ({ content: { role: 'model', parts }, ...(finishReason && { finishReason }), index: 0 })

function playgroundOf() {
  const events: PlaygroundEvent[] = []
  return { events, sink: new PlaygroundSink(playgroundWires.gemini.reader, 'req-1', (e) => events.push(e)) }
}

describe("the Playground reading Google's generateContent answers", () => {
  it('streamed: the text parts as deltas (not the thought summaries), then the finishReason and gw of the last chunk', () => {
    const { events, sink } = playgroundOf()
    sink.open()
    for (const chunk of [
      { candidates: [candidate([{ thought: true, text: 'The user greets in English; answer in French.' }])], modelVersion: 'gemini-3-flash' },
      { candidates: [candidate([{ text: 'Bonjour' }, { thought: true, text: 'Add some warmth.' }])], modelVersion: 'gemini-3-flash' },
    ])
      sink.event({ type: undefined }, JSON.stringify(chunk))
    sink.end(
      [{ candidates: [candidate([{ text: ' !' }], 'STOP')], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 }, gw }],
      null,
    )
    assert.deepEqual(events, [
      { type: 'delta', content: 'Bonjour' },
      { type: 'delta', content: ' !' },
      { type: 'done', request_id: 'req-1', gw, finish_reason: 'STOP' },
    ])
  })

  it('whole: its text without the thoughts, its finishReason and gw', async () => {
    const { events, sink } = playgroundOf()
    await sink.json(JSON.stringify({ candidates: [candidate([{ thought: true, text: 'Short answer.' }, { text: 'Cut sh' }], 'MAX_TOKENS')], gw }))
    assert.deepEqual(events, [
      { type: 'delta', content: 'Cut sh' },
      { type: 'done', request_id: 'req-1', gw, finish_reason: 'MAX_TOKENS' },
    ])
  })
})
