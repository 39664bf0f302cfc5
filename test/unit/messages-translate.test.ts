import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Sink } from '../../src/gateway/core/sink'
import { ApiError } from '../../src/gateway/errors'
import { FakeDelivery } from '../support/fakeDelivery'
import type { NormalizedUsage } from '../../src/gateway/pricing/types'
import { ZERO_USAGE } from '../../src/gateway/pricing/usage'
import { anthropicUsage, chatToMessage, stopReason } from '../../src/gateway/wires/messages/chatToMessage'
import { toolInput } from '../../src/gateway/wires/translatedAnswer'
import { MessagesEvents } from '../../src/gateway/wires/messages/chatStreamToMessages'
import { messagesToChat } from '../../src/gateway/wires/messages/messagesToChat'
import type { MessagesBody } from '../../src/gateway/wires/messages/messagesBody'

type Body = Record<string, any>

const translate = (body: Body) => messagesToChat({ model: 'm', max_tokens: 10, messages: [], ...body } as MessagesBody)
const chat = (body: Body) => translate(body).chat as Body
const dropped = (body: Body) => Object.fromEntries(translate(body).dropped.map((d) => [d.name, d.reason]))

/** Asserts a 400 invalid_request_error naming `param`. */
const refuses = (body: Body, param: string, message?: RegExp) =>
  assert.throws(
    () => translate(body),
    (e: unknown) => e instanceof ApiError && e.status === 400 && e.param === param && (!message || message.test(e.message)),
  )

const usage = (u: Partial<NormalizedUsage>): NormalizedUsage => ({ ...ZERO_USAGE, ...u })

describe('Messages → chat completions (request)', () => {
  it('system string or blocks first, system messages in place, text-only turns as strings', () => {
    const out = chat({
      system: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'S' }] },
        { role: 'assistant', content: 'yes' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
      ],
    })
    assert.deepEqual(out.messages, [
      { role: 'system', content: 'A\n\nB' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'S' },
      { role: 'assistant', content: 'yes' },
      { role: 'user', content: 'x\n\ny' },
    ])
    assert.equal(out.max_tokens, 10)
  })

  it('tool results go first as tool messages; images inside them follow in the user message, labelled', () => {
    const img = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }
    const out = chat({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.png' } }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'here' },
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'read ok' }, img] },
          ],
        },
      ],
    })
    assert.deepEqual(out.messages, [
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } }] },
      { role: 'tool', tool_call_id: 't1', content: 'read ok' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'here' },
          { type: 'text', text: '(image from the result of tool call t1)' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ])
  })

  it('tool_choice: auto, any → required, tool → named function, none; disable_parallel_tool_use → parallel_tool_calls false', () => {
    const tools = [{ name: 'f', input_schema: { type: 'object' } }]
    assert.deepEqual(chat({ tools, tool_choice: { type: 'auto', disable_parallel_tool_use: true } }).parallel_tool_calls, false)
    assert.equal(chat({ tools, tool_choice: { type: 'auto' } }).tool_choice, 'auto')
    assert.equal(chat({ tools, tool_choice: { type: 'any' } }).tool_choice, 'required')
    assert.equal(chat({ tools, tool_choice: { type: 'none' } }).tool_choice, 'none')
    assert.deepEqual(chat({ tools, tool_choice: { type: 'tool', name: 'f' } }).tool_choice, { type: 'function', function: { name: 'f' } })
    assert.deepEqual(chat({ tools: [{ name: 'g' }] }).tools, [{ type: 'function', function: { name: 'g', parameters: { type: 'object', properties: {} } } }])
    const unknown = [
      { name: 'a', defer_loading: true },
      { name: 'b', defer_loading: true },
    ]
    assert.deepEqual(Object.keys(dropped({ tools: unknown })), ['tools[].defer_loading'])
    refuses({ tools, tool_choice: { type: 'maybe' } }, 'tool_choice.type')
  })

  it('a server tool alone leaves no tools, and tool_choice is dropped with it', () => {
    const body = { tools: [{ type: 'web_search_20250305', name: 'web_search' }], tool_choice: { type: 'any' } }
    assert.equal('tools' in chat(body), false)
    assert.equal('tool_choice' in chat(body), false)
    assert.deepEqual(Object.keys(dropped(body)).sort(), ['tool_choice', 'tools[0]'])
  })

  it('drops what has no counterpart, naming it once, and counts cache markers and thinking blocks', () => {
    const body = {
      thinking: { type: 'enabled', budget_tokens: 1000 },
      cache_control: { type: 'ephemeral' },
      service_tier: 'auto',
      some_future_field: 1,
      system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'xx' },
            { type: 'text', text: 'a' },
          ],
        },
      ],
    }
    const d = dropped(body)
    assert.deepEqual(Object.keys(d).sort(), ['cache_control', 'service_tier', 'some_future_field', 'thinking', 'thinking blocks'])
    assert.match(d.cache_control, /on 2 \(first cache_control\)/)
    assert.match(d['thinking blocks'], /^2 \(first messages\[1\]\.content\[0\]\)/)
    const out = chat(body)
    assert.deepEqual(Object.keys(out).sort(), ['max_tokens', 'messages', 'model'])
    assert.deepEqual(out.messages[2], { role: 'assistant', content: 'a' })
  })

  it('output_config: a JSON schema becomes response_format, effort is dropped; metadata.user_id becomes user only when plain', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } }
    const out = translate({ output_config: { effort: 'high', format: { type: 'json_schema', schema } }, metadata: { user_id: 'u_1' } })
    assert.deepEqual((out.chat as Body).response_format, { type: 'json_schema', json_schema: { name: 'output', schema } })
    assert.equal((out.chat as Body).user, 'u_1')
    assert.deepEqual(
      out.dropped.map((d) => d.name),
      ['output_config.effort'],
    )
    assert.equal('user' in chat({ metadata: { user_id: '{"device_id":"x"}' } }), false)
    assert.equal('user' in chat({ metadata: { user_id: 'x'.repeat(65) } }), false)
  })

  it('documents: text is sent as text, a PDF is refused naming the block; uploaded-file images and unknown blocks are refused', () => {
    const out = chat({
      messages: [{ role: 'user', content: [{ type: 'document', title: 'Notes', source: { type: 'text', media_type: 'text/plain', data: 'line' } }] }],
    })
    assert.deepEqual(out.messages, [{ role: 'user', content: 'Notes\n\nline' }])
    refuses(
      { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://x/a.pdf' } }] }] },
      'messages[0].content[0].source',
      /PDF/,
    )
    refuses({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] }, 'messages[0].content[0].source')
    refuses({ messages: [{ role: 'user', content: [{ type: 'search_result', source: 's' }] }] }, 'messages[0].content[0].type')
    refuses({ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role')
  })

  it("max_tokens stays within the target model's output limit where it is known", () => {
    assert.equal(chat({ max_tokens: 32000 }).max_tokens, 32000)
    const capped = messagesToChat({ model: 'm', max_tokens: 32000, messages: [] }, { maxOutputTokens: 16384 })
    assert.equal((capped.chat as Body).max_tokens, 16384)
    assert.deepEqual(
      capped.dropped.map((d) => d.name),
      ['max_tokens'],
    )
    assert.equal((messagesToChat({ model: 'm', max_tokens: 100, messages: [] }, { maxOutputTokens: 16384 }).chat as Body).max_tokens, 100)
    const renamed = messagesToChat({ model: 'm', max_tokens: 100, messages: [] }, { limitField: 'max_completion_tokens' }).chat as Body
    assert.equal(renamed.max_completion_tokens, 100)
    assert.equal('max_tokens' in renamed, false)
  })

  it('is_error results say so in their text; stop_sequences become stop', () => {
    const out = chat({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'boom', is_error: true }] },
      ],
      stop_sequences: ['END'],
    })
    assert.deepEqual(out.messages[1], { role: 'tool', tool_call_id: 't', content: 'Error: boom' })
    assert.deepEqual(out.stop, ['END'])
  })
})

describe('chat completion → Messages (answer)', () => {
  it("usage: input_tokens excludes cache reads and writes, which OpenAI's prompt_tokens includes", () => {
    assert.deepEqual(anthropicUsage(usage({ prompt_tokens: 1000, cached_tokens: 400, cache_write_tokens: 100, completion_tokens: 7 })), {
      input_tokens: 500,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 400,
      output_tokens: 7,
    })
    assert.deepEqual(anthropicUsage(null), { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 })
  })

  it('stop reasons: stop → end_turn (stop_sequence when the provider names a requested one), length, tool_calls, content_filter', () => {
    assert.deepEqual(stopReason('stop', null), { stop_reason: 'end_turn', stop_sequence: null })
    assert.deepEqual(stopReason('stop', 'END'), { stop_reason: 'stop_sequence', stop_sequence: 'END' })
    assert.equal(stopReason('length', null).stop_reason, 'max_tokens')
    assert.equal(stopReason('tool_calls', null).stop_reason, 'tool_use')
    assert.equal(stopReason('content_filter', null).stop_reason, 'refusal')
    assert.equal(stopReason('something_new', null).stop_reason, 'end_turn')
  })

  it('tool arguments: a JSON object is the input, no text is {}, anything else is reported', () => {
    assert.deepEqual(toolInput('{"a":1}'), { a: 1 })
    assert.deepEqual(toolInput(''), {})
    assert.equal(toolInput('{"a":'), null)
    assert.equal(toolInput('[1]'), null)
    const { message, badArguments } = chatToMessage(
      {
        choices: [
          {
            message: {
              role: 'assistant',
              content: 'ok',
              tool_calls: [
                { id: 'c1', function: { name: 'f', arguments: '{"a":' } },
                { id: 'c2', function: { name: 'g', arguments: '{}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
      null,
      { model: 'claude-x', stopSequences: undefined },
    )
    assert.deepEqual(badArguments, [0])
    assert.equal(message.model, 'claude-x')
    assert.equal(message.stop_reason, 'tool_use')
    assert.deepEqual(message.content, [
      { type: 'text', text: 'ok', citations: null },
      { type: 'tool_use', id: 'c1', name: 'f', input: {} },
      { type: 'tool_use', id: 'c2', name: 'g', input: {} },
    ])
  })
})

describe('chat stream → Messages events', () => {
  /** A sink that keeps the events, as the Playground's or a test's would. */
  const collect = () => {
    const events: any[] = []
    const sink: Sink = {
      json: async () => {},
      open: () => {},
      event: (data) => void events.push(data),
      wait: () => false,
      end: (last) => void events.push(...last),
      error: () => {},
      abandon: () => {},
    }
    return { events, sink }
  }
  const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] })

  it('interleaved fragments of parallel calls reach their own blocks; text after a call opens a new block; blocks close before the next opens', () => {
    const { events, sink } = collect()
    const enc = new MessagesEvents(new FakeDelivery(sink), { model: 'claude-x', stopSequences: undefined })
    enc.chunk(delta({ role: 'assistant', content: '' }), undefined, null)
    enc.chunk(delta({ tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }), undefined, null)
    enc.chunk(delta({ tool_calls: [{ index: 1, id: 'c1', type: 'function', function: { name: 'g', arguments: '{' } }] }), undefined, null)
    enc.chunk(delta({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }), undefined, null)
    enc.chunk(delta({ tool_calls: [{ index: 1, function: { arguments: '}' } }] }), undefined, null)
    enc.chunk(delta({ refusal: 'No more.' }), undefined, null)
    enc.chunk(delta({}, 'tool_calls'), undefined, null)
    assert.equal(enc.complete, true)
    events.push(...enc.last({}, usage({ prompt_tokens: 30, cached_tokens: 10, completion_tokens: 5 })))
    const brief = events.map((e) => [e.type, e.index ?? null, e.delta?.partial_json ?? e.delta?.text ?? e.content_block?.id ?? null])
    assert.deepEqual(brief, [
      ['message_start', null, null],
      ['content_block_start', 0, 'c0'],
      ['content_block_delta', 0, '{"a"'],
      ['content_block_stop', 0, null],
      ['content_block_start', 1, 'c1'],
      ['content_block_delta', 1, '{'],
      ['content_block_delta', 0, ':1}'],
      ['content_block_delta', 1, '}'],
      ['content_block_stop', 1, null],
      ['content_block_start', 2, null],
      ['content_block_delta', 2, 'No more.'],
      ['content_block_stop', 2, null],
      ['message_delta', null, null],
      ['gw', null, null],
      ['message_stop', null, null],
    ])
    assert.equal(events[0].message.model, 'claude-x')
    assert.deepEqual(events.at(-3).delta, { stop_reason: 'tool_use', stop_sequence: null })
    assert.deepEqual(events.at(-3).usage, { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 10, output_tokens: 5 })
  })

  it('a stream with no finish reason is not complete', () => {
    const { sink } = collect()
    const enc = new MessagesEvents(new FakeDelivery(sink), { model: 'm', stopSequences: undefined })
    enc.chunk(delta({ content: 'cut' }), undefined, null)
    assert.equal(enc.complete, false)
    assert.deepEqual(enc.owed(), [])
  })
})
