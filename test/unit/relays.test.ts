import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import type { Delivery } from '../../src/gateway/core/wire'
import { ZERO_USAGE } from '../../src/gateway/pricing/usage'
import { OpenAIChunks, type ChunkEncoder } from '../../src/gateway/wires/chat/chatStream'
import { deliverWith } from '../../src/gateway/wires/deliver'
import { MessagesEvents } from '../../src/gateway/wires/messages/chatStreamToMessages'
import { anthropicEvents } from '../../src/gateway/wires/messages/messagesStream'
import { relayNativeStream } from '../../src/gateway/wires/nativeStream'
import { ResponsesEvents } from '../../src/gateway/wires/responses/chatStreamToResponses'
import { responsesEvents } from '../../src/gateway/wires/responses/responsesStream'
import { ToolNames } from '../../src/gateway/wires/responses/responsesTools'
import { translatedGrammar } from '../../src/gateway/wires/translatedAnswer'
import { FakeDelivery, RecordingSink } from '../support/fakeDelivery'
import { FakeUpstream, sse } from '../support/fakeUpstream'

// The prompt a stream cut short is estimated from: 32 characters of JSON, 8 tokens at 4 a token.
const PROMPT = [{ role: 'user', content: 'hi' }]
const PROMPT_TOKENS = 8

const usageOf = (prompt: number, completion: number) => ({
  ...ZERO_USAGE,
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
})

/** OpenAI's chat chunks, as its API streams them once usage is asked for (`usage: null` on each). */
const envelope = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', system_fingerprint: 'fp_1' }
const chunk = (delta: object, finish: string | null = null) => sse({ ...envelope, choices: [{ index: 0, delta, finish_reason: finish }], usage: null })
const usageChunk = sse({ ...envelope, choices: [], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } })
const ROLE = chunk({ role: 'assistant', content: '' })
const HELLO = chunk({ content: 'Hello' })
const FINISH = chunk({}, 'stop')
const DONE = sse('[DONE]')

/** A delivery of a streamed answer from provider `p`, and the provider's body whose reads the test writes. */
function streaming() {
  const sink = new RecordingSink()
  const out = new FakeDelivery(sink)
  const upstream = new FakeUpstream(out.signal)
  return { sink, out, upstream }
}

/**
 * A chat stream from an OpenAI-compatible provider, delivered as the chat-completions paths do it
 * (`deliverWith` a translated grammar, the adapter reading the provider's chunks), the client's
 * events written by `encoder`.
 */
function chatRelay(encoder: (out: Delivery) => ChunkEncoder) {
  const s = streaming()
  const grammar = translatedGrammar({ whole: () => assert.fail('the answer is streamed'), events: encoder, prompt: PROMPT })
  const done = deliverWith(grammar, s.upstream.response, s.out)
  return { ...s, done }
}

const refusal = new ApiError(503, 'server_error', 'The charge for this answer could not be stored, so the answer is withheld: disk full', 'ledger_unavailable')

describe('the chat relay, as OpenAI chunks', () => {
  it('a complete stream goes out priced: the finishing chunk waits for the usage and carries the gw block in the end', async () => {
    const { sink, out, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    // Split across reads on purpose: the usage chunk in two, the finish and [DONE] in one.
    const usageText = usageChunk
    upstream.send(ROLE + HELLO, FINISH + usageText.slice(0, 20), usageText.slice(20) + DONE)
    upstream.end()
    const delivered = await done
    assert.deepEqual(delivered, { status: 200, outcome: 'ok', usage: usageOf(12, 5), logged: null })
    assert.deepEqual(out.closedWith, usageOf(12, 5), 'the core priced the provider’s usage')
    assert.equal(sink.opened, true)
    assert.deepEqual(
      sink.data.map((c) => c.choices[0].delta),
      [{ role: 'assistant', content: '' }, { content: 'Hello' }],
    )
    assert.ok(
      sink.data.every((c) => !('usage' in c)),
      'a client that did not ask for usage gets none',
    )
    assert.equal(sink.ended?.error, null)
    assert.deepEqual(sink.ended?.last, [{ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], gw: FakeDelivery.gw }])
    // Each write told: the two events, and the end (which is the first byte of a stream whose every event is its last).
    assert.equal(out.firstBytes, 3)
  })

  it('with include_usage, the provider’s usage chunk follows the finish and carries the gw block', async () => {
    const { sink, upstream, done } = chatRelay((o) => new OpenAIChunks(o, true))
    upstream.send(ROLE, HELLO, FINISH, usageChunk, DONE)
    upstream.end()
    assert.equal((await done).outcome, 'ok')
    const [finish, usage] = sink.ended!.last as any[]
    assert.equal(finish.choices[0].finish_reason, 'stop')
    assert.equal(finish.gw, undefined)
    assert.deepEqual(usage, {
      ...envelope,
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      gw: FakeDelivery.gw,
    })
  })

  it('a stream cut before its finish ends with the error event and is charged for what was generated, estimated', async () => {
    const { sink, out, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    upstream.send(ROLE, chunk({ content: 'Hello wor' }))
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.equal(delivered.error?.code, 'upstream_incomplete')
    // 9 characters generated: 3 tokens at 4 a token.
    assert.deepEqual(delivered.usage, usageOf(PROMPT_TOKENS, 3))
    assert.equal(delivered.estimated, true)
    assert.deepEqual(sink.ended, { last: [], error: delivered.error })
    assert.equal(out.closedWith, undefined, 'an unfinished answer is not closed: the core prices what the relay returned')
  })

  it('a connection that breaks after the finish still owes the client the finishing chunk before the error', async () => {
    const { sink, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    upstream.send(ROLE, HELLO, FINISH)
    await sink.until(() => sink.events.length === 2)
    upstream.cut()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.equal(sink.ended?.error, delivered.error)
    assert.deepEqual(
      (sink.ended?.last as any[]).map((c) => c.choices[0].finish_reason),
      ['stop'],
    )
  })

  it('a client that leaves mid-stream: aborted, with the partial usage, and nothing more is sent', async () => {
    const { sink, out, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    upstream.send(ROLE, HELLO)
    await sink.until(() => sink.events.length === 2)
    out.signal.abort()
    const delivered = await done
    // "Hello": 5 characters, 2 tokens.
    assert.deepEqual(delivered, { status: 200, outcome: 'aborted', usage: usageOf(PROMPT_TOKENS, 2), estimated: true })
    assert.equal(sink.ended, null)
  })

  it('an error event from the provider ends the stream with the gateway’s error, naming the provider', async () => {
    const { sink, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    upstream.send(ROLE, HELLO, sse({ error: { message: 'The server is overloaded', type: 'server_error', param: null, code: null } }))
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.match(delivered.error!.message, /^p: The server is overloaded/)
    assert.deepEqual(sink.ended, { last: [], error: delivered.error })
    assert.deepEqual(delivered.usage, usageOf(PROMPT_TOKENS, 2))
  })

  it('a client that reads slowly pauses the provider, and the stream goes on when it catches up', async () => {
    const { sink, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    sink.behind = true
    upstream.send(ROLE)
    await sink.until(() => sink.waits === 1)
    assert.equal(upstream.body.isPaused(), true)
    upstream.send(HELLO, FINISH, usageChunk, DONE)
    assert.equal(sink.events.length, 1, 'nothing is read while the client is behind')
    sink.catchUp()
    upstream.end()
    assert.equal((await done).outcome, 'ok')
    assert.equal(sink.events.length, 2)
    assert.equal(sink.ended?.error, null)
  })

  it('the end waits for the writes held for it, and goes out only once they are stored', async () => {
    const { sink, out, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    let stored!: () => void
    out.hold(new Promise<void>((resolve) => (stored = resolve)))
    upstream.send(ROLE, HELLO, FINISH, usageChunk, DONE)
    upstream.end()
    await out.readied
    assert.equal(sink.ended?.last, undefined, 'the end is held while the write is pending')
    stored()
    assert.equal((await done).outcome, 'ok')
    assert.equal(sink.ended?.error, null)
  })

  it('a refused charge withholds the end: the finishing chunk stays back and the stream ends with the refusal', async () => {
    const { sink, out, upstream, done } = chatRelay((o) => new OpenAIChunks(o, false))
    out.refuse(refusal)
    upstream.send(ROLE, HELLO, FINISH, usageChunk, DONE)
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.equal(delivered.error, refusal)
    assert.deepEqual(sink.ended, { last: [], error: refusal })
    assert.deepEqual(delivered.usage, usageOf(12, 5), 'charged for what the provider reported')
  })
})

describe('the chat relay, through a translated encoder', () => {
  it('as Anthropic’s Messages events: complete, priced, with the gw event before message_stop', async () => {
    const { sink, out, upstream, done } = chatRelay((o) => new MessagesEvents(o, { model: 'claude-x', stopSequences: undefined }))
    upstream.trickle(ROLE + HELLO + FINISH + usageChunk + DONE, 50)
    upstream.end()
    assert.equal((await done).outcome, 'ok')
    assert.deepEqual(out.closedWith, usageOf(12, 5))
    assert.deepEqual(
      sink.data.map((e) => e.type),
      ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop'],
    )
    assert.equal(sink.data[2].delta.text, 'Hello')
    const last = sink.ended!.last as any[]
    assert.deepEqual(
      last.map((e) => e.type),
      ['message_delta', 'gw', 'message_stop'],
    )
    assert.equal(last[0].delta.stop_reason, 'end_turn')
    assert.equal(last[0].usage.output_tokens, 5)
    assert.equal(last[1].gw, FakeDelivery.gw)
  })

  it('as Responses events: a stream cut short ends the API’s way, with response.failed and no error event', async () => {
    const names = new ToolNames()
    const { sink, upstream, done } = chatRelay(
      (o) => new ResponsesEvents(o, { model: 'm', body: { model: 'm', input: 'hi' }, names, createdAt: 1_790_000_000, keep: null }),
    )
    upstream.send(ROLE, HELLO)
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.equal(delivered.estimated, true)
    assert.equal(sink.ended?.error, null)
    const [failed] = sink.ended!.last as any[]
    assert.equal(failed.type, 'response.failed')
    assert.equal(failed.response.error.code, 'upstream_incomplete')
    assert.equal(failed.response.output[0].status, 'incomplete')
  })
})

/** Anthropic's Messages stream, as its API writes it. */
const anthropic = {
  start: sse(
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 25, output_tokens: 1 },
      },
    },
    'message_start',
  ),
  block: sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
  ping: sse({ type: 'ping' }, 'ping'),
  delta: sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }, 'content_block_delta'),
  blockStop: sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
  messageDelta: sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } }, 'message_delta'),
  stop: sse({ type: 'message_stop' }, 'message_stop'),
}

function anthropicRelay() {
  const s = streaming()
  const done = relayNativeStream(s.out, s.upstream.response, anthropicEvents(s.out))
  return { ...s, done }
}

describe('the native relay: Anthropic’s events', () => {
  it('relays each event as the provider wrote it, and holds message_stop back for the gw event', async () => {
    const { sink, out, upstream, done } = anthropicRelay()
    const all = Object.values(anthropic).join('')
    upstream.trickle(all, 17)
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'ok')
    assert.equal(delivered.usage?.prompt_tokens, 25)
    assert.equal(delivered.usage?.completion_tokens, 15)
    assert.deepEqual(out.closedWith, delivered.usage)
    assert.deepEqual(
      sink.events.map((e) => (e.data as { type: string }).type),
      ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_stop', 'message_delta'],
    )
    assert.equal(sink.events[3].text, anthropic.delta.slice('event: content_block_delta\ndata: '.length, -2), 'the provider’s text goes out as it came')
    assert.deepEqual(sink.ended, { last: [{ type: 'gw', gw: FakeDelivery.gw }, { type: 'message_stop' }], error: null })
  })

  it('an error event ends the stream with the gateway’s error, charged for the usage reported so far', async () => {
    const { sink, upstream, done } = anthropicRelay()
    upstream.send(
      anthropic.start,
      anthropic.block,
      anthropic.delta,
      sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error'),
    )
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.match(delivered.error!.message, /Overloaded/)
    assert.deepEqual(sink.ended, { last: [], error: delivered.error })
    assert.equal(delivered.usage?.prompt_tokens, 25)
    assert.equal(delivered.estimated, true)
  })

  it('a client that leaves: aborted, with the prompt the provider reported', async () => {
    const { sink, out, upstream, done } = anthropicRelay()
    upstream.send(anthropic.start, anthropic.block)
    await sink.until(() => sink.events.length === 2)
    out.signal.abort()
    const delivered = await done
    assert.equal(delivered.outcome, 'aborted')
    assert.equal(delivered.usage?.prompt_tokens, 25)
    assert.equal(delivered.estimated, true)
    assert.equal(sink.ended, null)
  })

  it('a refused charge withholds message_stop and the gw event: the stream ends with the refusal', async () => {
    const { sink, out, upstream, done } = anthropicRelay()
    out.refuse(refusal)
    upstream.send(...Object.values(anthropic))
    upstream.end()
    const delivered = await done
    assert.equal(delivered.error, refusal)
    assert.deepEqual(sink.ended, { last: [], error: refusal })
  })
})

/** OpenAI's Responses stream, as its API writes it (each event named twice). */
const response = (status: string, extra: object = {}) => ({ id: 'resp_1', object: 'response', status, model: 'm', output: [], ...extra })
const responses = {
  created: sse({ type: 'response.created', sequence_number: 0, response: response('in_progress', { usage: null }) }, 'response.created'),
  delta: sse(
    { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello there', logprobs: [] },
    'response.output_text.delta',
  ),
  completed: sse(
    {
      type: 'response.completed',
      sequence_number: 2,
      response: response('completed', {
        usage: {
          input_tokens: 20,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 7,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 27,
        },
      }),
    },
    'response.completed',
  ),
}

function responsesRelay(stored: boolean) {
  const s = streaming()
  const done = relayNativeStream(s.out, s.upstream.response, responsesEvents(s.out, { stored, prompt: PROMPT }))
  return { ...s, done }
}

describe('the native relay: OpenAI’s Responses events', () => {
  it('the completed event goes out last, with gw on its response; a kept answer’s id goes to the record', async () => {
    const { sink, out, upstream, done } = responsesRelay(true)
    upstream.trickle(responses.created + responses.delta + responses.completed, 64)
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'ok')
    assert.equal(delivered.upstreamId, 'resp_1')
    assert.equal(delivered.usage?.prompt_tokens, 20)
    assert.equal(delivered.usage?.completion_tokens, 7)
    assert.deepEqual(out.closedWith, delivered.usage)
    assert.deepEqual(
      sink.events.map((e) => (e.data as { type: string }).type),
      ['response.created', 'response.output_text.delta'],
    )
    const [completed] = sink.ended!.last as any[]
    assert.equal(completed.type, 'response.completed')
    assert.equal(completed.response.gw, FakeDelivery.gw)
    assert.equal(sink.ended?.error, null)
  })

  it('an answer the provider does not keep leaves no id in the record', async () => {
    const { upstream, done } = responsesRelay(false)
    upstream.send(responses.created, responses.completed)
    upstream.end()
    assert.equal((await done).upstreamId, null)
  })

  it('a response.failed is relayed whole, and the record says error with the provider’s', async () => {
    const { sink, upstream, done } = responsesRelay(false)
    const failed = {
      type: 'response.failed',
      sequence_number: 2,
      response: response('failed', { error: { code: 'server_error', message: 'boom' }, usage: null }),
    }
    upstream.send(responses.created, sse(failed, 'response.failed'))
    upstream.end()
    const delivered = await done
    assert.equal(delivered.outcome, 'error')
    assert.match(delivered.error!.message, /server_error.*boom/)
    assert.equal((sink.ended!.last[0] as any).type, 'response.failed')
    assert.equal(sink.ended?.error, null, 'the failure travels in its own event')
  })

  it('a stream cut before its last event ends with the error event, charged for the prompt and the text sent, estimated', async () => {
    const { sink, upstream, done } = responsesRelay(true)
    upstream.send(responses.created, responses.delta)
    upstream.end()
    const delivered = await done
    assert.equal(delivered.error?.code, 'upstream_incomplete')
    // "Hello there": 11 characters, 3 tokens.
    assert.deepEqual(delivered.usage, usageOf(PROMPT_TOKENS, 3))
    assert.equal(delivered.estimated, true)
    assert.equal(delivered.upstreamId, undefined, 'no id of an answer that never completed')
    assert.deepEqual(sink.ended, { last: [], error: delivered.error })
  })
})
