/**
 * Turns of a coding-agent session as Claude Code lays out its prompt for the cache, sent with the
 * official Anthropic SDK: tools, a system prompt whose last block is a breakpoint, the conversation
 * so far with a breakpoint on its newest message (the marker moves every turn). For the
 * prompt-cache doctor's tests, against the fake Anthropic playing the prompt cache.
 */
import Anthropic from '@anthropic-ai/sdk'

const EPHEMERAL = { type: 'ephemeral' } as const
export const LONG_INSTRUCTIONS = 'You are a careful coding agent. Follow the repository conventions. '.repeat(40)
export const AGENT_TOOLS: Anthropic.Tool[] = ['Bash', 'Read', 'Edit'].map((name) => ({
  name,
  description: `${name}: ${'does what its name says. '.repeat(10)}`,
  input_schema: { type: 'object', properties: { arg: { type: 'string' } } },
}))

export interface CacheTurn {
  system?: string
  tools?: Anthropic.Tool[]
  /** The user's messages so far; the assistant's answers go between them. */
  asks: string[]
}

/** Sends one turn of `session` (null: of no session) to the gateway at `url` (its root) and returns the request id. */
export async function sendCacheTurn(
  url: string,
  key: string,
  session: string | null,
  t: CacheTurn,
  model = 'anthropic/claude-sonnet-4-5',
): Promise<string | null> {
  return (await cacheTurn(url, key, session, t, model)).id
}

/** The same turn, with the answer (its `gw` block beside Anthropic's fields). */
export async function cacheTurn(
  url: string,
  key: string,
  /** Null: a request of no session. */
  session: string | null,
  t: CacheTurn,
  model: string,
): Promise<{ id: string | null; answer: Anthropic.Message & { gw?: any } }> {
  const client = new Anthropic({ apiKey: key, baseURL: url, defaultHeaders: session === null ? {} : { 'x-gw-session-id': session }, maxRetries: 0 })
  const messages: Anthropic.MessageParam[] = t.asks.flatMap((ask, i) => {
    const last = i === t.asks.length - 1
    const user: Anthropic.MessageParam = { role: 'user', content: [{ type: 'text', text: ask, ...(last && { cache_control: EPHEMERAL }) }] }
    return last ? [user] : [user, { role: 'assistant', content: [{ type: 'text', text: `Done: ${ask}` }] }]
  })
  const { data, response } = await client.messages
    .create({
      model,
      max_tokens: 1024,
      tools: t.tools ?? AGENT_TOOLS,
      system: [{ type: 'text', text: t.system ?? LONG_INSTRUCTIONS, cache_control: EPHEMERAL }],
      messages,
    })
    .withResponse()
  return { id: response.headers.get('x-request-id'), answer: data }
}
