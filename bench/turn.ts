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

/**
 * A coding agent's turn as Claude Code sends it forty exchanges into a session (~190 KB): a long
 * system prompt and 18 tools with JSON Schemas, each exchange a request, a tool call and a file's
 * lines as its result, cache markers on the system prompt and the newest message, the session in
 * `metadata.user_id` (so the gateway attributes it and fingerprints its prompt). Not streamed, so
 * its added latency is the whole answer's, as the other serial rows'.
 */
export function agentTurnBody(model: string): string {
  const marker = { type: 'ephemeral' }
  const schema = (field: string) => ({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { [field]: { type: 'string', description: `The ${field} to act on. `.repeat(8) }, limit: { type: 'number' } },
    required: [field],
    additionalProperties: false,
  })
  const tools = Array.from({ length: 18 }, (_, i) => ({
    name: `Tool${i}`,
    description: 'Does one thing to the workspace, as described. '.repeat(36),
    input_schema: schema(i % 2 ? 'path' : 'command'),
  }))
  const turns: unknown[] = []
  for (let i = 0; i < 40; i++) {
    turns.push({ role: 'user', content: [{ type: 'text', text: `Now look at src/module${i}.ts and tell me what it does. `.repeat(8) }] })
    turns.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading it. '.repeat(40) },
        { type: 'tool_use', id: `toolu_${i}`, name: 'Tool1', input: { path: `src/module${i}.ts` } },
      ],
    })
    turns.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `export const value${i} = "line of code";\n`.repeat(60) }],
    })
  }
  turns.push({ role: 'user', content: [{ type: 'text', text: 'Go on.', cache_control: marker }] })
  const session = JSON.stringify({ device_id: 'bench-device', account_uuid: '', session_id: '0f0e0d0c-0b0a-4909-8807-060504030201' })
  return JSON.stringify({
    model,
    max_tokens: 64,
    system: [{ type: 'text', text: 'You are an interactive CLI tool that helps users with software engineering tasks. '.repeat(180), cache_control: marker }],
    tools,
    messages: turns,
    metadata: { user_id: session },
  })
}
