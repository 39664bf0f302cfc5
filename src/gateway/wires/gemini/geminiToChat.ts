import { invalidRequest } from '../../errors'
import type { ChatBody } from '../chat/chatBody'
import { limitedMaxTokens, userContent, type ChatTarget, type Dropped, type Part } from '../translatedChat'
import { isObj } from '../../jsonObject'
import type { GeminiBody, GeminiContent, GeminiPart, GenerationConfig } from './geminiBody'
import { SKIP_SIGNATURE } from '../../providers/openai/thoughtSignatures'

type Obj = Record<string, unknown>

/**
 * Top-level generateContent fields with no chat-completions counterpart that the answer keeps its
 * meaning without: dropped, and listed in the record's `ignored`.
 */
const DROPPED: Record<string, string> = {
  safetySettings: "Google's blocking thresholds; the provider filters by its own policy",
  labels: "billing labels for Google's Vertex AI",
  serviceTier: "Google's service tiers do not exist on other providers",
}

/** Fields whose answer would mean something else without them: refused with a 400 naming the field. */
const REFUSED: Record<string, string> = {
  cachedContent:
    "a prompt cached at Google is part of what the model reads, and another provider cannot read it; send its contents in the request, or use a model on Google's API",
}

/** What the translation reads (anything else is dropped as unknown). */
const TRANSLATED = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'])

/** generationConfig fields the translation reads. */
const CONFIG_TRANSLATED = new Set([
  'temperature',
  'topP',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
])

/** generationConfig fields dropped, with why; any other is dropped as not translated. */
const CONFIG_DROPPED: Record<string, string> = {
  topK: 'chat completions has no top_k',
  responseLogprobs: 'log probabilities are not translated to chat completions',
  logprobs: 'log probabilities are not translated to chat completions',
  responseModalities: 'chat completions answers in text',
  mediaResolution: "how Google's models read media; the provider reads it its own way",
}

/** Tools Google's API runs itself: another provider cannot run them, so the model goes without. */
const BUILT_IN: Record<string, string> = {
  googleSearch: "Google Search grounding runs on Google's side only; the model answered without searching",
  googleSearchRetrieval: "Google Search grounding runs on Google's side only; the model answered without searching",
  codeExecution: "code execution runs on Google's side only; the model did not have it",
  urlContext: "URL fetching runs on Google's side only; the model did not have it",
}

/** Parts another provider cannot read, made by Google's own tools: the conversation goes without them. */
const GOOGLE_PARTS = new Set(['executableCode', 'codeExecutionResult'])

/** What a part carries (Google's `data` oneof); a part also may carry `thought` and `thoughtSignature` beside it. */
const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', ...GOOGLE_PARTS]

/** Thinking levels Google's OpenAI layer takes as `reasoning_effort` under the same names. */
const LEVELS = new Set(['minimal', 'low', 'medium', 'high'])

/** Collects what the translation leaves out, once per name; parts dropped across the turns are counted. */
class Drops {
  readonly list: Dropped[] = []
  private readonly parts = new Map<string, { at: string[]; reason: string }>()

  readonly add = (d: Dropped): void => {
    if (!this.list.some((x) => x.name === d.name)) this.list.push(d)
  }

  /** A part (or a part's field) left out at `at`, named once at the end with how many and the first. */
  part(name: string, at: string, reason: string): void {
    const seen = this.parts.get(name)
    if (seen) seen.at.push(at)
    else this.parts.set(name, { at: [at], reason })
  }

  done(): Dropped[] {
    for (const [name, { at, reason }] of this.parts) this.add({ name, reason: `${at.length} (first ${at[0]}): ${reason}` })
    return this.list
  }
}

/**
 * Why a part of kind `data` is left out where the turn's message cannot carry it: Google's own
 * tools' parts are read by Google only; anything else (a function call in a user turn, an image
 * a model made) is out of place in `turn`.
 */
const notCarried = (data: string, turn: string) =>
  GOOGLE_PARTS.has(data) ? "made and read by Google's own tools only; the conversation went without them" : turn

const textOf = (p: GeminiPart, at: string): string => {
  if (typeof p.text !== 'string') throw invalidRequest(`${at}.text: must be a string`, `${at}.text`)
  return p.text
}

/** The field that carries a part's data, or null when it carries none the gateway knows (its other fields are named by `partExtras`). */
const dataOf = (p: GeminiPart): string | null => DATA_FIELDS.find((f) => p[f] !== undefined) ?? null

/** A part's fields besides its data, thought flag and signature (video offsets, part metadata): none reaches a chat provider. */
function partExtras(p: GeminiPart, at: string, drops: Drops): void {
  for (const field of Object.keys(p)) {
    if (field === 'thought' || field === 'thoughtSignature' || DATA_FIELDS.includes(field)) continue
    drops.part(`parts[].${field}`, at, 'a part setting chat completions has no counterpart for')
  }
}

/** Why thought parts never go on. */
const THOUGHTS = 'thought summaries are not replayed; the turns read the same without them'

/**
 * A part's signature, where it does not ride on a tool call to Gemini's OpenAI layer: counted with
 * the others. Google's "no signature" sentinel, which Gemini CLI puts on calls it replays unsigned,
 * carries nothing, so leaving it out is not worth a word.
 */
const signatureDropped = (p: GeminiPart, at: string, drops: Drops) => {
  if (p.thoughtSignature !== undefined && p.thoughtSignature !== SKIP_SIGNATURE) {
    drops.part(
      'thoughtSignature',
      at,
      "a Gemini model's signed reasoning, which a chat provider reads on Gemini's tool calls only; the turns read the same without it",
    )
  }
}

/**
 * Inline data a chat provider can read: an image as a data URL, text as text. Anything else (a
 * PDF, audio, video) is refused rather than dropped: the model would answer without having read
 * what the caller gave it, and nothing would tell.
 */
function inlinePart(p: GeminiPart, at: string): Part {
  const data = p.inlineData
  const mime = typeof data?.mimeType === 'string' ? data.mimeType.toLowerCase() : ''
  if (typeof data?.data !== 'string') throw invalidRequest(`${at}.inlineData.data: Field required (base64 data)`, `${at}.inlineData.data`)
  if (mime.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${mime};base64,${data.data}` } }
  if (mime.startsWith('text/')) return { type: 'text', text: Buffer.from(data.data, 'base64').toString('utf8') }
  throw invalidRequest(
    `${at}.inlineData: ${mime || 'data of no mime type'} cannot be sent to a provider that does not speak Gemini (chat completions takes images and text); send its text, or use a model on Google's API`,
    `${at}.inlineData.mimeType`,
  )
}

/** A file by URI means nothing to another provider (an uploaded file is Google's; a gs:// or video URL is fetched by Google): refused, as unread input would be. */
const fileRefused = (at: string) =>
  invalidRequest(
    `${at}.fileData: a file given by URI cannot be sent to a provider that does not speak Gemini; send it as inlineData, or use a model on Google's API`,
    `${at}.fileData`,
  )

/**
 * A function's result as a tool message's text (chat's tool messages carry text only). Google's
 * convention is `{output}` for a result and `{error}` for a failure (Gemini CLI sends them so):
 * those are their text, an error saying so, chat having no flag for it; any other shape is its JSON.
 */
function resultText(response: unknown): string {
  if (isObj(response) && Object.keys(response).length === 1) {
    if (typeof response.output === 'string') return response.output
    if (response.error !== undefined) return `Error: ${typeof response.error === 'string' ? response.error : JSON.stringify(response.error)}`
  }
  return JSON.stringify(response ?? {})
}

/**
 * The conversation as chat messages. Function calls without an id (Google's API gives none) get
 * one made from where they stand, so the same history always gives the same ids; a function
 * response is paired with its call by id, else with the earliest unanswered call of its name.
 */
class History {
  readonly messages: Obj[] = []
  /** Calls not answered yet, in order. */
  private readonly unanswered: Array<{ id: string; name: string }> = []

  constructor(
    private readonly drops: Drops,
    private readonly target: ChatTarget,
  ) {}

  turn(content: GeminiContent, i: number): void {
    switch (content.role) {
      case 'model':
        return this.model(content.parts, i)
      // `function` is the role older SDKs gave function responses.
      case 'user':
      case 'function':
      case undefined:
        return this.user(content.parts, i)
      default:
        throw invalidRequest(`contents[${i}].role: Input should be 'user' or 'model'`, `contents[${i}].role`)
    }
  }

  /** A model turn as one assistant message: its text as content, its function calls as tool calls. Thoughts are never replayed. */
  private model(parts: GeminiPart[], i: number): void {
    const texts: string[] = []
    const calls: Obj[] = []
    parts.forEach((p, j) => {
      const at = `contents[${i}].parts[${j}]`
      partExtras(p, at, this.drops)
      const data = dataOf(p)
      if (data === 'functionCall') {
        calls.push(this.call(p, at, `call_${i}_${j}`))
        return
      }
      signatureDropped(p, at, this.drops)
      if (p.thought === true) this.drops.part('thought parts', at, THOUGHTS)
      else if (data === 'text') texts.push(textOf(p, at))
      else if (data !== null)
        this.drops.part(`${data} parts`, at, notCarried(data, 'an assistant message in chat completions carries text and tool calls only'))
    })
    // A turn that held only thoughts leaves nothing to send.
    if (!texts.length && !calls.length) return
    this.messages.push({ role: 'assistant', content: texts.length ? texts.join('') : null, ...(calls.length ? { tool_calls: calls } : {}) })
  }

  /** A function call as a tool call; `made` is its id when it has none. */
  private call(p: GeminiPart, at: string, made: string): Obj {
    const f = p.functionCall!
    if (typeof f.name !== 'string' || f.name === '') throw invalidRequest(`${at}.functionCall.name: Field required`, `${at}.functionCall.name`)
    const id = typeof f.id === 'string' && f.id !== '' ? f.id : made
    this.unanswered.push({ id, name: f.name })
    const signature = typeof p.thoughtSignature === 'string' && this.target.geminiLayer ? p.thoughtSignature : undefined
    if (signature === undefined) signatureDropped(p, at, this.drops)
    return {
      id,
      type: 'function',
      function: { name: f.name, arguments: JSON.stringify(f.args ?? {}) },
      ...(signature ? { extra_content: { google: { thought_signature: signature } } } : {}),
    }
  }

  /** A user turn: its function responses as tool messages first, in order, then the rest as one user message. */
  private user(parts: GeminiPart[], i: number): void {
    const tools: Obj[] = []
    const content: Part[] = []
    const images: Part[] = []
    parts.forEach((p, j) => {
      const at = `contents[${i}].parts[${j}]`
      partExtras(p, at, this.drops)
      signatureDropped(p, at, this.drops)
      const data = dataOf(p)
      if (data === 'functionResponse') tools.push(this.result(p, at, images))
      else if (p.thought === true) this.drops.part('thought parts', at, THOUGHTS)
      else if (data === 'text') content.push({ type: 'text', text: textOf(p, at) })
      else if (data === 'inlineData') content.push(inlinePart(p, at))
      else if (data === 'fileData') throw fileRefused(at)
      else if (data !== null) this.drops.part(`${data} parts`, at, notCarried(data, 'a user message in chat completions carries text and images only'))
    })
    content.push(...images)
    this.messages.push(...tools)
    if (content.length) this.messages.push({ role: 'user', content: userContent(content) })
  }

  /**
   * A function response as a tool message, paired with its call. The images a response carries
   * (Gemini 3's multimodal responses, `functionResponse.parts`) go into the user message that
   * follows the turn's tool messages, labelled, so the model still sees them.
   */
  private result(p: GeminiPart, at: string, images: Part[]): Obj {
    const r = p.functionResponse!
    const id = this.answered(r, at)
    const extra = (r as Obj).parts
    if (Array.isArray(extra)) {
      extra.forEach((q, k) => {
        const where = `${at}.functionResponse.parts[${k}]`
        if (!isObj(q)) throw invalidRequest(`${where}: must be an object`, where)
        if (q.inlineData === undefined) throw fileRefused(where)
        images.push({ type: 'text', text: `(from the result of function call ${id})` }, inlinePart(q as GeminiPart, where))
      })
    }
    return { role: 'tool', tool_call_id: id, content: resultText(r.response) }
  }

  /** The id of the call a response answers: its own, else the earliest unanswered call of its name. */
  private answered(r: NonNullable<GeminiPart['functionResponse']>, at: string): string {
    const byId = typeof r.id === 'string' && r.id !== '' ? r.id : null
    const i = this.unanswered.findIndex((c) => (byId === null ? c.name === r.name : c.id === byId))
    const call = i === -1 ? null : this.unanswered.splice(i, 1)[0]
    if (byId !== null) return byId
    if (call) return call.id
    if (typeof r.name !== 'string' || r.name === '') throw invalidRequest(`${at}.functionResponse.name: Field required`, `${at}.functionResponse.name`)
    throw invalidRequest(
      `${at}.functionResponse: no earlier functionCall of "${r.name}" is left unanswered for it; give it the id of the call it answers`,
      `${at}.functionResponse`,
    )
  }
}

/** A system instruction's text parts, joined by blank lines. */
function systemText(system: GeminiBody['systemInstruction']): string {
  return (system?.parts ?? [])
    .map((p, j) => {
      const at = `systemInstruction.parts[${j}]`
      if (typeof p.text !== 'string') throw invalidRequest(`${at}: a system instruction takes text parts only`, `${at}.text`)
      return p.text
    })
    .join('\n\n')
}

/**
 * Google's Schema (an OpenAPI subset: upper-case types, `nullable`, `propertyOrdering`) as JSON
 * Schema, which chat providers take. A JSON Schema passes unchanged but for its type's case.
 */
function jsonSchemaOf(schema: unknown): unknown {
  if (!isObj(schema)) return schema
  const out: Obj = {}
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'nullable' || k === 'propertyOrdering') continue
    if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase()
    // Property names are the caller's, not keywords: only their schemas are converted.
    else if (k === 'properties' && isObj(v)) out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, jsonSchemaOf(s)]))
    else if (k === 'items') out.items = jsonSchemaOf(v)
    else if (k === 'anyOf' && Array.isArray(v)) out.anyOf = v.map(jsonSchemaOf)
    else out[k] = v
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null']
  return out
}

/** A declaration's fields beyond what chat's function tool takes. */
const DECLARATION_FIELDS = new Set(['name', 'description', 'parameters', 'parametersJsonSchema'])

/** Function declarations as function tools; Google's built-in tools run on Google's side only and are dropped. */
function translateTools(tools: GeminiBody['tools'], drops: Drops): Obj[] {
  return (tools ?? []).flatMap((t, i) => {
    if (!isObj(t)) throw invalidRequest(`tools[${i}]: must be an object`, `tools[${i}]`)
    return Object.entries(t).flatMap(([kind, value]) => {
      const at = `tools[${i}].${kind}`
      if (kind !== 'functionDeclarations') {
        drops.add({ name: at, reason: BUILT_IN[kind] ?? "a tool Google's API runs itself; the model did not have it" })
        return []
      }
      if (!Array.isArray(value)) throw invalidRequest(`${at}: must be an array of function declarations`, at)
      return value.map((d: unknown, j) => {
        const where = `${at}[${j}]`
        if (!isObj(d) || typeof d.name !== 'string' || d.name === '') throw invalidRequest(`${where}.name: Field required`, `${where}.name`)
        for (const field of Object.keys(d)) {
          if (!DECLARATION_FIELDS.has(field))
            drops.add({ name: `tools[].functionDeclarations[].${field}`, reason: 'a declaration field chat completions has no counterpart for' })
        }
        const parameters = d.parametersJsonSchema ?? (d.parameters === undefined ? undefined : jsonSchemaOf(d.parameters))
        return {
          type: 'function',
          function: {
            name: d.name,
            ...(typeof d.description === 'string' ? { description: d.description } : {}),
            parameters: isObj(parameters) ? parameters : { type: 'object', properties: {} },
          },
        }
      })
    })
  })
}

const functionNamed = (name: string) => ({ type: 'function', function: { name } })

/**
 * `toolConfig.functionCallingConfig` as chat's tool_choice. Allowed names narrow the tools the
 * model is offered (chat's tool_choice names one function at most); ANY with one allowed name
 * is that function. VALIDATED is AUTO with Google's check of the calls against their schemas,
 * which chat completions does not do.
 */
function translateToolConfig(config: GeminiBody['toolConfig'], tools: Obj[], drops: Drops): { tools: Obj[]; choice: Obj } {
  if (config === undefined || config === null) return { tools, choice: {} }
  if (!isObj(config)) throw invalidRequest('toolConfig: must be an object', 'toolConfig')
  for (const field of Object.keys(config)) {
    if (field !== 'functionCallingConfig') drops.add({ name: `toolConfig.${field}`, reason: 'not translated to chat completions' })
  }
  const f = config.functionCallingConfig
  if (f === undefined || f === null) return { tools, choice: {} }
  if (!isObj(f)) throw invalidRequest('toolConfig.functionCallingConfig: must be an object', 'toolConfig.functionCallingConfig')
  for (const field of Object.keys(f)) {
    if (field !== 'mode' && field !== 'allowedFunctionNames')
      drops.add({ name: `toolConfig.functionCallingConfig.${field}`, reason: 'not translated to chat completions' })
  }
  const allowed = f.allowedFunctionNames
  if (allowed !== undefined && (!Array.isArray(allowed) || !allowed.every((n) => typeof n === 'string'))) {
    throw invalidRequest(
      'toolConfig.functionCallingConfig.allowedFunctionNames: must be an array of names',
      'toolConfig.functionCallingConfig.allowedFunctionNames',
    )
  }
  const names = allowed?.length ? new Set(allowed) : null
  const offered = names && f.mode !== 'NONE' ? tools.filter((t) => names.has((t.function as { name: string }).name)) : tools
  switch (f.mode) {
    case undefined:
    case 'MODE_UNSPECIFIED':
      return { tools: offered, choice: {} }
    case 'AUTO':
      return { tools: offered, choice: { tool_choice: 'auto' } }
    case 'VALIDATED':
      drops.add({ name: 'toolConfig.functionCallingConfig.mode', reason: "VALIDATED checks calls against their schemas on Google's side; auto was sent" })
      return { tools: offered, choice: { tool_choice: 'auto' } }
    case 'ANY':
      return { tools: offered, choice: { tool_choice: names?.size === 1 ? functionNamed([...names][0]) : 'required' } }
    case 'NONE':
      return { tools, choice: { tool_choice: 'none' } }
    default:
      throw invalidRequest(
        "toolConfig.functionCallingConfig.mode: Input should be 'AUTO', 'ANY', 'NONE' or 'VALIDATED'",
        'toolConfig.functionCallingConfig.mode',
      )
  }
}

/** `responseMimeType` (and its schema) as chat's response_format: JSON with a schema, JSON without, or text. */
function responseFormat(config: GenerationConfig, drops: Drops): Obj {
  const mime = config.responseMimeType
  const schemaField = config.responseJsonSchema !== undefined ? 'responseJsonSchema' : config.responseSchema !== undefined ? 'responseSchema' : null
  if (mime === undefined || mime === 'text/plain') {
    // Google refuses a schema without a JSON mime type; nothing here would use it.
    if (schemaField) drops.add({ name: `generationConfig.${schemaField}`, reason: 'a response schema applies to application/json answers only' })
    return {}
  }
  if (mime !== 'application/json') {
    throw invalidRequest(
      `generationConfig.responseMimeType: ${String(mime)} answers cannot be asked of a provider that does not speak Gemini; use application/json or text/plain`,
      'generationConfig.responseMimeType',
    )
  }
  if (schemaField === null) return { response_format: { type: 'json_object' } }
  // Through jsonSchemaOf either way: Google takes its upper-case types in a JSON Schema too, and Gemini CLI's router sends them there.
  const schema = jsonSchemaOf(schemaField === 'responseJsonSchema' ? config.responseJsonSchema : config.responseSchema)
  if (!isObj(schema)) throw invalidRequest(`generationConfig.${schemaField}: must be a schema object`, `generationConfig.${schemaField}`)
  return { response_format: { type: 'json_schema', json_schema: { name: 'output', schema } } }
}

/**
 * A thinking config as `reasoning_effort`, for Google's OpenAI layer only: it maps the effort onto
 * every Gemini model's thinking (low ≈ 1K, medium ≈ 8K, high ≈ 24K tokens; `none` off), where
 * OpenAI's non-reasoning models and xAI's refuse the field outright, and Gemini CLI sends a
 * thinking config on every call. A level goes as it is; a budget goes to the nearest of Google's
 * three (the bounds lie between them: 4,096 and 16,384), 0 to `none`, and -1 (dynamic, the model's
 * default) to nothing.
 */
function reasoningEffort(thinking: GenerationConfig['thinkingConfig'], target: ChatTarget, drops: Drops): Obj {
  if (thinking === undefined || thinking === null) return {}
  if (!isObj(thinking)) throw invalidRequest('generationConfig.thinkingConfig: must be an object', 'generationConfig.thinkingConfig')
  for (const field of Object.keys(thinking)) {
    if (field !== 'thinkingLevel' && field !== 'thinkingBudget' && field !== 'includeThoughts') {
      drops.add({ name: `generationConfig.thinkingConfig.${field}`, reason: 'not translated to chat completions' })
    }
  }
  const { thinkingLevel: level, thinkingBudget: budget } = thinking
  if (level === undefined && budget === undefined) return {}
  if (!target.geminiLayer) {
    drops.add({
      name: 'generationConfig.thinkingConfig',
      reason:
        'chat completions has no thinking setting every provider takes (models that do not reason refuse reasoning_effort); the model thought as it does by default',
    })
    return {}
  }
  if (level !== undefined) {
    const effort = typeof level === 'string' ? level.toLowerCase() : ''
    if (LEVELS.has(effort)) return { reasoning_effort: effort }
    if (effort === 'thinking_level_unspecified') return {}
    throw invalidRequest(
      "generationConfig.thinkingConfig.thinkingLevel: Input should be 'MINIMAL', 'LOW', 'MEDIUM' or 'HIGH'",
      'generationConfig.thinkingConfig.thinkingLevel',
    )
  }
  if (typeof budget !== 'number')
    throw invalidRequest('generationConfig.thinkingConfig.thinkingBudget: must be a number', 'generationConfig.thinkingConfig.thinkingBudget')
  if (budget < 0) return {}
  return { reasoning_effort: budget === 0 ? 'none' : budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high' }
}

/** The generation config as chat's sampling, limit, stop, format and reasoning fields. */
function translateConfig(config: GenerationConfig | undefined, target: ChatTarget, drops: Drops): Obj {
  if (config === undefined) return {}
  for (const field of Object.keys(config)) {
    if (!CONFIG_TRANSLATED.has(field) && config[field] != null) {
      drops.add({ name: `generationConfig.${field}`, reason: CONFIG_DROPPED[field] ?? 'not translated to chat completions' })
    }
  }
  if (typeof config.candidateCount === 'number' && config.candidateCount > 1) {
    throw invalidRequest(
      'generationConfig.candidateCount: a provider that does not speak Gemini is asked for one candidate; send 1 (or omit it) and make several requests',
      'generationConfig.candidateCount',
    )
  }
  const stop = config.stopSequences
  if (stop !== undefined && (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string'))) {
    throw invalidRequest('generationConfig.stopSequences: must be an array of strings', 'generationConfig.stopSequences')
  }
  const number = (v: unknown, field: string) => (typeof v === 'number' ? { [field]: v } : {})
  return {
    ...limitedMaxTokens(config.maxOutputTokens, 'generationConfig.maxOutputTokens', target, drops.add),
    ...number(config.temperature, 'temperature'),
    ...number(config.topP, 'top_p'),
    ...(stop?.length ? { stop } : {}),
    ...number(config.presencePenalty, 'presence_penalty'),
    ...number(config.frequencyPenalty, 'frequency_penalty'),
    ...number(config.seed, 'seed'),
    ...responseFormat(config, drops),
    ...reasoningEffort(config.thinkingConfig, target, drops),
  }
}

/**
 * A generateContent request as a chat-completions request for a provider that does not speak
 * Gemini (`model` is the caller's; the wire sets the upstream one; `stream` is the method's, as
 * the body does not say). Everything the model reads is translated or refused with a 400 naming
 * the field; what only steers Google's API (safety settings, built-in tools, topK) is dropped and
 * listed. Thoughts are never replayed.
 */
export function geminiToChat(body: GeminiBody, model: string, target: ChatTarget = {}, stream = false): { chat: ChatBody; dropped: Dropped[] } {
  const drops = new Drops()
  for (const field of Object.keys(body)) {
    if (TRANSLATED.has(field) || body[field] === undefined || body[field] === null) continue
    if (Object.hasOwn(REFUSED, field)) throw invalidRequest(`${field}: ${REFUSED[field]}`, field)
    drops.add({ name: field, reason: DROPPED[field] ?? 'not a generateContent field the gateway translates to chat completions' })
  }
  const history = new History(drops, target)
  const system = body.systemInstruction === undefined ? '' : systemText(body.systemInstruction)
  if (system !== '') history.messages.push({ role: 'system', content: system })
  body.contents.forEach((c, i) => history.turn(c, i))
  const { tools, choice } = translateToolConfig(body.toolConfig, translateTools(body.tools, drops), drops)
  if (tools.length === 0 && body.toolConfig != null) drops.add({ name: 'toolConfig', reason: 'no tool left that the provider can call' })
  const chat: ChatBody = {
    model,
    messages: history.messages,
    ...translateConfig(body.generationConfig, target, drops),
    ...(tools.length ? { tools, ...choice } : {}),
    ...(stream ? { stream: true } : {}),
  }
  return { chat, dropped: drops.done() }
}
