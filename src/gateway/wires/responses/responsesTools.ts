import { createHash } from 'node:crypto'
import { invalidRequest } from '../../errors'
import type { Dropped } from '../translatedChat'
import { isObj } from '../../jsonObject'
import type { ResponsesBody } from './responsesBody'

type Obj = Record<string, unknown>

/** OpenAI's 400 for a parameter the request lacks, naming it. */
export const missing = (param: string) => invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter')

/** A non-empty string field, or the 400 naming it. */
export function requiredString(o: Obj, field: string, at: string): string {
  const v = o[field]
  if (typeof v !== 'string' || v === '') throw missing(`${at}.${field}`)
  return v
}

/** A tool as the caller named it: its name, the namespace it sits in, and whether it is a custom (free-text input) tool. */
export interface ToolName {
  name: string
  namespace?: string
  custom: boolean
}

/** What chat completions takes as a function name. */
const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** A custom tool's free-text input, as the one string parameter of a function. */
const CUSTOM_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The whole input of the tool, as free text.' } },
  required: ['input'],
  additionalProperties: false,
}

/** What a function or custom tool's definition carries that is translated. */
const TOOL_FIELDS = new Set(['type', 'name', 'description', 'parameters', 'strict', 'format'])

/**
 * The caller's tools under the names chat completions gets: a tool in a `namespace` is flattened
 * to `<namespace>__<name>` (Codex's namespaces end in `__` already and are joined as they are),
 * made valid and unique, and mapped back when the model calls it.
 */
export class ToolNames {
  private readonly byFlat = new Map<string, ToolName>()
  private readonly byName = new Map<string, string>()

  /** The chat name for a tool, given once per definition. */
  add(tool: ToolName): string {
    const key = keyOf(tool.name, tool.namespace)
    const known = this.byName.get(key)
    if (known !== undefined) return known
    let flat = flatten(tool.name, tool.namespace)
    if (!VALID_NAME.test(flat) || this.byFlat.has(flat)) flat = `${flat.slice(0, 55)}_${createHash('sha256').update(key).digest('hex').slice(0, 8)}`
    this.byFlat.set(flat, tool)
    this.byName.set(key, flat)
    return flat
  }

  /** The chat name of a call in the history: its tool's, or made the same way when the tool is no longer offered. */
  chatName(name: string, namespace: string | undefined): string {
    return this.byName.get(keyOf(name, namespace)) ?? flatten(name, namespace)
  }

  /** The tool the model called by its chat name; a name the gateway did not give is the model's own, a function. */
  called(flat: string): ToolName {
    return this.byFlat.get(flat) ?? { name: flat, custom: false }
  }
}

const keyOf = (name: string, namespace: string | undefined) => `${namespace ?? ''}\u0000${name}`

function flatten(name: string, namespace: string | undefined): string {
  const joined = namespace === undefined ? name : namespace.endsWith('_') ? namespace + name : `${namespace}__${name}`
  return joined.replace(/[^a-zA-Z0-9_-]/g, '_')
}

/** A custom tool's description, with the grammar its input must follow, which the model reads instead of a schema. */
function customDescription(tool: Obj): string | undefined {
  const parts = typeof tool.description === 'string' && tool.description ? [tool.description] : []
  const format = tool.format
  if (isObj(format) && format.type === 'grammar' && typeof format.definition === 'string') {
    parts.push(`The input must follow this ${typeof format.syntax === 'string' ? format.syntax : ''} grammar:\n${format.definition}`)
  }
  return parts.length ? parts.join('\n\n') : undefined
}

/** One function or custom tool as a chat function tool. */
function functionTool(t: Obj, at: string, names: ToolNames, namespace: string | undefined, drop: (d: Dropped) => void): Obj {
  const name = requiredString(t, 'name', at)
  for (const field of Object.keys(t))
    if (!TOOL_FIELDS.has(field)) drop({ name: `tools[].${field}`, reason: 'a tool setting chat completions has no counterpart for' })
  const custom = t.type === 'custom'
  const description = custom ? customDescription(t) : typeof t.description === 'string' ? t.description : undefined
  return {
    type: 'function',
    function: {
      name: names.add({ name, ...(namespace === undefined ? {} : { namespace }), custom }),
      ...(description ? { description } : {}),
      parameters: custom ? CUSTOM_PARAMETERS : isObj(t.parameters) ? t.parameters : { type: 'object', properties: {} },
      ...(!custom && t.strict === true ? { strict: true } : {}),
    },
  }
}

/**
 * A tool list (the top-level `tools`, or an `additional_tools` input item's) as chat function
 * tools. Hosted tools (web search, file search, code interpreter, tool search…) run on OpenAI's
 * side only: dropped, the model answers without them.
 */
function translateList(list: unknown, where: string, names: ToolNames, drop: (d: Dropped) => void): Obj[] {
  if (list === undefined || list === null) return []
  if (!Array.isArray(list)) throw invalidRequest(`Invalid type for '${where}': expected an array of tools.`, where, 'invalid_type')
  return list.flatMap((t, i): Obj[] => {
    const at = `${where}[${i}]`
    if (!isObj(t) || typeof t.type !== 'string') throw missing(`${at}.type`)
    if (t.type === 'function' || t.type === 'custom') return [functionTool(t, at, names, undefined, drop)]
    if (t.type === 'namespace') {
      const namespace = requiredString(t, 'name', at)
      if (!Array.isArray(t.tools)) throw missing(`${at}.tools`)
      return t.tools.map((inner, j) => {
        const innerAt = `${at}.tools[${j}]`
        if (!isObj(inner) || (inner.type !== 'function' && inner.type !== 'custom')) {
          throw invalidRequest(`Invalid value for '${innerAt}.type': a namespace holds function and custom tools.`, `${innerAt}.type`, 'invalid_value')
        }
        return functionTool(inner, innerAt, names, namespace, drop)
      })
    }
    drop({ name: `tools: ${t.type}`, reason: `a hosted tool, run by OpenAI's API only; the model did not have it` })
    return []
  })
}

/** The `tools` of an `additional_tools` input item (Codex sends its tools there for the models it knows). */
const additionalTools = (body: ResponsesBody): Array<{ tools: unknown; at: string }> =>
  (Array.isArray(body.input) ? body.input : []).flatMap((item, i) =>
    isObj(item) && item.type === 'additional_tools' ? [{ tools: item.tools, at: `input[${i}].tools` }] : [],
  )

/** Every tool of the request as a chat function tool, and the names they got. */
export function translateTools(body: ResponsesBody, drop: (d: Dropped) => void = () => {}): { tools: Obj[]; names: ToolNames } {
  const names = new ToolNames()
  const lists = [{ tools: body.tools, at: 'tools' }, ...additionalTools(body)]
  return { tools: lists.flatMap((l) => translateList(l.tools, l.at, names, drop)), names }
}

/** The name a tool_choice gives, as its chat name. */
function chosen(choice: Obj, names: ToolNames): Obj {
  const name = requiredString(choice, 'name', 'tool_choice')
  const namespace = typeof choice.namespace === 'string' ? choice.namespace : undefined
  return { tool_choice: { type: 'function', function: { name: names.chatName(name, namespace) } } }
}

/** Responses' tool_choice as chat's: the modes as they are, a named function or custom tool by its chat name. */
export function translateToolChoice(choice: unknown, names: ToolNames, drop: (d: Dropped) => void): Obj {
  if (choice === undefined || choice === null) return {}
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { tool_choice: choice }
  if (!isObj(choice)) throw invalidRequest("Invalid value for 'tool_choice': expected 'auto', 'none', 'required' or an object.", 'tool_choice', 'invalid_value')
  switch (choice.type) {
    case 'function':
    case 'custom':
      return chosen(choice, names)
    case 'allowed_tools':
      drop({ name: 'tool_choice.tools', reason: 'chat completions cannot narrow the tools offered; every tool was allowed' })
      return choice.mode === 'required' ? { tool_choice: 'required' } : { tool_choice: 'auto' }
    default:
      drop({ name: 'tool_choice', reason: `a hosted tool (${String(choice.type)}) cannot be required of another provider; the model chose` })
      return {}
  }
}
