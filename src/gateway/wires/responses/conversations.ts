import { ApiError, invalidRequest, notFound } from '../../errors'
import type { RequestContext } from '../../pipeline/requestContext'
import type { Target } from '../../pipeline/resolveModel'
import type { RecordSink } from '../../store/store'
import type { RequestsRepo } from '../../store/requestsRepo'
import type { ResponsesRepo } from '../../store/responsesRepo'
import { isObj, without } from '../../jsonObject'
import { responsesId, type KeptResponse } from './chatToResponse'
import type { ResponsesBody } from './responsesBody'

type Obj = Record<string, unknown>

const DAY_MS = 86_400_000

/** What a Responses request refers to outside itself, looked up for its key. */
export interface Conversation {
  /** The request it was resolved for: its key, its id and its time (what an answer is kept under). */
  readonly keyId: string
  readonly requestId: string
  readonly at: number
  /** `previous_response_id` when the gateway keeps that response. */
  previous: string | null
  /** `previous_response_id` when a provider keeps it (a native answer): the provider that made it. */
  upstream: { id: string; provider: string } | null
  /** The earlier turns the gateway keeps, oldest first. */
  context: Obj[]
  /** The request's input as items, each `item_reference` to a kept item replaced by the item. */
  input: Obj[]
  /** The items that came from the gateway's store (context and references): their ids are the gateway's, not a provider's. */
  fromStore: Set<Obj>
}

/** The narrow things the store of conversations reads. */
export interface ConversationDeps {
  responses: ResponsesRepo
  requests: Pick<RequestsRepo, 'madeUpstream'>
  records: Pick<RecordSink, 'flushed'>
  /** Days a response is kept; 0 keeps none. */
  retentionDays(): number
}

/** Why a reference finds nothing: the same words whatever the cause, so no other key's id can be told apart. */
const KEPT_WHERE =
  'Responses are kept only for the key that made them, for the retention the gateway is set to, and never when the request said `store: false`.'

/** OpenAI's answer to an unknown `previous_response_id` (a 400 with its code, which clients test for). */
export const previousNotFound = (id: string) =>
  new ApiError(
    400,
    'invalid_request_error',
    `Previous response with id '${id}' not found. ${KEPT_WHERE}`,
    'previous_response_not_found',
    'previous_response_id',
  )

/** OpenAI's answer to an unknown response id on `GET`, `DELETE` and `input_items`. */
export const responseNotFound = (id: string) => notFound(`Response with id '${id}' not found. ${KEPT_WHERE}`)

/** OpenAI's answer to an `item_reference` nobody keeps. */
export const itemNotFound = (id: string, param: string) => notFound(`Item with id '${id}' not found. ${KEPT_WHERE}`, param)

const ID_PREFIX: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  custom_tool_call: 'ctc',
  function_call_output: 'fco',
  custom_tool_call_output: 'ctco',
}

/** An input item as it is kept and listed: typed, with an id, a message's text as content parts. */
function keptItem(item: Obj): Obj {
  const type = typeof item.type === 'string' ? item.type : 'message'
  const out: Obj = { ...item, type }
  if (type === 'message' && typeof item.content === 'string') {
    out.content = [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }]
  }
  if (typeof out.id !== 'string' || out.id === '') out.id = responsesId(ID_PREFIX[type] ?? 'item')
  return out
}

/** The request's input as items (a string is one user message). */
const inputItems = (body: ResponsesBody): Obj[] =>
  typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as Obj[]) : []

/**
 * The Responses API's state for the answers the gateway makes itself (on a translated path): the
 * provider keeps none of it, so the gateway does, per key. `resolve` reads what a request refers
 * to (the request's call holds it); `keep` stores an answer; the routes read and delete.
 */
export class Conversations {
  constructor(private readonly deps: ConversationDeps) {}

  /**
   * What the request continues and refers to, for its key and time. An unknown, expired or
   * other key's `previous_response_id` is refused here; an `item_reference` the gateway does not
   * keep stays, for a provider that keeps its own (a translated path refuses it).
   */
  async resolve(ctx: RequestContext, body: ResponsesBody): Promise<Conversation> {
    const now = ctx.startedAt.getTime()
    const keyId = ctx.key.id
    const conv: Conversation = { keyId, requestId: ctx.id, at: now, previous: null, upstream: null, context: [], input: [], fromStore: new Set() }
    const prev = body.previous_response_id
    if (prev !== undefined && prev !== null) {
      if (typeof prev !== 'string' || prev === '') {
        throw invalidRequest("Invalid type for 'previous_response_id': expected a response id.", 'previous_response_id', 'invalid_type')
      }
      const context = await this.deps.responses.conversation(prev, keyId, now)
      if (context) {
        conv.previous = prev
        conv.context = context
        for (const item of context) conv.fromStore.add(item)
      } else {
        const made = await this.madeUpstream(prev)
        if (!made || made.key_id !== keyId) throw previousNotFound(prev)
        conv.upstream = { id: prev, provider: made.provider }
      }
    }
    for (const item of inputItems(body)) {
      if (!isObj(item) || item.type !== 'item_reference' || typeof item.id !== 'string') {
        conv.input.push(item as Obj)
        continue
      }
      const kept = await this.deps.responses.item(item.id, keyId, now)
      if (kept) conv.fromStore.add(kept)
      conv.input.push(kept ?? item)
    }
    return conv
  }

  /** Who made a provider-kept response, and where; a record still queued is waited for once. */
  async madeUpstream(id: string): Promise<{ provider: string; key_id: string } | undefined> {
    const made = await this.deps.requests.madeUpstream(id)
    if (made) return made
    await this.deps.records.flushed()
    return this.deps.requests.madeUpstream(id)
  }

  /**
   * The body a provider receives. A translated path gets the whole conversation as input; a
   * provider serving Responses gets the body as sent when the gateway resolved nothing, and else
   * the conversation with the gateway's ids left out (they mean nothing to it). A response the
   * provider keeps can be continued only on a route to that provider.
   */
  bodyFor(conv: Conversation, body: ResponsesBody, target: Target, native: boolean): ResponsesBody {
    if (conv.upstream && (!native || conv.upstream.provider !== target.provider.id)) {
      throw invalidRequest(
        `previous_response_id '${conv.upstream.id}' is a response ${conv.upstream.provider} keeps; it can be continued only on a route to ${conv.upstream.provider}, not ${target.provider.id}. Send the conversation in input instead.`,
        'previous_response_id',
        'unsupported_parameter',
      )
    }
    if (native && conv.fromStore.size === 0) return body
    const items = [...conv.context, ...conv.input]
    const out = without(body, 'previous_response_id')
    out.input = native ? items.map((item) => (conv.fromStore.has(item) ? without(item, 'id') : item)) : items
    if (native && conv.upstream) out.previous_response_id = conv.upstream.id
    return out as ResponsesBody
  }

  /** Whether an answer to this body is kept: not when it said `store: false`, nor when the retention is 0. */
  keeps(body: ResponsesBody): boolean {
    return body.store !== false && this.deps.retentionDays() > 0
  }

  /** Keeps a translated answer with the input it answered (each item with an id) under the caller's key. */
  keep(conv: Conversation, response: KeptResponse): Promise<void> {
    const now = conv.at
    return this.deps.responses.save({
      id: response.id,
      key_id: conv.keyId,
      request_id: conv.requestId,
      previous_response_id: conv.previous,
      created_at: now,
      expires_at: now + this.deps.retentionDays() * DAY_MS,
      response,
      input: conv.input.map((item) => (conv.fromStore.has(item) ? item : keptItem(item))),
    })
  }
}
