import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { plainDeltaChars } from '../../src/gateway/providers/openai/plainDelta'

/** What the relay would count for a chunk it parsed: the length of every choice's content. */
const parsedChars = (text: string) =>
  (JSON.parse(text) as { choices: Array<{ delta?: { content?: string | null } }> }).choices.reduce((n, c) => n + (c.delta?.content ?? '').length, 0)

const chunk = (delta: object, extra: object = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...extra,
  })

describe('plainDeltaChars: which chat chunks can go on unparsed', () => {
  it('counts the content of a plain delta as the parse would, escapes included', () => {
    for (const content of ['Hello', '', 'a "quoted" word', 'line\nbreak\ttab \\ back', 'é 漢字 🙂', 'content', '\u0001\u2028']) {
      const text = chunk({ content })
      assert.equal(plainDeltaChars(text), parsedChars(text), text)
    }
    // \u escapes as a provider may write them
    assert.equal(plainDeltaChars('{"choices":[{"delta":{"content":"\\u00e9\\ud83d\\ude42x"}}]}'), 4)
  })

  it('takes the role chunk, null keys and OpenAI usage:null, and several choices', () => {
    assert.equal(plainDeltaChars(chunk({ role: 'assistant', content: '', refusal: null }, { usage: null })), 0)
    assert.equal(plainDeltaChars(chunk({ content: null })), 0)
    const two = '{"choices":[{"index":0,"delta":{"content":"ab"},"finish_reason":null},{"index":1,"delta":{"content":"cde"},"finish_reason": null}]}'
    assert.equal(plainDeltaChars(two), 5)
  })

  it('leaves to the parser whatever the relay must read', () => {
    const mustParse = [
      chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      chunk({ content: 'x' }, { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      JSON.stringify({ id: 'x', choices: [], usage: { prompt_tokens: 1 } }),
      JSON.stringify({ id: 'x', choices: [], usage: null }),
      JSON.stringify({ id: 'x', choices: [] }).replace('[]', '[ ]'),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: null }),
      chunk({ function_call: { name: 'f' } }),
      chunk({ refusal: 'I cannot' }),
      JSON.stringify({ error: { message: 'overloaded' } }),
      chunk({ content: 'x' }, { x_groq: { id: 'req_1' } }),
      chunk({ content: ['part'] }),
      chunk({ content: 1 }),
      '[DONE]',
      '{"choices":[{"delta":{"content":"x"}}]}\n',
      '{"choices":[{"delta":{"content":"unterminated}}]}',
    ]
    for (const text of mustParse) assert.equal(plainDeltaChars(text), null, text)
  })

  it('a content naming a key is content: in the text or as the whole string, it is no key', () => {
    for (const content of ['the "usage" and "error" of "tool_calls"', 'usage', 'finish_reason']) {
      const text = chunk({ content })
      assert.equal(plainDeltaChars(text), parsedChars(text), text)
    }
  })

  it('a chunk without choices goes on as it came, as the parsed path sends it too', () => {
    assert.equal(plainDeltaChars('{"id":"x","object":"chat.completion.chunk"}'), 0)
  })
})
