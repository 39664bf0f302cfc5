import { assertBoundedJson } from '../../boundedJson'
import { invalidRequest } from '../../errors'
import type { ChatRequestOptions, UpstreamRequest } from '../adapter'
import { addCacheBreakpoints } from './autoCache'
import type { CacheControl, ContentBlock, ImageBlock, MessagesBody, TextBlock, ToolChoice, ToolDefinition, ToolUseBlock, Turn } from './types'
import { isObj } from '../../jsonObject'

type Obj = Record<string, unknown>

/**
 * Anthropic requires max_tokens; OpenAI has no default cap. When the caller sets neither
 * max_tokens nor max_completion_tokens, 4096 is used as is (no per-model lookup): it is within
 * every Claude model's output limit, so the default can never be the cause of a 400, and a longer
 * answer ends with finish_reason "length", which the client can see and act on.
 */
export const DEFAULT_MAX_TOKENS = 4096

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

/**
 * OpenAI fields Anthropic cannot honour, refused with a 400 naming the field: each one asks for
 * something the client will look for in the answer (several choices, log probabilities, a JSON
 * guarantee, banned tokens, legacy function calls, audio, search results), so dropping it would
 * hand back a different kind of answer without saying so.
 *
 * Dropped without a word, because the answer keeps its shape and the client's contract holds:
 * presence_penalty and frequency_penalty (soft sampling nudges many clients send as 0 by habit),
 * seed (best effort even on OpenAI), stream_options (Anthropic always reports usage on streams),
 * n: 1, logprobs: false, an empty logit_bias, response_format text, and OpenAI platform settings
 * (store, metadata, service_tier, prompt_cache_key, reasoning_effort, …). The upstream body is
 * built from the fields translated below only, since Anthropic rejects fields it does not know.
 */
const REFUSED: Array<{ field: string; applies: (v: unknown) => boolean; why: string }> = [
  {
    field: 'n',
    applies: (v) => typeof v === 'number' && v > 1,
    why: 'Anthropic returns one choice per request; send n: 1 (or omit it) and make several requests',
  },
  { field: 'logprobs', applies: (v) => v === true, why: 'Anthropic does not return token log probabilities' },
  { field: 'top_logprobs', applies: (v) => typeof v === 'number' && v > 0, why: 'Anthropic does not return token log probabilities' },
  {
    field: 'logit_bias',
    applies: (v) => isObj(v) && Object.keys(v).length > 0,
    why: 'Anthropic has no token bias, and the token ids are OpenAI tokenizer ids',
  },
  {
    field: 'response_format',
    applies: (v) => isObj(v) && v.type === 'json_object',
    why: 'Anthropic has no JSON mode without a schema; use response_format {type: "json_schema"} with a schema',
  },
  { field: 'functions', applies: (v) => v != null, why: 'legacy function calling is not translated; use tools' },
  { field: 'function_call', applies: (v) => v != null, why: 'legacy function calling is not translated; use tool_choice' },
  { field: 'audio', applies: (v) => v != null, why: 'Anthropic does not generate audio' },
  { field: 'web_search_options', applies: (v) => v != null, why: 'web search is not translated to Anthropic' },
]

const keepCache = (part: Obj): { cache_control?: CacheControl } =>
  isObj(part.cache_control) ? { cache_control: part.cache_control as unknown as CacheControl } : {}

/** Empty text blocks are dropped: Anthropic refuses them, and they carry nothing. */
const text = (value: string, part: Obj = {}): TextBlock[] => (value ? [{ type: 'text', text: value, ...keepCache(part) }] : [])

function imageBlock(part: Obj, where: string): ImageBlock {
  const param = `${where}.image_url.url`
  const url = isObj(part.image_url) ? part.image_url.url : undefined
  if (typeof url !== 'string') throw invalidRequest(`${param} must be a string`, param)
  const dataUri = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url)
  if (dataUri) {
    // image/jpg is not a registered type but is common in hand-built data URIs.
    const mediaType = dataUri[1].toLowerCase() === 'image/jpg' ? 'image/jpeg' : dataUri[1].toLowerCase()
    if (!IMAGE_TYPES.has(mediaType)) {
      throw invalidRequest(
        `${where} is an image of type "${mediaType || 'unknown'}"; Anthropic accepts only image/jpeg, image/png, image/gif and image/webp`,
        param,
      )
    }
    if (!dataUri[2].split(';').includes('base64')) throw invalidRequest(`${where} must be a base64 data URI`, param)
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: dataUri[3] }, ...keepCache(part) }
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url }, ...keepCache(part) }
  throw invalidRequest(`${where} must be an http(s) URL or a base64 data URI`, param)
}

/** A message's content as blocks; `images` and `refusals` say which part types its role may carry. */
function contentBlocks(content: unknown, where: string, allow: { images?: boolean; refusals?: boolean } = {}): Array<TextBlock | ImageBlock> {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return text(content)
  if (!Array.isArray(content)) throw invalidRequest(`${where} must be a string or an array of content parts`, where)
  return content.flatMap((part, j): Array<TextBlock | ImageBlock> => {
    const at = `${where}[${j}]`
    if (!isObj(part)) throw invalidRequest(`${at} must be an object`, at)
    if (part.type === 'text' && typeof part.text === 'string') return text(part.text, part)
    if (part.type === 'refusal' && allow.refusals && typeof part.refusal === 'string') return text(part.refusal, part)
    if (part.type === 'image_url' && allow.images) return [imageBlock(part, at)]
    throw invalidRequest(`${at} has type "${String(part.type)}", which this message cannot carry to Anthropic`, `${at}.type`)
  })
}

function toolUse(call: unknown, where: string): ToolUseBlock {
  if (!isObj(call) || (call.type !== undefined && call.type !== 'function') || !isObj(call.function)) {
    throw invalidRequest(`${where} must be a function tool call; Anthropic has no custom tools`, where)
  }
  const { name, arguments: args } = call.function
  if (typeof call.id !== 'string' || call.id === '') throw invalidRequest(`${where}.id must be a non-empty string`, `${where}.id`)
  if (typeof name !== 'string' || name === '') throw invalidRequest(`${where}.function.name must be a non-empty string`, `${where}.function.name`)
  const param = `${where}.function.arguments`
  let input: unknown = {}
  // A call to a tool without parameters may come back from a stream with no argument text at all.
  if (typeof args === 'string' && args.trim() !== '') {
    try {
      input = JSON.parse(args)
    } catch {
      throw invalidRequest(`${param} is not valid JSON; Anthropic needs a tool call's arguments as a JSON object`, param)
    }
    // JSON inside a string escaped the body's own bounds check.
    assertBoundedJson(input, param)
  } else if (args !== undefined && typeof args !== 'string') {
    throw invalidRequest(`${param} must be a string of JSON`, param)
  }
  if (!isObj(input)) throw invalidRequest(`${param} must encode a JSON object; Anthropic takes no other kind of tool input`, param)
  return { type: 'tool_use', id: call.id, name, input }
}

/**
 * Consecutive turns of one role become one: Anthropic would merge them anyway, and it is what puts
 * the tool results of one assistant turn (and any user text after them) into the single user turn
 * that must follow it.
 */
function append(turns: Turn[], role: Turn['role'], blocks: ContentBlock[]): void {
  if (blocks.length === 0) return
  const last = turns.at(-1)
  if (last?.role === role) last.content.push(...blocks)
  else turns.push({ role, content: blocks })
}

/** System and developer messages become the top-level system, in order; they lose their position among the turns. */
function translateMessages(messages: unknown[]): { system: TextBlock[]; turns: Turn[] } {
  const system: TextBlock[] = []
  const turns: Turn[] = []
  messages.forEach((raw, i) => {
    const m = raw as Obj
    const where = `messages[${i}].content`
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...(contentBlocks(m.content, where) as TextBlock[]))
        return
      case 'user':
        return append(turns, 'user', contentBlocks(m.content, where, { images: true }))
      case 'assistant': {
        const calls = m.tool_calls ?? []
        if (!Array.isArray(calls)) throw invalidRequest(`messages[${i}].tool_calls must be an array`, `messages[${i}].tool_calls`)
        const blocks: ContentBlock[] = contentBlocks(m.content, where, { refusals: true })
        blocks.push(...calls.map((c, j) => toolUse(c, `messages[${i}].tool_calls[${j}]`)))
        return append(turns, 'assistant', blocks)
      }
      case 'tool': {
        if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') {
          throw invalidRequest(`messages[${i}].tool_call_id must be a non-empty string`, `messages[${i}].tool_call_id`)
        }
        const content = typeof m.content === 'string' ? m.content : (contentBlocks(m.content, where) as TextBlock[])
        return append(turns, 'user', [{ type: 'tool_result', tool_use_id: m.tool_call_id, ...(content.length ? { content } : {}) }])
      }
      default:
        throw invalidRequest(`messages[${i}] has role "${String(m.role)}", which is not translated to Anthropic; use tool messages`, `messages[${i}].role`)
    }
  })
  return { system, turns }
}

function translateTools(tools: unknown): ToolDefinition[] | undefined {
  if (tools === undefined || tools === null) return undefined
  if (!Array.isArray(tools)) throw invalidRequest('tools must be an array', 'tools')
  if (tools.length === 0) return undefined
  return tools.map((t, i) => {
    if (!isObj(t) || t.type !== 'function' || !isObj(t.function)) {
      throw invalidRequest(`tools[${i}] must be a function tool; Anthropic takes no other kind from an OpenAI request`, `tools[${i}].type`)
    }
    const f = t.function
    if (typeof f.name !== 'string' || f.name === '') throw invalidRequest(`tools[${i}].function.name must be a non-empty string`, `tools[${i}].function.name`)
    return {
      name: f.name,
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      input_schema: isObj(f.parameters) ? f.parameters : { type: 'object', properties: {} },
      ...(f.strict === true ? { strict: true } : {}),
      ...keepCache(t),
    }
  })
}

function translateToolChoice(choice: unknown, parallel: unknown): ToolChoice | undefined {
  let out: Exclude<ToolChoice, { type: 'none' }> | undefined
  if (choice === undefined || choice === null) out = parallel === false ? { type: 'auto' } : undefined
  else if (choice === 'none') return { type: 'none' }
  else if (choice === 'auto') out = { type: 'auto' }
  else if (choice === 'required') out = { type: 'any' }
  else if (isObj(choice) && choice.type === 'function' && isObj(choice.function) && typeof choice.function.name === 'string') {
    out = { type: 'tool', name: choice.function.name }
  } else {
    throw invalidRequest('tool_choice must be "auto", "required", "none" or {type: "function", function: {name}} for Anthropic', 'tool_choice')
  }
  if (out && parallel === false) out.disable_parallel_tool_use = true
  return out
}

function maxTokens(body: Obj): number {
  const field = body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens'
  const value = body[field] ?? DEFAULT_MAX_TOKENS
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidRequest(`${field} must be a non-negative integer`, field)
  return value
}

function stopSequences(stop: unknown): string[] | undefined {
  if (stop === undefined || stop === null) return undefined
  if (typeof stop === 'string') return [stop]
  if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) return stop
  throw invalidRequest('stop must be a string or an array of strings', 'stop')
}

function outputFormat(format: unknown): MessagesBody['output_config'] {
  if (!isObj(format) || format.type === 'text') return undefined
  if (format.type !== 'json_schema')
    throw invalidRequest(`response_format type "${String(format.type)}" is not supported for Anthropic`, 'response_format.type')
  const schema = isObj(format.json_schema) ? format.json_schema.schema : undefined
  if (!isObj(schema)) throw invalidRequest('response_format.json_schema.schema must be a JSON schema object', 'response_format.json_schema.schema')
  return { format: { type: 'json_schema', schema } }
}

/** An OpenAI chat request (model already the upstream id) as an Anthropic Messages request. */
export function translateRequest(body: Obj, opts: ChatRequestOptions): UpstreamRequest {
  for (const r of REFUSED) if (r.applies(body[r.field])) throw invalidRequest(`${r.field} is not supported for Anthropic models: ${r.why}.`, r.field)
  const temperature = body.temperature
  if (temperature !== undefined && temperature !== null && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) {
    throw invalidRequest(
      `temperature is ${JSON.stringify(temperature)}; Anthropic models accept 0 to 1, not OpenAI's 0 to 2, and the gateway does not rescale or clamp it`,
      'temperature',
    )
  }
  const { system, turns } = translateMessages(body.messages as unknown[])
  const tools = translateTools(body.tools)
  const toolChoice = tools ? translateToolChoice(body.tool_choice, body.parallel_tool_calls) : undefined
  const stop = stopSequences(body.stop)
  const userId = [body.safety_identifier, body.user].find((v): v is string => typeof v === 'string' && v !== '')
  const outputConfig = outputFormat(body.response_format)
  const out: MessagesBody = {
    model: body.model as string,
    max_tokens: maxTokens(body),
    ...(system.length ? { system } : {}),
    messages: turns,
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(stop ? { stop_sequences: stop } : {}),
    ...(typeof temperature === 'number' ? { temperature } : {}),
    ...(typeof body.top_p === 'number' ? { top_p: body.top_p } : {}),
    ...(userId ? { metadata: { user_id: userId } } : {}),
    ...(outputConfig ? { output_config: outputConfig } : {}),
    ...(opts.stream ? { stream: true } : {}),
  }
  if (opts.autoCache) addCacheBreakpoints(out)
  return { path: 'messages', body: out }
}
