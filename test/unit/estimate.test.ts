/**
 * A prompt's token estimate (what reservations and cost ceilings hold) is the same whether its
 * length is read from the client's own text or from the prompt serialised again.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { estimateTokens } from '../../src/gateway/pipeline/estimate'
import { sentTextOf } from '../support/sentText'

describe('estimateTokens', () => {
  it("measures a prompt the client sent from its text, to the character JSON.stringify's length", () => {
    const text = JSON.stringify({
      model: 'claude-haiku-4-5',
      system: [{ type: 'text', text: 'You are a coding agent. '.repeat(100), cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
      messages: Array.from({ length: 6 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: [{ type: 'text', text: `Turn ${i}: "quoted"\n`.repeat(30) }],
      })),
    })
    const { json, sentText, reads } = sentTextOf(text)
    // The prompt as the Messages wire gives it: the system prompt and the messages, in an array of its own.
    for (const prompt of [[json.system, json.messages], json.messages, [undefined, 'a "string"', json.tools, { x: 1 }], 'plain text']) {
      for (const charsPerToken of [1, 3, 4]) assert.equal(estimateTokens(prompt, charsPerToken, sentText), estimateTokens(prompt, charsPerToken))
    }
    assert.ok(reads() >= 4, `${reads()} values read from the text`)
    assert.equal(estimateTokens(undefined, 4, sentText), 1)
  })
})
