/** The one turn every bench request asks, and its bodies on the wires that more than one bench sends. */
export const messages = [
  { role: 'system', content: 'You are a terse assistant.' },
  { role: 'user', content: 'Say hello in one short sentence.' },
]

/** The turn on chat completions, a whole answer, attributed to a user. */
export const chatBody = (model: string) => JSON.stringify({ model, messages, max_tokens: 64, user: 'bench' })

/** The same, streamed (no usage asked for), as the stream benches send it. */
export const chatStreamBody = (model: string) => JSON.stringify({ model, messages, max_tokens: 64, stream: true })

/** The turn on Anthropic's Messages API; `metadata` as Claude Code sends one (`user_id`), or none. */
export const messagesBody = (model: string, metadata?: Record<string, string>) =>
  JSON.stringify({ model, system: messages[0].content, messages: messages.slice(1), max_tokens: 64, ...(metadata ? { metadata } : {}) })

/** The turn on the Responses API, as Codex sends it (streamed, as Codex always asks) or not, kept nowhere (`store: false`). */
export const responsesBody = (model: string, stream: boolean) =>
  JSON.stringify({ model, instructions: messages[0].content, input: messages[1].content, max_output_tokens: 64, store: false, ...(stream ? { stream } : {}) })

/** The turn on Google's generateContent API, which names the model and whether to stream in the path: one body for all its rows. */
export const geminiBody = JSON.stringify({
  systemInstruction: { parts: [{ text: messages[0].content }] },
  contents: [{ role: 'user', parts: [{ text: messages[1].content }] }],
  generationConfig: { maxOutputTokens: 64 },
})
