import { invalidRequest } from '../../errors'
import { itemNotFound } from './conversations'
import type { ChatBody } from '../chat/chatBody'
import { limitedMaxTokens, userContent, type ChatTarget, type Dropped, type Part } from '../translatedChat'
import { isObj } from '../../jsonObject'
import type { ResponsesBody } from './responsesBody'
import { missing, requiredString, translateToolChoice, translateTools, type ToolNames } from './responsesTools'

type Obj = Record<string, unknown>

/**
 * Top-level Responses fields with no chat-completions counterpart that the answer keeps its
 * meaning without: dropped, and listed in the record's `ignored`.
 */
const DROPPED: Record<string, string> = {
  include: 'what it asks for (encrypted reasoning, logprobs, hosted tool results) is made by OpenAI-style Responses providers only',
  reasoning: 'chat completions has no reasoning setting every provider takes; the model reasoned as it does by default',
  prompt_cache_key: "a cache hint read by OpenAI's API only; providers that cache do it on their own",
  prompt_cache_retention: "a cache setting for OpenAI's API",
  metadata: 'stored with a response by OpenAI only',
  client_metadata: 'read by OpenAI only',
  service_tier: "OpenAI's service tiers do not exist on other providers",
  truncation: 'the conversation went as sent',
  top_logprobs: 'not translated to chat completions',
  max_tool_calls: 'chat completions has no cap on tool calls',
  stream_options: 'the stream is written by the gateway',
}

/**
 * Fields whose answer would mean something else without them: refused with a 400 naming the
 * field. (`previous_response_id` arrives here resolved into the input, from the gateway's store.)
 */
const REFUSED: Record<string, string> = {
  conversation: 'a stored conversation needs a provider that serves the Responses API; send the whole conversation in input instead',
  prompt: 'stored prompt templates are resolved by OpenAI only; send the instructions and input themselves',
  background: 'only a provider that serves the Responses API runs responses in the background',
}

/** What the translation reads (anything else is dropped as unknown). */
const TRANSLATED = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'max_output_tokens',
  'temperature',
  'top_p',
  'user',
  'safety_identifier',
  'gw',
  // Read by the gateway, which keeps the answer unless it is false.
  'store',
])

/** Input items that hold the output of OpenAI's hosted tools and the like: other providers cannot read them. */
const notTranslated = (type: string) => `${type} items are made and read by OpenAI-style Responses providers only; the conversation went without them`

/** Collects what the translation leaves out, once per name; reasoning items are counted. */
class Drops {
  readonly list: Dropped[] = []
  private reasoning: string[] = []
  private items = new Map<string, string[]>()

  readonly add = (d: Dropped): void => {
    if (!this.list.some((x) => x.name === d.name)) this.list.push(d)
  }

  reasoningItem(where: string): void {
    this.reasoning.push(where)
  }

  item(type: string, where: string): void {
    const at = this.items.get(type) ?? []
    at.push(where)
    this.items.set(type, at)
  }

  done(): Dropped[] {
    const first = (paths: string[]) => `${paths.length} (first ${paths[0]})`
    if (this.reasoning.length) {
      this.add({
        name: 'reasoning items',
        reason: `${first(this.reasoning)}: another provider cannot use a model's encrypted reasoning, and the turns read the same without it`,
      })
    }
    for (const [type, at] of this.items) this.add({ name: `${type} items`, reason: `${first(at)}: ${notTranslated(type)}` })
    return this.list
  }
}

/** Text of content parts (`input_text`, `output_text`, `refusal`) or a string. */
function textOf(content: unknown, where: string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw invalidRequest(`Invalid type for '${where}': expected a string or an array of content parts.`, where, 'invalid_type')
  return content.map((p, j) => textPart(p, `${where}[${j}]`)).join('')
}

function textPart(p: unknown, at: string): string {
  if (isObj(p) && (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string') return p.text
  if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string') return p.refusal
  throw invalidRequest(`Invalid value for '${at}.type': this message takes text parts only.`, `${at}.type`, 'invalid_value')
}

/** An image part by URL or data URI; an uploaded file means nothing to another provider, and a file's contents would go unread: refused. */
function userPart(p: unknown, at: string): Part {
  if (!isObj(p)) throw invalidRequest(`Invalid type for '${at}': expected an object.`, at, 'invalid_type')
  if (p.type === 'input_image') {
    if (typeof p.image_url === 'string' && p.image_url !== '') {
      return { type: 'image_url', image_url: { url: p.image_url, ...(typeof p.detail === 'string' && p.detail !== 'auto' ? { detail: p.detail } : {}) } }
    }
    throw invalidRequest(
      `${at}: only images given by image_url can be sent to a provider that does not serve the Responses API (an uploaded file id means nothing there)`,
      `${at}.image_url`,
    )
  }
  if (p.type === 'input_file') {
    throw invalidRequest(`${at}: a file input cannot be sent to a provider that does not serve the Responses API; send its text as input_text`, `${at}.type`)
  }
  return { type: 'text', text: textPart(p, at) }
}

const userParts = (content: unknown, where: string): Part[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : Array.isArray(content)
      ? content.map((p, j) => userPart(p, `${where}[${j}]`))
      : [userPart(content, where)]

/**
 * The conversation as chat messages, in order. Consecutive tool calls (after the assistant text
 * they follow, if any) make one assistant message, as chat completions expects; images in tool
 * outputs go into a user message after the run of tool messages (chat's carry text only).
 */
class History {
  readonly messages: Obj[] = []
  private assistant: Obj | null = null
  private images: Part[] = []

  push(m: Obj): void {
    if (m.role !== 'tool') this.flushImages()
    this.assistant = m.role === 'assistant' ? m : null
    this.messages.push(m)
  }

  call(call: Obj): void {
    const open = this.assistant
    if (open) open.tool_calls = [...((open.tool_calls as Obj[] | undefined) ?? []), call]
    else this.push({ role: 'assistant', content: null, tool_calls: [call] })
  }

  output(callId: string, text: string, images: Part[]): void {
    this.assistant = null
    this.messages.push({ role: 'tool', tool_call_id: callId, content: text })
    if (images.length) this.images.push({ type: 'text', text: `(images from the output of tool call ${callId})` }, ...images)
  }

  done(): Obj[] {
    this.flushImages()
    return this.messages
  }

  private flushImages(): void {
    if (!this.images.length) return
    this.messages.push({ role: 'user', content: this.images })
    this.images = []
  }
}

const callId = (item: Obj, at: string): string => requiredString(item, 'call_id', at)

const callName = (item: Obj, at: string, names: ToolNames): string =>
  names.chatName(requiredString(item, 'name', at), typeof item.namespace === 'string' ? item.namespace : undefined)

/** A tool output (a string or content parts) as a tool message's text and the images it held. */
function toolOutput(output: unknown, at: string): { text: string; images: Part[] } {
  if (typeof output === 'string') return { text: output, images: [] }
  const parts = userParts(output, at)
  return {
    text: parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n\n'),
    images: parts.filter((p) => p.type === 'image_url'),
  }
}

function message(item: Obj, at: string, history: History): void {
  const where = `${at}.content`
  switch (item.role) {
    case 'user':
      return history.push({ role: 'user', content: userContent(userParts(item.content, where)) })
    case 'assistant':
      return history.push({ role: 'assistant', content: textOf(item.content, where) })
    case 'system':
    case 'developer':
      // Every provider knows system messages; `developer` is OpenAI's newer name for them.
      return history.push({ role: 'system', content: textOf(item.content, where) })
    default:
      throw invalidRequest(`Invalid value for '${at}.role': expected 'user', 'assistant', 'system' or 'developer'.`, `${at}.role`, 'invalid_value')
  }
}

function translateInput(input: unknown, names: ToolNames, drops: Drops, history: History): void {
  if (input === undefined || input === null) return
  if (typeof input === 'string') return history.push({ role: 'user', content: input })
  ;(input as unknown[]).forEach((item, i) => {
    const at = `input[${i}]`
    if (!isObj(item)) throw invalidRequest(`Invalid type for '${at}': expected an object.`, at, 'invalid_type')
    const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined)
    switch (type) {
      case 'message':
        return message(item, at, history)
      case 'function_call':
        return history.call({
          id: callId(item, at),
          type: 'function',
          function: { name: callName(item, at, names), arguments: typeof item.arguments === 'string' && item.arguments !== '' ? item.arguments : '{}' },
        })
      case 'custom_tool_call':
        return history.call({
          id: callId(item, at),
          type: 'function',
          function: { name: callName(item, at, names), arguments: JSON.stringify({ input: typeof item.input === 'string' ? item.input : '' }) },
        })
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, images } = toolOutput(item.output, `${at}.output`)
        return history.output(callId(item, at), text, images)
      }
      case 'reasoning':
        // Never sent on: its encrypted content is readable only by the provider that made it.
        return drops.reasoningItem(at)
      case 'additional_tools':
        // Read with the tools.
        return
      case 'item_reference':
        // What the gateway keeps was put in its place; any other is a provider's, and this one keeps none.
        throw itemNotFound(typeof item.id === 'string' ? item.id : '', `${at}.id`)
      default:
        if (typeof type !== 'string') throw missing(`${at}.type`)
        return drops.item(type, at)
    }
  })
}

/** `text.format` as chat's response_format; `text.verbosity` has no counterpart. */
function translateText(text: unknown, drops: Drops): Obj {
  if (text === undefined || text === null) return {}
  if (!isObj(text)) throw invalidRequest("Invalid type for 'text': expected an object.", 'text', 'invalid_type')
  for (const field of Object.keys(text))
    if (field !== 'format' && text[field] != null) drops.add({ name: `text.${field}`, reason: 'not translated to chat completions' })
  const format = text.format
  if (format === undefined || format === null || (isObj(format) && format.type === 'text')) return {}
  if (isObj(format) && format.type === 'json_object') return { response_format: { type: 'json_object' } }
  if (isObj(format) && format.type === 'json_schema') {
    if (typeof format.name !== 'string' || !isObj(format.schema)) {
      throw invalidRequest("Missing required parameter: 'text.format.name' and 'text.format.schema'.", 'text.format', 'missing_required_parameter')
    }
    const json_schema = {
      name: format.name,
      schema: format.schema,
      ...(typeof format.description === 'string' ? { description: format.description } : {}),
      ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
    }
    return { response_format: { type: 'json_schema', json_schema } }
  }
  throw invalidRequest("Invalid value for 'text.format.type': expected 'text', 'json_schema' or 'json_object'.", 'text.format.type', 'invalid_value')
}

/** `user`, or the newer `safety_identifier` where no user is named (chat completions' `user` is what it replaced). */
function translateUser(body: ResponsesBody): Obj {
  const user =
    typeof body.user === 'string' && body.user
      ? body.user
      : typeof body.safety_identifier === 'string' && body.safety_identifier
        ? body.safety_identifier
        : null
  return user === null ? {} : { user }
}

/**
 * A Responses request as a chat-completions request for a provider that does not serve the
 * Responses API (the model still the caller's; the wire sets the upstream one). Everything the
 * model reads is translated or refused with a 400 naming the field; what only steers OpenAI's API
 * (storage, reasoning settings, hosted tools) is dropped and listed. Reasoning items never go on.
 */
export function responsesToChat(body: ResponsesBody, target: ChatTarget = {}): { chat: ChatBody; dropped: Dropped[] } {
  const drops = new Drops()
  for (const field of Object.keys(body)) {
    const value = body[field]
    if (TRANSLATED.has(field) || value === undefined || value === null) continue
    // What the translated path does anyway.
    if (field === 'background' && value === false) continue
    if (field === 'prompt_cache_key' && target.promptCacheKey && typeof value === 'string') continue
    if (Object.hasOwn(REFUSED, field)) throw invalidRequest(`${field} cannot be sent to ${body.model}: ${REFUSED[field]}.`, field, 'unsupported_parameter')
    drops.add({ name: field, reason: DROPPED[field] ?? 'not a Responses field the gateway translates to chat completions' })
  }
  const { tools, names } = translateTools(body, drops.add)
  const history = new History()
  if (typeof body.instructions === 'string' && body.instructions !== '') history.push({ role: 'system', content: body.instructions })
  translateInput(body.input, names, drops, history)
  if (tools.length === 0 && body.tool_choice != null) drops.add({ name: 'tool_choice', reason: 'no tool left that the provider can call' })
  if (tools.length === 0 && body.parallel_tool_calls != null) drops.add({ name: 'parallel_tool_calls', reason: 'no tool left that the provider can call' })
  const chat: ChatBody = {
    model: body.model,
    messages: history.done(),
    ...limitedMaxTokens(body.max_output_tokens, 'max_output_tokens', target, drops.add),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { top_p: body.top_p } : {}),
    ...(tools.length
      ? {
          tools,
          ...translateToolChoice(body.tool_choice, names, drops.add),
          ...(typeof body.parallel_tool_calls === 'boolean' ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
        }
      : {}),
    ...translateText(body.text, drops),
    ...translateUser(body),
    ...(target.promptCacheKey && typeof body.prompt_cache_key === 'string' ? { prompt_cache_key: body.prompt_cache_key } : {}),
    ...(body.stream === true ? { stream: true } : {}),
  }
  return { chat, dropped: drops.done() }
}
