import { z } from 'zod'
import { op } from './op'

/** The inbound wires the Playground can send through: what OpenAI SDKs send, what Claude Code sends, what Codex sends, or what Gemini CLI sends. */
export const playgroundWire = z.enum(['chat', 'messages', 'responses', 'gemini'])
export type PlaygroundWire = z.infer<typeof playgroundWire>

/** `max_tokens` is required on the Messages API: the Playground sends this when none is given. */
export const MESSAGES_DEFAULT_MAX_TOKENS = 1024

/** What the Playground asks: the conversation (system messages included) and the parameters set. */
export interface PlaygroundRequest {
  model: string
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>
  temperature?: number
  top_p?: number
  max_tokens?: number
}

const WIRE_PATHS = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' }

/**
 * Where a client of `wire` posts the request, streaming: Google's API names the model and the
 * method in the path (`?alt=sse` for server-sent events, as Gemini CLI asks), the others in the body.
 */
export const playgroundPath = (wire: PlaygroundWire, model: string): string =>
  wire === 'gemini' ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : WIRE_PATHS[wire]

/**
 * The request's body as a client of `wire` writes it (without its streaming fields): on the
 * Messages API the system messages become `system`, as Claude Code sends it, and max_tokens is
 * always there; on the Responses API they become `instructions`, the conversation `input` message
 * items, max_tokens `max_output_tokens`, and `store: false` keeps the answer off the provider; on
 * Google's generateContent (the model is in the path) they become `systemInstruction`, the
 * conversation `contents` (the assistant is Google's `model` role), the parameters
 * `generationConfig`, as Gemini CLI sends them. The gateway sends this; the dashboard shows it as code.
 */
export function playgroundBody(wire: PlaygroundWire, r: PlaygroundRequest): Record<string, unknown> {
  const parameters: Record<string, number> = {}
  for (const name of ['temperature', 'top_p', 'max_tokens'] as const) if (r[name] !== undefined) parameters[name] = r[name]
  if (wire === 'chat') return { model: r.model, messages: r.messages, ...parameters }
  const system = r.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n')
  const conversation = r.messages.filter((m) => m.role !== 'system')
  if (wire === 'gemini') return generateContentBody(system, conversation, parameters)
  if (wire === 'responses') {
    const { max_tokens, ...sampling } = parameters
    return {
      model: r.model,
      ...(system && { instructions: system }),
      input: conversation.map((m) => ({ type: 'message', role: m.role, content: m.content })),
      ...sampling,
      ...(max_tokens !== undefined && { max_output_tokens: max_tokens }),
      store: false,
    }
  }
  return {
    model: r.model,
    max_tokens: MESSAGES_DEFAULT_MAX_TOKENS,
    ...(system && { system }),
    messages: conversation,
    ...parameters,
  }
}

/** Google's names for the Playground's parameters, in `generationConfig`. */
const GENERATION_CONFIG: Record<string, string> = { temperature: 'temperature', top_p: 'topP', max_tokens: 'maxOutputTokens' }

function generateContentBody(system: string, conversation: PlaygroundRequest['messages'], parameters: Record<string, number>): Record<string, unknown> {
  const config = Object.fromEntries(Object.entries(parameters).map(([name, v]) => [GENERATION_CONFIG[name], v]))
  return {
    contents: conversation.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
    ...(system && { systemInstruction: { parts: [{ text: system }] } }),
    ...(Object.keys(config).length > 0 && { generationConfig: config }),
  }
}

/** Events of a Playground stream, in order: the body sent, chunks as they arrive, then the routing and cost, or an error. */
export const playgroundEvent = z.discriminatedUnion('type', [
  /**
   * The body as the chosen wire carries it into the gateway, before any preset or alias changes
   * it, the path it is posted to (playgroundPath), and the id its record will have.
   */
  z.object({ type: z.literal('request'), request_id: z.string(), wire: playgroundWire, path: z.string(), body: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('delta'), content: z.string() }),
  /** `finish_reason` is the wire's own word: chat's finish_reason, the Messages API's stop_reason, the Responses API's status (with why it is incomplete), or Google's finishReason. */
  z.object({ type: z.literal('done'), request_id: z.string(), gw: z.record(z.string(), z.unknown()), finish_reason: z.string().nullable() }),
  z.object({
    type: z.literal('error'),
    request_id: z.string().nullable(),
    status: z.number().int(),
    error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable() }),
  }),
])
export type PlaygroundEvent = z.infer<typeof playgroundEvent>

export const playgroundOps = {
  'playground.chat': op({
    summary:
      'Send a chat request with one of your keys through the same pipeline as API calls, on the chat completions, Messages, Responses or Gemini generateContent wire, streaming the answer',
    access: 'user',
    stream: true,
    input: z
      .object({
        key_id: z.string(),
        wire: playgroundWire.default('chat'),
        model: z.string().min(1),
        messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })).min(1),
        temperature: z.number().min(0).max(2).optional(),
        top_p: z.number().min(0).max(1).optional(),
        max_tokens: z.number().int().positive().optional(),
      })
      .strict(),
    output: playgroundEvent,
  }),
}
