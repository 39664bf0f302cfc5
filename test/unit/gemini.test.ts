import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Provider } from '../../src/gateway/providers/registry'
import { forGemini } from '../../src/gateway/providers/openai/gemini'
import { rememberSignature } from '../../src/gateway/providers/openai/thoughtSignatures'

const provider = (id: string, baseUrl: string) => ({ id, kind: 'openai', baseUrl }) as Provider
const GEMINI = provider('gemini', 'https://generativelanguage.googleapis.com/v1beta/openai')
const turn = (...ids: string[]) => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })),
})
const signatures = (body: Record<string, unknown>) =>
  (body.messages as any[]).map((m) => m.tool_calls?.map((c: any) => c.extra_content?.google?.thought_signature ?? null))

describe('a chat request as Gemini takes it', () => {
  it('signs the first replayed tool call of each assistant turn: the remembered signature, else on Gemini 3 the sentinel', () => {
    rememberSignature('gemini', { id: 'call_a', extra_content: { google: { thought_signature: 'sig-a' } } })
    const body = { messages: [{ role: 'user', content: 'hi' }, turn('call_a', 'call_b'), turn('call_c')] }
    assert.deepEqual(signatures(forGemini(body, GEMINI, 'gemini-3-flash-preview')), [undefined, ['sig-a', null], ['skip_thought_signature_validator']])
    // Gemini 2.5 takes a turn without one: only what was remembered is added.
    assert.deepEqual(signatures(forGemini(body, GEMINI, 'gemini-2.5-flash')), [undefined, ['sig-a', null], [null]])
    assert.equal(signatures(body)[1][0], null, "the caller's body is not changed")
  })

  it('leaves a signature the client kept; knows Gemini under another id by its address; changes nothing for another provider', () => {
    const kept = { messages: [{ ...turn('call_k'), tool_calls: [{ id: 'call_k', extra_content: { google: { thought_signature: 'own' } } }] }] }
    assert.deepEqual(signatures(forGemini(kept, GEMINI, 'gemini-3-pro-preview')), [['own']])
    const renamed = provider('google', 'https://generativelanguage.googleapis.com/v1beta/openai')
    assert.deepEqual(signatures(forGemini({ messages: [turn('call_x')] }, renamed, 'gemini-3-pro-preview')), [['skip_thought_signature_validator']])
    rememberSignature('openai', { id: 'call_o', extra_content: { google: { thought_signature: 'sig-o' } } })
    const other = { messages: [turn('call_o')], tools: [{ type: 'function', function: { name: 'f', parameters: { $schema: 'x' } } }] }
    assert.equal(forGemini(other, provider('openai', 'https://api.openai.com/v1'), 'gemini-3-pro-preview'), other)
  })

  it("tool parameters without the JSON Schema keywords Gemini refuses, as Claude Code's tools carry them", () => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      required: ['limit'],
      properties: {
        limit: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
        status: {
          anyOf: [
            { type: 'string', enum: ['open'] },
            { type: 'string', const: 'deleted' },
          ],
        },
        metadata: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
        url: { type: 'string', format: 'uri' },
        when: { type: 'string', format: 'date-time' },
        // A property may be named like a keyword: it stays.
        const: { type: 'number', minimum: 2, exclusiveMinimum: 1 },
      },
    }
    const body = forGemini({ messages: [], tools: [{ type: 'function', function: { name: 'Read', parameters } }] }, GEMINI, 'gemini-3-pro-preview')
    assert.deepEqual((body.tools as any)[0].function.parameters, {
      type: 'object',
      required: ['limit'],
      properties: {
        limit: { type: 'integer', minimum: 0, maximum: 9007199254740991 },
        status: {
          anyOf: [
            { type: 'string', enum: ['open'] },
            { type: 'string', enum: ['deleted'] },
          ],
        },
        metadata: { type: 'object' },
        url: { type: 'string' },
        when: { type: 'string', format: 'date-time' },
        const: { type: 'number', minimum: 2 },
      },
    })
  })
})
