import { invalidRequest } from '../../errors'
import type { ChatBody } from '../chat/chatBody'
import type { MessagesBody } from './messagesBody'
import { limitedMaxTokens, userContent, type ChatTarget, type Dropped, type Part } from '../translatedChat'
import { isObj } from '../../jsonObject'

type Obj = Record<string, unknown>

/**
 * Top-level Messages fields with no chat-completions counterpart. Each is dropped, because the
 * answer keeps its shape and meaning without it: the model answers without extended thinking or
 * Anthropic-side context editing, caching and tiers are the provider's own business, and an
 * Anthropic container or MCP server cannot be reached from another provider (the model goes
 * without those tools). What the model would have had to read (a PDF) is refused instead, in the
 * content blocks below.
 */
const DROPPED: Record<string, string> = {
  thinking: 'chat completions has no extended-thinking switch every provider takes; the model answers without it',
  context_management: "context editing is done by Anthropic's API; the conversation went as sent",
  top_k: 'chat completions has no top_k',
  cache_control: 'chat completions has no cache markers; providers that cache do it on their own',
  service_tier: "Anthropic's service tiers do not exist on other providers",
  container: 'code-execution containers exist on Anthropic only',
  mcp_servers: "remote MCP servers are called by Anthropic's API only; their tools were not available",
  inference_geo: 'an Anthropic data-residency setting',
}

/** What the translation does to the rest: the fields it reads (anything else is dropped as unknown). */
const TRANSLATED = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'temperature',
  'top_p',
  'stream',
  'tools',
  'tool_choice',
  'metadata',
  'output_config',
])

/** What a custom tool's definition carries that is translated (cache_control is counted with the other markers). */
const TOOL_FIELDS = new Set(['type', 'name', 'description', 'input_schema', 'strict', 'cache_control'])

/** A user id a provider can take as `user`: short, and not structured text (Claude Code's is a JSON object). */
const PLAIN_USER_ID = /^[\w.@:+-]{1,64}$/

/** Collects what the translation leaves out, once per name, with counts for markers on many blocks. */
class Drops {
  readonly list: Dropped[] = []
  private cacheMarks: string[] = []
  private thinking: string[] = []

  add(name: string, reason: string): void {
    if (!this.list.some((d) => d.name === name)) this.list.push({ name, reason })
  }

  /** Notes a block's (or tool's) cache_control, when it has one. */
  cache(o: Obj, where: string): void {
    if (o.cache_control !== undefined) this.cacheMarks.push(where)
  }

  thinkingBlock(where: string): void {
    this.thinking.push(where)
  }

  done(): Dropped[] {
    const first = (paths: string[]) => `${paths.length} (first ${paths[0]})`
    if (this.cacheMarks.length) this.add('cache_control', `prompt-cache breakpoints on ${first(this.cacheMarks)}: ${DROPPED.cache_control}`)
    if (this.thinking.length) {
      this.add(
        'thinking blocks',
        `${first(this.thinking)} in the history: another model cannot use Anthropic's signed reasoning, and the turns read the same without it`,
      )
    }
    return this.list
  }
}

/** Text of a system prompt or system message: a string or text blocks, joined by blank lines. */
function systemText(value: unknown, where: string, drops: Drops): string {
  if (typeof value === 'string') return value
  if (!Array.isArray(value)) throw invalidRequest(`${where}: Input should be a string or an array of text blocks`, where)
  return value
    .map((b, j) => {
      const at = `${where}[${j}]`
      if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') throw invalidRequest(`${at}: a system prompt takes text blocks only`, at)
      drops.cache(b, at)
      return b.text
    })
    .join('\n\n')
}

function imagePart(block: Obj, at: string): Part {
  const source = block.source
  if (isObj(source) && source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } }
  }
  if (isObj(source) && source.type === 'url' && typeof source.url === 'string') return { type: 'image_url', image_url: { url: source.url } }
  throw invalidRequest(
    `${at}.source: only base64 and url images can be sent to a provider that is not Anthropic (an uploaded file id means nothing there)`,
    `${at}.source`,
  )
}

/**
 * A document as text when it is text. A PDF (base64, url or file) is refused rather than dropped:
 * the model would answer without having read what the caller gave it, and nothing would tell.
 */
function documentText(block: Obj, at: string, drops: Drops): string {
  const source = block.source
  const title = typeof block.title === 'string' && block.title ? `${block.title}\n\n` : ''
  if (isObj(source) && source.type === 'text' && typeof source.data === 'string') return title + source.data
  if (isObj(source) && source.type === 'content') return title + systemText(source.content, `${at}.source.content`, drops)
  throw invalidRequest(
    `${at}: a ${isObj(source) ? String(source.type) : 'non-text'} document (PDF) cannot be sent to a provider that is not Anthropic; send its text in a text block, or use a model on an anthropic provider`,
    `${at}.source`,
  )
}

/** One content block of a user turn, as chat parts (tool results are handled by the turn). */
function userPart(block: Obj, at: string, drops: Drops): Part[] {
  drops.cache(block, at)
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') throw invalidRequest(`${at}.text: Field required (a string)`, `${at}.text`)
      return [{ type: 'text', text: block.text }]
    case 'image':
      return [imagePart(block, at)]
    case 'document':
      return [{ type: 'text', text: documentText(block, at, drops) }]
    case 'thinking':
    case 'redacted_thinking':
      drops.thinkingBlock(at)
      return []
    default:
      throw invalidRequest(`${at}: a block of type "${String(block.type)}" cannot be translated for a provider that is not Anthropic`, `${at}.type`)
  }
}

const blocksOf = (content: unknown, where: string): Obj[] => {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) throw invalidRequest(`${where}: Input should be a string or an array of content blocks`, where)
  return content.map((b, j) => {
    if (!isObj(b)) throw invalidRequest(`${where}[${j}]: Input should be an object`, `${where}[${j}]`)
    return b
  })
}

/**
 * A tool result as a tool message's text (chat's tool messages carry text only); its images go
 * into the user message that follows the turn's tool messages, labelled, so the model still sees
 * them. An error result says so in its text, chat having no flag for it.
 */
function toolResult(block: Obj, at: string, drops: Drops, images: Part[]): Obj {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') throw invalidRequest(`${at}.tool_use_id: Field required`, `${at}.tool_use_id`)
  const texts: string[] = []
  if (block.content !== undefined) {
    blocksOf(block.content, `${at}.content`).forEach((b, k) => {
      const part = userPart(b, `${at}.content[${k}]`, drops)
      for (const p of part) {
        if (p.type === 'text') texts.push(p.text)
        else images.push({ type: 'text', text: `(image from the result of tool call ${block.tool_use_id})` }, p)
      }
    })
  }
  const text = texts.join('\n\n')
  return { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text }
}

/** A user turn: its tool results as tool messages first, in order, then the rest as one user message. */
function userMessages(content: unknown, where: string, drops: Drops): Obj[] {
  const tools: Obj[] = []
  const parts: Part[] = []
  const images: Part[] = []
  blocksOf(content, where).forEach((block, j) => {
    const at = `${where}[${j}]`
    if (block.type === 'tool_result') {
      drops.cache(block, at)
      tools.push(toolResult(block, at, drops, images))
    } else parts.push(...userPart(block, at, drops))
  })
  parts.push(...images)
  return parts.length ? [...tools, { role: 'user', content: userContent(parts) }] : tools
}

/** An assistant turn as one message: its text as content, its tool_use blocks as tool calls (input as JSON text). */
function assistantMessage(content: unknown, where: string, drops: Drops): Obj[] {
  const texts: string[] = []
  const calls: Obj[] = []
  blocksOf(content, where).forEach((block, j) => {
    const at = `${where}[${j}]`
    drops.cache(block, at)
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
    else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') throw invalidRequest(`${at}: a tool_use block needs an id and a name`, at)
      calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } })
    } else if (block.type === 'thinking' || block.type === 'redacted_thinking') drops.thinkingBlock(at)
    else
      throw invalidRequest(
        `${at}: a block of type "${String(block.type)}" in an assistant turn cannot be translated for a provider that is not Anthropic`,
        `${at}.type`,
      )
  })
  // A turn that held only reasoning leaves nothing to send.
  if (!texts.length && !calls.length) return []
  return [{ role: 'assistant', content: texts.length ? texts.join('') : null, ...(calls.length ? { tool_calls: calls } : {}) }]
}

function translateMessages(messages: unknown[], drops: Drops): Obj[] {
  return messages.flatMap((m, i): Obj[] => {
    const where = `messages[${i}].content`
    if (!isObj(m)) throw invalidRequest(`messages[${i}]: Input should be an object`, `messages[${i}]`)
    switch (m.role) {
      case 'user':
        return userMessages(m.content, where, drops)
      case 'assistant':
        return assistantMessage(m.content, where, drops)
      case 'system':
        // Claude Code sends one mid-conversation; chat completions keeps it in place.
        return [{ role: 'system', content: systemText(m.content, where, drops) }]
      default:
        throw invalidRequest(`messages[${i}].role: Input should be 'user', 'assistant' or 'system'`, `messages[${i}].role`)
    }
  })
}

/** Custom tools as function tools; server tools (web search, code execution…) run on Anthropic's side only and are dropped. */
function translateTools(tools: unknown, drops: Drops): Obj[] {
  if (tools === undefined || tools === null) return []
  if (!Array.isArray(tools)) throw invalidRequest('tools: Input should be an array', 'tools')
  return tools.flatMap((t, i) => {
    const at = `tools[${i}]`
    if (!isObj(t)) throw invalidRequest(`${at}: Input should be an object`, at)
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      drops.add(at, `server tool ${String(t.type)} runs on Anthropic's side only; the model did not have it`)
      return []
    }
    if (typeof t.name !== 'string' || t.name === '') throw invalidRequest(`${at}.name: Field required`, `${at}.name`)
    drops.cache(t, at)
    for (const field of Object.keys(t)) if (!TOOL_FIELDS.has(field)) drops.add(`tools[].${field}`, 'a tool setting chat completions has no counterpart for')
    return [
      {
        type: 'function',
        function: {
          name: t.name,
          ...(typeof t.description === 'string' ? { description: t.description } : {}),
          parameters: isObj(t.input_schema) ? t.input_schema : { type: 'object', properties: {} },
          ...(t.strict === true ? { strict: true } : {}),
        },
      },
    ]
  })
}

/** Anthropic's tool_choice as chat's tool_choice and parallel_tool_calls. */
function translateToolChoice(choice: unknown): Obj {
  if (choice === undefined || choice === null) return {}
  if (!isObj(choice)) throw invalidRequest('tool_choice: Input should be an object', 'tool_choice')
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {}
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel }
    case 'any':
      return { tool_choice: 'required', ...parallel }
    case 'none':
      return { tool_choice: 'none' }
    case 'tool':
      if (typeof choice.name !== 'string') throw invalidRequest('tool_choice.name: Field required', 'tool_choice.name')
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel }
    default:
      throw invalidRequest("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'", 'tool_choice.type')
  }
}

/** output_config: a JSON schema for the answer has chat's counterpart; the effort level has none every provider takes. */
function translateOutputConfig(config: unknown, drops: Drops): Obj {
  if (config === undefined || config === null) return {}
  if (!isObj(config)) throw invalidRequest('output_config: Input should be an object', 'output_config')
  let out: Obj = {}
  for (const [field, value] of Object.entries(config)) {
    if (field === 'format' && isObj(value) && value.type === 'json_schema' && isObj(value.schema)) {
      out = { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: value.schema } } }
    } else if (field === 'effort') {
      drops.add('output_config.effort', 'chat completions has no effort level every provider takes')
    } else drops.add(`output_config.${field}`, 'not translated to chat completions')
  }
  return out
}

function translateMetadata(metadata: unknown, drops: Drops): Obj {
  if (!isObj(metadata)) return {}
  const out: Obj = {}
  for (const [field, value] of Object.entries(metadata)) {
    if (field === 'user_id' && typeof value === 'string' && PLAIN_USER_ID.test(value)) out.user = value
    else if (field === 'user_id' && value !== null) {
      drops.add('metadata.user_id', 'not a short plain id (Claude Code sends a JSON object as text); attribution goes in X-Gw-User-Id')
    } else if (value !== null) drops.add(`metadata.${field}`, 'not translated to chat completions')
  }
  return out
}

/**
 * A Messages request as a chat-completions request for a provider of another kind (the model
 * still the caller's; the wire sets the upstream one). Everything the model reads is translated
 * or refused with a 400 naming the field; what only steers Anthropic's API is dropped and listed.
 */
export function messagesToChat(body: MessagesBody, target: ChatTarget = {}): { chat: ChatBody; dropped: Dropped[] } {
  const drops = new Drops()
  for (const field of Object.keys(body)) {
    if (TRANSLATED.has(field) || body[field] === undefined) continue
    if (field === 'cache_control') drops.cache(body, field)
    else drops.add(field, DROPPED[field] ?? 'not a Messages field the gateway translates to chat completions')
  }
  const system = body.system === undefined || body.system === '' ? [] : [{ role: 'system', content: systemText(body.system, 'system', drops) }]
  const messages = [...system, ...translateMessages(body.messages, drops)]
  const tools = translateTools(body.tools, drops)
  if (tools.length === 0 && body.tool_choice != null) drops.add('tool_choice', 'no tool left that the provider can call')
  const stop = body.stop_sequences
  if (stop !== undefined && (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string'))) {
    throw invalidRequest('stop_sequences: Input should be an array of strings', 'stop_sequences')
  }
  const chat: ChatBody = {
    model: body.model,
    messages,
    ...limitedMaxTokens(body.max_tokens, 'max_tokens', target, (d) => drops.add(d.name, d.reason)),
    ...(Array.isArray(stop) && stop.length ? { stop } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { top_p: body.top_p } : {}),
    ...(tools.length ? { tools, ...translateToolChoice(body.tool_choice) } : {}),
    ...translateMetadata(body.metadata, drops),
    ...translateOutputConfig(body.output_config, drops),
    ...(body.stream === true ? { stream: true } : {}),
  }
  return { chat, dropped: drops.done() }
}
