/**
 * The prompt fingerprint the cache doctor compares turns by, against its definition written the
 * plain way (a replacer dropping every cache_control key), so the faster walk digests the same.
 */
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { fingerprintPrompt } from '../../src/gateway/pipeline/promptFingerprint'
import { sentTextOf } from '../support/sentText'

/** The fingerprint's definition, written the plain way: sha1 of the JSON without any `cache_control` key, 8 characters of base64url. */
function reference(value: unknown): { digest: string; markers: number } {
  let markers = 0
  const text = JSON.stringify(value, (name, v: unknown) => {
    if (name !== 'cache_control') return v
    markers++
    return undefined
  })
  return { digest: createHash('sha1').update(text).digest('base64url').slice(0, 8), markers }
}

const marker = { type: 'ephemeral' }

/** A Claude Code–like prompt: markers on the system prompt, a tool, nested in a tool result and on the newest message. */
function prompt(marked: boolean) {
  const system = [{ type: 'text', text: 'You are Claude Code.', ...(marked ? { cache_control: marker } : {}) }]
  const tools = [
    {
      name: 'Read',
      description: 'Reads a file. '.repeat(400),
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      cache_control: marker,
    },
    { name: 'Edit', description: 'Edits "a" file\n', input_schema: { type: 'object', properties: { '1': { type: 'number' }, b: { type: 'string' } } } },
  ]
  const messages = [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: '/a' } }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'x', cache_control: marker },
            { type: 'text', text: 'y' },
          ],
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'go on', ...(marked ? { cache_control: { type: 'ephemeral', ttl: '1h' } } : {}) }] },
  ]
  return { system, tools, messages }
}

describe('fingerprintPrompt', () => {
  it('digests each part as its JSON without cache_control keys, at any depth, and counts every marker', () => {
    const parts = prompt(true)
    const snapshot = JSON.stringify(parts)
    const fp = fingerprintPrompt(parts)
    const expected = [parts.system, ...parts.tools, ...parts.messages].map(reference)
    assert.deepEqual(
      [fp.system, ...fp.tools, ...fp.messages],
      expected.map((r) => r.digest),
    )
    assert.equal(
      fp.markers,
      expected.reduce((n, r) => n + r.markers, 0),
    )
    assert.equal(fp.markers, 4)
    // The caller's body is read, never changed: it may still be forwarded as it came.
    assert.equal(JSON.stringify(parts), snapshot)
  })

  it('gives a block that only lost or gained its marker the same digest', () => {
    const before = fingerprintPrompt(prompt(true))
    const after = fingerprintPrompt(prompt(false))
    assert.equal(after.system, before.system)
    assert.deepEqual(after.messages, before.messages)
    assert.equal(after.markers, before.markers - 2)
    assert.equal(fingerprintPrompt({ ...prompt(false), marked: true }).markers, after.markers + 1)
  })

  it('tells apart blocks that differ in anything but their markers, and digests a string system prompt or none', () => {
    const a = fingerprintPrompt({ system: 'one', tools: [], messages: [{ role: 'user', content: 'a' }] })
    const b = fingerprintPrompt({ system: 'two', tools: [], messages: [{ role: 'user', content: 'b' }] })
    assert.notEqual(a.system, b.system)
    assert.notEqual(a.messages[0], b.messages[0])
    assert.equal(a.system, reference('one').digest)
    assert.deepEqual(fingerprintPrompt({ system: undefined, tools: [], messages: [] }), { system: null, tools: [], messages: [], markers: 0 })
  })

  it("digests a part from the client's text where that is JSON.stringify's, and the same as from its value", () => {
    const parts = prompt(true)
    // An integer key anywhere makes the text's order differ from the value's (readJsonText): none here.
    delete (parts.tools[1].input_schema.properties as Record<string, unknown>)['1']
    const expected = fingerprintPrompt(parts)
    for (const [text, fromText] of [
      [JSON.stringify({ model: 'm', ...parts }), 3],
      [JSON.stringify({ model: 'm', ...parts }, null, 1), 0],
    ] as const) {
      const { json, sentText, reads } = sentTextOf(text)
      assert.deepEqual(fingerprintPrompt({ system: json.system, tools: json.tools, messages: json.messages }, sentText), expected)
      // The parts without a marker (a tool and two messages) came from the text, where it is JSON.stringify's.
      assert.equal(reads(), fromText)
    }
  })
})
