import { playgroundWire, type PlaygroundRequest, type PlaygroundWire } from '../../../../contract/playground'
import type { Input, Output } from '../../../../contract'
import { numOrUndef } from '../../lib/format'
import type { Errors } from '../../lib/useForm'
import { WIRES } from './wires'

export type Role = 'user' | 'assistant'
export interface Msg {
  role: Role
  content: string
}
type Message = PlaygroundRequest['messages'][number]
type Model = Output<'models.list'>[number]

/** The Setup section's fields, named as the request's so a check's error finds its field (a type, as useFields wants text fields only). */
export type RequestFields = {
  key_id: string
  model: string
  wire: PlaygroundWire
  system: string
  temperature: string
  top_p: string
  max_tokens: string
}

/** An empty form, with what a link into the Playground chose (`#/playground?key=…&model=…&wire=…`). */
export const fieldsFrom = (query: URLSearchParams): RequestFields => ({
  key_id: query.get('key') ?? '',
  model: query.get('model') ?? '',
  wire: playgroundWire.catch('chat').parse(query.get('wire')),
  system: '',
  temperature: '',
  top_p: '',
  max_tokens: '',
})

export type Params = Pick<PlaygroundRequest, 'temperature' | 'top_p' | 'max_tokens'>

export const paramsOf = (f: RequestFields): Params => ({
  temperature: numOrUndef(f.temperature),
  top_p: numOrUndef(f.top_p),
  max_tokens: numOrUndef(f.max_tokens),
})

/** Until the user chooses: an available gpt-4o-mini, else any available chat model, else the first. */
export const preferredModel = (chatModels: Model[]): Model | undefined =>
  chatModels.find((m) => m.id === 'openai/gpt-4o-mini' && m.availability.available) ?? chatModels.find((m) => m.availability.available) ?? chatModels[0]

/** The system message (when there is one), the conversation so far, and `extra`. */
export const conversationOf = (system: string, messages: Msg[], extra: Msg[] = []): Message[] => [
  ...(system.trim() ? [{ role: 'system' as const, content: system }] : []),
  ...messages,
  ...extra,
]

/** What is wrong with the request before it is sent, by field. */
export function checkRequest(params: Params, wire: PlaygroundWire, keyId: string, model: string): Errors {
  const e: Errors = {}
  const t = params.temperature
  const maxT = WIRES[wire].maxTemperature
  if (t !== undefined && (Number.isNaN(t) || t < 0 || t > maxT)) e.temperature = `must be between 0 and ${maxT}`
  const p = params.top_p
  if (p !== undefined && (Number.isNaN(p) || p < 0 || p > 1)) e.top_p = 'must be between 0 and 1'
  const m = params.max_tokens
  if (m !== undefined && (!Number.isInteger(m) || m <= 0)) e.max_tokens = 'must be a positive whole number'
  if (!keyId) e.key_id = 'choose a key'
  if (!model) e.model = 'choose a model or preset'
  return e
}

/** The Playground's call: the parameters left empty are not sent. */
export const chatInput = (keyId: string, wire: PlaygroundWire, model: string, messages: Message[], params: Params): Input<'playground.chat'> => ({
  key_id: keyId,
  wire,
  model,
  messages,
  ...(params.temperature !== undefined && { temperature: params.temperature }),
  ...(params.top_p !== undefined && { top_p: params.top_p }),
  ...(params.max_tokens !== undefined && { max_tokens: params.max_tokens }),
})
