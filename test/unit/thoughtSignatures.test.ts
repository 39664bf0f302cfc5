import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Provider } from '../../src/gateway/providers/registry'
import { rememberSignature, withThoughtSignatures } from '../../src/gateway/providers/openai/thoughtSignatures'

const provider = (id: string, baseUrl: string) => ({ id, kind: 'openai', baseUrl }) as Provider
const GEMINI = provider('gemini', 'https://generativelanguage.googleapis.com/v1beta/openai')
const turn = (...ids: string[]) => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })),
})
const signatures = (messages: unknown) => (messages as any[]).map((m) => m.tool_calls?.map((c: any) => c.extra_content?.google?.thought_signature ?? null))

describe('Gemini thought signatures on replayed tool calls', () => {
  it('signs the first call of each assistant turn: the remembered signature, else on Gemini 3 the sentinel', () => {
    rememberSignature('gemini', { id: 'call_a', extra_content: { google: { thought_signature: 'sig-a' } } })
    const messages = [{ role: 'user', content: 'hi' }, turn('call_a', 'call_b'), turn('call_c')]
    assert.deepEqual(signatures(withThoughtSignatures(messages, GEMINI, 'gemini-3-flash-preview')), [
      undefined,
      ['sig-a', null],
      ['skip_thought_signature_validator'],
    ])
    // Gemini 2.5 takes a turn without one: only what was remembered is added.
    assert.deepEqual(signatures(withThoughtSignatures(messages, GEMINI, 'gemini-2.5-flash')), [undefined, ['sig-a', null], [null]])
    assert.equal(signatures(messages)[1][0], null, "the caller's messages are not changed")
  })

  it("leaves a signature the client kept, Gemini under another id by its address, and every other provider's requests alone", () => {
    const kept = [{ ...turn('call_k'), tool_calls: [{ id: 'call_k', extra_content: { google: { thought_signature: 'own' } } }] }]
    assert.equal(withThoughtSignatures(kept, GEMINI, 'gemini-3-pro-preview'), kept)
    const renamed = provider('google', 'https://generativelanguage.googleapis.com/v1beta/openai')
    assert.deepEqual(signatures(withThoughtSignatures([turn('call_x')], renamed, 'gemini-3-pro-preview')), [['skip_thought_signature_validator']])
    rememberSignature('openai', { id: 'call_o', extra_content: { google: { thought_signature: 'sig-o' } } })
    const other = [turn('call_o')]
    assert.equal(withThoughtSignatures(other, provider('openai', 'https://api.openai.com/v1'), 'gemini-3-pro-preview'), other)
  })
})
