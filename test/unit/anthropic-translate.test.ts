import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import { anthropicAdapter } from '../../src/gateway/providers/anthropic/adapter'
import { DEFAULT_MAX_TOKENS } from '../../src/gateway/providers/anthropic/translateRequest'
import { finishReason } from '../../src/gateway/providers/anthropic/translateResponse'
import type { Chunk } from '../../src/gateway/providers/adapter'
import { Redactor } from '../../src/gateway/secrets/redactor'

type Body = Record<string, any>

/** The provider whose answers are read. */
const ANTHROPIC = { id: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', dialect: null }

const translate = (body: Body, opts: { stream?: boolean; autoCache?: boolean } = {}) => {
  const req = anthropicAdapter.chatRequest({ model: 'claude-sonnet-4-5', ...body }, { stream: opts.stream ?? false, autoCache: opts.autoCache ?? false })
  assert.equal(req.path, 'messages')
  return req.body as Body
}

/** Asserts a 400 invalid_request_error naming `param`. */
const refuses = (body: Body, param: string, message?: RegExp) =>
  assert.throws(
    () => translate(body),
    (e: unknown) =>
      e instanceof ApiError && e.status === 400 && e.type === 'invalid_request_error' && e.param === param && (!message || message.test(e.message)),
  )

const user = (content: unknown) => ({ role: 'user', content })
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/** Every breakpoint in a translated body, as [where, ttl]. */
function breakpoints(body: Body): string[] {
  const out: string[] = []
  body.tools?.forEach((t: Body, i: number) => t.cache_control && out.push(`tools.${i}`))
  body.system?.forEach((b: Body, i: number) => b.cache_control && out.push(`system.${i}`))
  body.messages.forEach((m: Body, i: number) => m.content.forEach((b: Body, j: number) => b.cache_control && out.push(`messages.${i}.${j}`)))
  return out
}

describe('anthropic request translation', () => {
  it('joins system and developer messages, in order, into the top-level system', () => {
    const out = translate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        user('Hi'),
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Use metric units.' },
            { type: 'text', text: '' },
            { type: 'text', text: 'Cite.', cache_control: { type: 'ephemeral' } },
          ],
        },
        { role: 'assistant', content: 'Hello.' },
        user([{ type: 'text', text: 'Weather?' }]),
      ],
    })
    assert.deepEqual(out.system, [
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Use metric units.' },
      { type: 'text', text: 'Cite.', cache_control: { type: 'ephemeral' } },
    ])
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    ])
    assert.equal('system' in translate({ messages: [user('x')] }), false)
  })

  it('defaults max_tokens to 4096 and prefers max_completion_tokens', () => {
    assert.equal(DEFAULT_MAX_TOKENS, 4096)
    assert.equal(translate({ messages: [user('x')] }).max_tokens, 4096)
    assert.equal(translate({ messages: [user('x')], max_tokens: 100 }).max_tokens, 100)
    assert.equal(translate({ messages: [user('x')], max_tokens: 100, max_completion_tokens: 50 }).max_tokens, 50)
    assert.equal(translate({ messages: [user('x')], max_tokens: 200_000 }).max_tokens, 200_000, 'no cap besides the model’s own')
    refuses({ messages: [user('x')], max_completion_tokens: 1.5 }, 'max_completion_tokens')
  })

  it('turns tool calls into tool_use blocks and collapses consecutive tool messages into one user turn, results first', () => {
    const out = translate({
      messages: [
        user('Weather in Oslo and Bergen?'),
        {
          role: 'assistant',
          content: 'Looking both up.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_b', type: 'function', function: { name: 'clock', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '4°C' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '12:00' }] },
        user('And tomorrow?'),
      ],
    })
    assert.deepEqual(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking both up.' },
          { type: 'tool_use', id: 'call_a', name: 'weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'call_b', name: 'clock', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '4°C' },
          { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: '12:00' }] },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
    ])
  })

  it('refuses tool-call arguments that are not a JSON object, naming the exact field', () => {
    const call = (args: string) => ({
      messages: [
        user('x'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c0', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'c1', type: 'function', function: { name: 'f', arguments: args } },
          ],
        },
      ],
    })
    refuses(call('{"city": "Os'), 'messages[1].tool_calls[1].function.arguments', /not valid JSON/)
    refuses(call('[1, 2]'), 'messages[1].tool_calls[1].function.arguments', /JSON object/)
    refuses({ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id')
    refuses({ messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role')
  })

  it('splits data URIs into base64 image sources, passes http(s) URLs, and refuses other images naming the part', () => {
    const out = translate({
      messages: [
        user([
          { type: 'text', text: 'What are these?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'image_url', image_url: { url: `data:image/jpg;base64,${PNG}`, detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.webp' } },
        ]),
      ],
    })
    assert.deepEqual(out.messages[0].content.slice(1), [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: PNG } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.webp' } },
    ])
    const image = (url: string) => ({
      messages: [
        user([
          { type: 'text', text: 'x' },
          { type: 'image_url', image_url: { url } },
        ]),
      ],
    })
    refuses(
      image('data:image/svg+xml;base64,PHN2Zz4='),
      'messages[0].content[1].image_url.url',
      /messages\[0\]\.content\[1\].*image\/svg\+xml.*image\/jpeg, image\/png, image\/gif and image\/webp/,
    )
    refuses(image('data:image/png,rawbytes'), 'messages[0].content[1].image_url.url', /base64/)
    refuses(image('ftp://example.com/a.png'), 'messages[0].content[1].image_url.url')
    refuses({ messages: [user([{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }])] }, 'messages[0].content[0].type')
    refuses(
      { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }, user('x')] },
      'messages[0].content[0].type',
    )
  })

  it('wraps a bare stop string and passes arrays', () => {
    assert.deepEqual(translate({ messages: [user('x')], stop: 'END' }).stop_sequences, ['END'])
    assert.deepEqual(translate({ messages: [user('x')], stop: ['a', 'b'] }).stop_sequences, ['a', 'b'])
    assert.equal('stop_sequences' in translate({ messages: [user('x')], stop: null }), false)
  })

  it('maps tools, tool_choice and parallel_tool_calls', () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'weather',
          description: 'Current weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
      { type: 'function', function: { name: 'now' } },
    ]
    const out = translate({ messages: [user('x')], tools })
    assert.deepEqual(out.tools, [
      { name: 'weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ])
    assert.equal('tool_choice' in out, false)
    const choice = (tool_choice: unknown, parallel_tool_calls?: boolean) =>
      translate({ messages: [user('x')], tools, tool_choice, parallel_tool_calls }).tool_choice
    assert.deepEqual(choice('auto'), { type: 'auto' })
    assert.deepEqual(choice('required'), { type: 'any' })
    assert.deepEqual(choice('none'), { type: 'none' })
    assert.deepEqual(choice({ type: 'function', function: { name: 'now' } }), { type: 'tool', name: 'now' })
    assert.deepEqual(choice('required', false), { type: 'any', disable_parallel_tool_use: true })
    assert.deepEqual(choice(undefined, false), { type: 'auto', disable_parallel_tool_use: true })
    assert.deepEqual(choice('none', false), { type: 'none' }, 'Anthropic takes no disable_parallel_tool_use with none')
    assert.equal(choice(undefined, true), undefined)
    assert.equal('tool_choice' in translate({ messages: [user('x')], tool_choice: 'none' }), false, 'no tool_choice without tools')
    refuses({ messages: [user('x')], tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } }, 'tool_choice')
    refuses({ messages: [user('x')], tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0].type')
  })

  it('refuses temperature above 1 instead of clamping it, and passes 0 to 1', () => {
    refuses({ messages: [user('x')], temperature: 1.5 }, 'temperature', /0 to 1/)
    refuses({ messages: [user('x')], temperature: -0.1 }, 'temperature')
    assert.equal(translate({ messages: [user('x')], temperature: 1 }).temperature, 1)
    assert.equal(translate({ messages: [user('x')], temperature: 0 }).temperature, 0)
    assert.equal(translate({ messages: [user('x')], top_p: 0.9 }).top_p, 0.9)
  })

  it('refuses fields whose result the client would read, drops the ones that only nudge', () => {
    refuses({ messages: [user('x')], n: 2 }, 'n', /one choice/)
    refuses({ messages: [user('x')], logprobs: true }, 'logprobs')
    refuses({ messages: [user('x')], top_logprobs: 3 }, 'top_logprobs')
    refuses({ messages: [user('x')], logit_bias: { '50256': -100 } }, 'logit_bias')
    refuses({ messages: [user('x')], response_format: { type: 'json_object' } }, 'response_format', /json_schema/)
    refuses({ messages: [user('x')], functions: [{ name: 'f' }] }, 'functions')
    const out = translate(
      {
        messages: [user('x')],
        n: 1,
        logprobs: false,
        logit_bias: {},
        seed: 7,
        presence_penalty: 0.5,
        frequency_penalty: 0.5,
        stream_options: { include_usage: true },
        store: true,
        service_tier: 'auto',
        response_format: { type: 'text' },
        user: 'legacy-user',
        safety_identifier: 'user-123',
        stream: true,
      },
      { stream: true },
    )
    assert.deepEqual(Object.keys(out).sort(), ['max_tokens', 'messages', 'metadata', 'model', 'stream'])
    assert.deepEqual(out.metadata, { user_id: 'user-123' })
    assert.equal(out.stream, true)
    assert.deepEqual(translate({ messages: [user('x')], user: 'u-1' }).metadata, { user_id: 'u-1' })
  })

  it('maps response_format json_schema to output_config.format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }
    const out = translate({ messages: [user('x')], response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } } })
    assert.deepEqual(out.output_config, { format: { type: 'json_schema', schema } })
    refuses({ messages: [user('x')], response_format: { type: 'json_schema', json_schema: { name: 'r' } } }, 'response_format.json_schema.schema')
  })
})

describe('anthropic auto_cache breakpoints', () => {
  const tools = [
    { type: 'function', function: { name: 'a' } },
    { type: 'function', function: { name: 'b' } },
  ]
  const conversation = [
    { role: 'system', content: 'System one.' },
    { role: 'system', content: 'System two.' },
    user('First question'),
    { role: 'assistant', content: 'First answer' },
    user('Second question'),
  ]

  it('marks the last tool, the last system block and the end of the conversation before the final user turn', () => {
    const out = translate({ messages: conversation, tools }, { autoCache: true })
    assert.deepEqual(breakpoints(out), ['tools.1', 'system.1', 'messages.1.0'])
    assert.deepEqual(out.messages[1].content[0].cache_control, { type: 'ephemeral' })
    assert.deepEqual(breakpoints(translate({ messages: conversation, tools })), [], 'nothing without gw.auto_cache')
  })

  it('adds no conversation breakpoint to a single-turn request', () => {
    assert.deepEqual(breakpoints(translate({ messages: [conversation[0], user('Only question')] }, { autoCache: true })), ['system.0'])
  })

  it('keeps and counts the caller’s breakpoints, never duplicating one, and stays within 4', () => {
    const cached = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } })
    // Two of the caller's: room for two more, the conversation and system ones first.
    let out = translate({ messages: [...conversation.slice(0, 4), user([cached('Second question'), cached('More')])], tools }, { autoCache: true })
    assert.deepEqual(breakpoints(out), ['system.1', 'messages.1.0', 'messages.2.0', 'messages.2.1'])
    // Four already: nothing added.
    out = translate({ messages: [...conversation.slice(0, 4), user([cached('a'), cached('b'), cached('c'), cached('d')])], tools }, { autoCache: true })
    assert.deepEqual(breakpoints(out), ['messages.2.0', 'messages.2.1', 'messages.2.2', 'messages.2.3'])
    // One already on the last system block: kept as sent, not doubled.
    out = translate(
      {
        messages: [
          conversation[0],
          { role: 'system', content: [{ type: 'text', text: 'System two.', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
          ...conversation.slice(2),
        ],
        tools,
      },
      { autoCache: true },
    )
    assert.deepEqual(breakpoints(out), ['system.1', 'messages.1.0'])
    assert.deepEqual(out.system[1].cache_control, { type: 'ephemeral', ttl: '1h' })
    assert.equal(out.tools[1].cache_control, undefined, 'no 5-minute breakpoint ahead of the caller’s 1-hour one')
  })

  it('puts the conversation breakpoint on a tool result when that ends the stable prefix', () => {
    const out = translate(
      {
        messages: [
          user('Look it up'),
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'found' },
          { role: 'assistant', content: 'It says found.' },
          user('Thanks'),
        ],
      },
      { autoCache: true },
    )
    assert.deepEqual(breakpoints(out), ['messages.3.0'])
  })
})

describe('anthropic response translation', () => {
  const message = (extra: Body = {}) => ({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'text', text: 'Checking ' },
      { type: 'text', text: 'now.' },
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 100,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 50 },
      output_tokens: 40,
      output_tokens_details: { thinking_tokens: 10 },
    },
    ...extra,
  })

  it('joins text, turns tool_use into tool_calls, drops thinking, and folds cache counts into prompt_tokens', () => {
    const { completion, usage } = anthropicAdapter.chatResponse(message(), ANTHROPIC) as { completion: Body; usage: any }
    assert.equal(completion.id, 'msg_01')
    assert.equal(completion.object, 'chat.completion')
    assert.equal(completion.model, 'claude-sonnet-4-5')
    assert.ok(Math.abs(completion.created - Date.now() / 1000) < 5)
    const choice = completion.choices[0]
    assert.equal(choice.message.role, 'assistant')
    assert.equal(choice.message.content, 'Checking now.')
    assert.deepEqual(choice.message.tool_calls, [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }])
    assert.equal(choice.finish_reason, 'tool_calls')
    assert.deepEqual(usage, {
      prompt_tokens: 600,
      completion_tokens: 40,
      total_tokens: 640,
      cached_tokens: 300,
      cache_write_tokens: 200,
      cache_write_1h_tokens: 50,
      reasoning_tokens: 10,
    })
    assert.deepEqual(completion.usage, {
      prompt_tokens: 600,
      completion_tokens: 40,
      total_tokens: 640,
      prompt_tokens_details: { cached_tokens: 300, cache_write_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 10 },
    })
  })

  it('gives null content for a tool-only answer and no usage when none is reported', () => {
    const { completion, usage } = anthropicAdapter.chatResponse(
      message({ content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }], usage: undefined }),
      ANTHROPIC,
    ) as { completion: Body; usage: unknown }
    assert.equal(completion.choices[0].message.content, null)
    assert.equal(completion.choices[0].message.tool_calls[0].function.arguments, '{}')
    assert.equal(usage, null)
    assert.equal('usage' in completion, false)
  })

  it('maps every stop reason', () => {
    const table: Array<[unknown, string]> = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['model_context_window_exceeded', 'length'],
      ['tool_use', 'tool_calls'],
      ['pause_turn', 'stop'],
      ['refusal', 'content_filter'],
      ['something_new', 'stop'],
      ['toString', 'stop'],
      [null, 'stop'],
    ]
    for (const [reason, expected] of table) assert.equal(finishReason(reason), expected, String(reason))
  })
})

describe('anthropic stream translation', () => {
  const ev = (type: string, data: Body = {}) => ({ event: type, data: JSON.stringify({ type, ...data }) })

  it('translates the event sequence: role first, fixed id, tool calls numbered among tool_use blocks, usage as it grows', () => {
    const t = anthropicAdapter.streamTranslator(ANTHROPIC, new Redactor())
    const steps = [
      ev('message_start', {
        message: {
          id: 'msg_9',
          model: 'claude-sonnet-4-5',
          content: [],
          usage: {
            input_tokens: 10,
            cache_read_input_tokens: 20,
            cache_creation_input_tokens: 30,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 30 },
            output_tokens: 1,
          },
        },
      }),
      ev('ping'),
      ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      ev('content_block_stop', { index: 0 }),
      ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hi' } }),
      ev('content_block_stop', { index: 1 }),
      ev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_a', name: 'weather', input: {} } }),
      ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '' } }),
      ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
      ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } }),
      ev('content_block_stop', { index: 2 }),
      ev('content_block_start', { index: 3, content_block: { type: 'tool_use', id: 'toolu_b', name: 'now', input: {} } }),
      ev('content_block_stop', { index: 3 }),
      ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 25 } }),
      ev('message_stop'),
    ].map((e) => t.event(e))
    const chunks = steps.flatMap((s) => s.chunks) as Array<Chunk & Body>
    assert.deepEqual(chunks[0].choices![0], { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null })
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1)
    assert.equal(chunks[0].id, 'msg_9')
    assert.equal(new Set(chunks.map((c) => c.created)).size, 1)
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'claude-sonnet-4-5'))
    const deltas = chunks.slice(1).map((c) => c.choices![0]?.delta)
    assert.deepEqual(deltas.slice(0, 6), [
      { content: 'Hi' },
      { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'now', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
    ])
    const finish = chunks.at(-2)!
    assert.deepEqual(finish.choices![0], { index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' })
    const usageChunk = chunks.at(-1)!
    assert.deepEqual(usageChunk.choices, [])
    assert.deepEqual(usageChunk.usage, {
      prompt_tokens: 60,
      completion_tokens: 25,
      total_tokens: 85,
      prompt_tokens_details: { cached_tokens: 20, cache_write_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 0 },
    })
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null))
    // Usage is reported when it changes: at message_start and at message_delta.
    assert.deepEqual(
      steps.map((s, i) => (s.usage ? i : -1)).filter((i) => i >= 0),
      [0, 15],
    )
    assert.deepEqual(steps[0].usage, {
      prompt_tokens: 60,
      completion_tokens: 1,
      total_tokens: 61,
      cached_tokens: 20,
      cache_write_tokens: 30,
      cache_write_1h_tokens: 30,
      reasoning_tokens: 0,
    })
    assert.equal(steps[15].usage!.completion_tokens, 25)
    assert.equal(steps[15].usage!.cache_write_1h_tokens, 30, 'message_start counts survive a message_delta that leaves them out')
    assert.deepEqual(steps[1], { chunks: [] }, 'ping gives nothing')
    assert.equal(steps.at(-1)!.done, true)
  })

  it('turns error events into ApiErrors: 503 for overloaded, 502 otherwise', () => {
    const t = anthropicAdapter.streamTranslator(ANTHROPIC, new Redactor())
    const overloaded = t.event(ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }))
    assert.equal(overloaded.error!.status, 503)
    assert.match(overloaded.error!.message, /Overloaded/)
    const other = t.event(ev('error', { error: { type: 'api_error', message: 'Internal server error' } }))
    assert.equal(other.error!.status, 502)
    assert.equal(t.event({ event: 'message_start', data: 'not json' }).error!.status, 502)
  })
})

describe('anthropic errors, headers and models', () => {
  const body = (type: string, message: string, extra: Body = {}) => JSON.stringify({ type: 'error', error: { type, message, ...extra }, request_id: 'req_1' })
  const map = (status: number, text: string, headers: Record<string, string> = {}) =>
    anthropicAdapter.httpError('anthropic', status, text, headers, new Redactor())

  it('maps Anthropic statuses to OpenAI ones (reference §4.8)', () => {
    let e = map(529, body('overloaded_error', 'Overloaded'))
    assert.equal(e.status, 503)
    e = map(401, body('authentication_error', 'invalid x-api-key'))
    assert.equal(e.status, 502)
    assert.equal(e.code, 'provider_auth_failed')
    assert.equal(e.headers['x-should-retry'], 'false')
    e = map(429, body('rate_limit_error', 'slow down'), { 'retry-after': '17' })
    assert.equal(e.status, 429)
    assert.equal(e.headers['retry-after'], '17')
    e = map(429, body('rate_limit_error', 'spend limit', { details: { error_code: 'enforced_spend_limit_reached' } }))
    assert.equal(e.status, 502)
    assert.equal(e.headers['x-should-retry'], 'false')
    for (const [status, type] of [
      [402, 'billing_error'],
      [400, 'billing_error'],
    ] as const) {
      e = map(status, body(type, 'Your credit balance is too low'))
      assert.equal(e.status, 502, `${status} ${type}`)
      assert.equal(e.code, 'provider_insufficient_quota')
      assert.equal(e.headers['x-should-retry'], 'false')
    }
    e = map(400, body('invalid_request_error', 'messages.1: tool_use ids were found without tool_result blocks'))
    assert.equal(e.status, 400)
    assert.equal(e.type, 'invalid_request_error')
    assert.match(e.message, /tool_result/)
    e = map(404, body('not_found_error', 'model: claude-nope'))
    assert.deepEqual([e.status, e.code], [404, 'model_not_found'])
    e = map(413, body('request_too_large', 'too big'))
    assert.deepEqual([e.status, e.code], [413, 'request_too_large'])
    assert.equal(map(500, body('api_error', 'Internal server error')).status, 502)
    assert.equal(map(504, body('timeout_error', 'Request timed out')).status, 504)
  })

  it('sends x-api-key and anthropic-version, overridable by GW_ANTHROPIC_VERSION', () => {
    assert.deepEqual(anthropicAdapter.headers('sk-ant-1', 'messages'), { 'x-api-key': 'sk-ant-1', 'anthropic-version': '2023-06-01' })
    process.env.GW_ANTHROPIC_VERSION = '2026-10-21'
    try {
      assert.equal(anthropicAdapter.headers('sk-ant-1', 'messages')['anthropic-version'], '2026-10-21')
    } finally {
      delete process.env.GW_ANTHROPIC_VERSION
    }
  })

  it('has no embeddings and reads the model list with RFC 3339 dates', () => {
    assert.equal(anthropicAdapter.embeddingsRequest({ model: 'x', input: 'y' }), null)
    assert.deepEqual(
      anthropicAdapter.parseModels({
        data: [{ type: 'model', id: 'claude-sonnet-4-5', created_at: '2025-09-29T00:00:00Z' }, { id: 'odd', created_at: 'soon' }, { nope: 1 }],
      }),
      [
        { id: 'claude-sonnet-4-5', created: 1759104000 },
        { id: 'odd', created: null },
      ],
    )
  })
})
