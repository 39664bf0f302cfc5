import { randomText } from '../../randomText'
import type { NormalizedUsage } from '../../pricing/types'
import type { ResponsesBody } from './responsesBody'
import { answerText } from '../translatedAnswer'
import { isObj } from '../../jsonObject'
import type { ToolNames } from './responsesTools'

type Obj = Record<string, unknown>

/** Ids shaped as OpenAI's (`resp_…`, `msg_…`, `fc_…`, `ctc_…`, `call_…`), for what the gateway makes. */
export const responsesId = (prefix: string) => `${prefix}_${randomText(24, 'hex')}`

/** A finished response object, as the gateway keeps it. */
export type KeptResponse = Obj & { id: string; output: Obj[] }

/** What the answer's response object says of the request, the names its tools got, and where it is kept. */
export interface ResponseShape {
  /** The model the caller asked for. */
  model: string
  body: ResponsesBody
  names: ToolNames
  /** When the request was made, in seconds (the response's `created_at`), by the gateway's clock. */
  createdAt: number
  /** Keeps the finished response before it goes out (so a continuation sent the moment it arrives finds it); null when it is not kept. */
  keep: ((response: KeptResponse) => void) | null
}

/** How the answer ended: a token limit or a filter leaves it incomplete, with the reason. */
export function ending(finish: unknown): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }
  return { status: 'completed', incomplete_details: null }
}

/**
 * Usage in the Responses convention: `input_tokens` includes cached ones, as chat's
 * `prompt_tokens` does; reasoning is part of `output_tokens`. Unknown usage stays null.
 */
export function responsesUsage(u: NormalizedUsage | null) {
  if (!u) return null
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens, ...(u.cache_write_tokens ? { cache_write_tokens: u.cache_write_tokens } : {}) },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens },
    total_tokens: u.total_tokens,
  }
}

/** A response object around `output`, echoing the request's settings as OpenAI's API does. */
export function responseObject(
  shape: ResponseShape,
  id: string,
  createdAt: number,
  fields: { status: string; incomplete_details: unknown; output: Obj[]; usage: unknown },
): Obj {
  const b = shape.body
  const or = <T>(v: unknown, fallback: T) => (v === undefined || v === null ? fallback : v)
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: fields.status,
    background: false,
    error: null,
    incomplete_details: fields.incomplete_details,
    instructions: or(b.instructions, null),
    max_output_tokens: or(b.max_output_tokens, null),
    model: shape.model,
    output: fields.output,
    parallel_tool_calls: or(b.parallel_tool_calls, true),
    previous_response_id: or(b.previous_response_id, null),
    reasoning: { effort: null, summary: null },
    store: shape.keep !== null,
    temperature: or(b.temperature, 1),
    text: { format: isObj(b.text) && isObj(b.text.format) ? b.text.format : { type: 'text' } },
    tool_choice: or(b.tool_choice, 'auto'),
    tools: or(b.tools, []),
    top_p: or(b.top_p, 1),
    truncation: 'disabled',
    usage: fields.usage,
    user: or(b.user, null),
    metadata: or(b.metadata, {}),
  }
}

/** A message output item holding `text`. */
export const messageItem = (id: string, text: string, status: string): Obj => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
})

/**
 * A custom tool's input from the arguments of the function it was offered as (`{"input": …}`);
 * arguments of another shape go as they came, so the tool sees what the model wrote.
 */
export function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args)
    if (isObj(parsed) && typeof parsed.input === 'string') return parsed.input
  } catch {
    // as written
  }
  return args
}

/** A tool call as the output item of the tool the caller named (mapped back from its chat name): a function or custom tool call. */
export function callItem(names: ToolNames, chatName: string, callId: string, args: string, status: string): Obj {
  const tool = names.called(chatName)
  const ns = tool.namespace === undefined ? {} : { namespace: tool.namespace }
  if (tool.custom) return { id: responsesId('ctc'), type: 'custom_tool_call', status, call_id: callId, name: tool.name, input: customInput(args), ...ns }
  return { id: responsesId('fc'), type: 'function_call', status, call_id: callId, name: tool.name, arguments: args === '' ? '{}' : args, ...ns }
}

/** A tool call's id as its `call_id` (the client sends it back with the output); one made up if the provider gave none. */
export const callIdOf = (id: unknown): string => (typeof id === 'string' && id !== '' ? id : responsesId('call'))

/** An OpenAI chat completion (as the adapter repaired it) as a Responses response object. */
export function chatToResponse(completion: Obj, usage: NormalizedUsage | null, shape: ResponseShape): KeptResponse {
  const choice = (Array.isArray(completion.choices) ? completion.choices[0] : undefined) as Obj | undefined
  const m = isObj(choice?.message) ? choice.message : {}
  const end = ending(choice?.finish_reason)
  const itemStatus = end.status === 'completed' ? 'completed' : 'incomplete'
  const output: Obj[] = []
  const text = answerText(m)
  if (text) output.push(messageItem(responsesId('msg'), text, itemStatus))
  for (const call of Array.isArray(m.tool_calls) ? (m.tool_calls as Obj[]) : []) {
    const f = isObj(call.function) ? call.function : {}
    output.push(
      callItem(shape.names, typeof f.name === 'string' ? f.name : '', callIdOf(call.id), typeof f.arguments === 'string' ? f.arguments : '', 'completed'),
    )
  }
  return responseObject(shape, responsesId('resp'), shape.createdAt, { ...end, output, usage: responsesUsage(usage) }) as KeptResponse
}
