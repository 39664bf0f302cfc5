import type { Delivery } from '../../core/wire'
import type { ApiError } from '../../errors'
import type { NormalizedUsage } from '../../pricing/types'
import type { Chunk } from '../../providers/adapter'
import { readFirstChoice, type Choice, type ChoiceReader, type ChunkEncoder, type ToolFragment } from '../chat/chatStream'
import { callIdOf, callItem, ending, messageItem, responseObject, responsesId, responsesUsage, type KeptResponse, type ResponseShape } from './chatToResponse'

type Obj = Record<string, unknown>

/** One output item being written: the answer's text, or a tool call (its chat name and arguments so far). */
type Item = { index: number; id: string; text: string } | { index: number; id: string; call: { name: string; callId: string; args: string; custom: boolean } }

/**
 * A chat stream as the Responses API's events, in the order its SDKs rebuild a response from:
 * `response.created` and `response.in_progress`; per output item `response.output_item.added`,
 * its deltas and `response.output_item.done`, items numbered 0, 1, 2… as they open; then, once the
 * usage is in, `response.completed` (or `response.incomplete`) carrying the whole response, its
 * usage and `gw`. Every event has its `sequence_number`. Text goes in a message item
 * (`content_part.added`, `output_text.delta`/`.done`, `content_part.done`); a function call's
 * arguments stream as `function_call_arguments.delta`; a custom tool's input, which the model
 * writes inside a JSON object, goes out whole when the call ends.
 */
export class ResponsesEvents implements ChunkEncoder, ChoiceReader {
  private seq = 0
  private started = false
  private readonly id = responsesId('resp')
  private readonly output: Obj[] = []
  private open: Item | null = null
  /** The provider's tool-call index → its item. */
  private readonly calls = new Map<number, Item>()
  private finish: unknown = null
  private done = false

  constructor(
    private readonly out: Delivery,
    private readonly shape: ResponseShape,
  ) {}

  chunk(chunk: Chunk): void {
    if (!this.started) this.start()
    if (!this.complete) readFirstChoice(chunk, this)
  }

  finished(choice: Choice): void {
    this.finish = choice.finish_reason
    this.close()
    this.done = true
  }

  /** The usage chunk carries nothing else; the relay keeps its counts. */
  usage(): void {}

  get complete(): boolean {
    return this.done
  }

  last(gw: object, usage: NormalizedUsage | null): object[] {
    const end = ending(this.finish)
    const finished = this.response(end.status, end.incomplete_details, responsesUsage(usage))
    this.shape.keep?.(finished as KeptResponse)
    const response = { ...finished, gw }
    return [this.numbered({ type: end.status === 'completed' ? 'response.completed' : 'response.incomplete', response })]
  }

  /** Nothing is held back. */
  owed(): object[] {
    return []
  }

  /**
   * A stream that failed after it began ends as the API ends a failed response: `response.failed`
   * with the output so far and the error (the SDKs' stream helpers return it as the final response,
   * Codex retries on it). Its usage is the record's, estimated. Before `response.created`, the
   * `error` event.
   */
  failed(error: ApiError): object[] | null {
    if (!this.started) return null
    // The item being written when it broke off, as far as it got.
    if (this.open) this.output[this.open.index] = this.itemOf(this.open, 'incomplete')
    const response = { ...this.response('failed', null, null), error: { code: error.code ?? error.type, message: error.message } }
    return [this.numbered({ type: 'response.failed', response })]
  }

  logged(text: string): string {
    return JSON.stringify({ content: text, status: this.done ? ending(this.finish).status : null })
  }

  private response(status: string, incomplete_details: unknown, usage: unknown): Obj {
    // A copy: a sink may keep the events it was given while the output grows.
    return responseObject(this.shape, this.id, this.shape.createdAt, { status, incomplete_details, output: [...this.output], usage })
  }

  private start(): void {
    this.started = true
    this.out.firstByte()
    const response = this.response('in_progress', null, null)
    this.emit({ type: 'response.created', response })
    this.emit({ type: 'response.in_progress', response })
  }

  text(delta: string): void {
    if (!this.open || !('text' in this.open)) {
      const item = { index: this.begin(), id: responsesId('msg'), text: '' }
      this.open = item
      this.emit({
        type: 'response.output_item.added',
        output_index: item.index,
        item: { id: item.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      })
      this.emit({
        type: 'response.content_part.added',
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      })
    }
    const item = this.open as Extract<Item, { text: string }>
    item.text += delta
    this.emit({ type: 'response.output_text.delta', item_id: item.id, output_index: item.index, content_index: 0, delta, logprobs: [] })
  }

  /**
   * A call's first fragment (a new index) opens its item. Providers are not known to interleave
   * the fragments of parallel calls, but nothing forbids it: a late fragment goes to its own
   * item's arguments, which the SDKs accumulate by output index, rather than being lost.
   */
  toolFragment(fragment: ToolFragment): void {
    const k = fragment.index ?? 0
    let item = this.calls.get(k)
    if (item === undefined) {
      const name = typeof fragment.function?.name === 'string' ? fragment.function.name : ''
      const call = { name, callId: callIdOf(fragment.id), args: '', custom: this.shape.names.called(name).custom }
      const opened: Item = { index: this.begin(), id: '', call }
      const added = callItem(this.shape.names, name, call.callId, '', 'in_progress')
      opened.id = added.id as string
      if (added.type === 'function_call') added.arguments = ''
      this.calls.set(k, opened)
      this.open = item = opened
      this.emit({ type: 'response.output_item.added', output_index: opened.index, item: added })
    }
    const args = fragment.function?.arguments
    if (typeof args !== 'string' || args === '' || !('call' in item)) return
    item.call.args += args
    if (!item.call.custom) this.emit({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: item.index, delta: args })
  }

  /** Closes the open item and numbers the next, keeping its place in the output. */
  private begin(): number {
    this.close()
    this.output.push({})
    return this.output.length - 1
  }

  /** An item as the output holds it. */
  private itemOf(item: Item, status: string): Obj {
    if ('text' in item) return messageItem(item.id, item.text, status)
    return { ...callItem(this.shape.names, item.call.name, item.call.callId, item.call.args, status), id: item.id }
  }

  private close(): void {
    const item = this.open
    if (!item) return
    this.open = null
    const done = this.itemOf(item, 'text' in item && ending(this.finish).status !== 'completed' ? 'incomplete' : 'completed')
    const at = { item_id: item.id, output_index: item.index }
    if ('text' in item) {
      const part = { type: 'output_text', text: item.text, annotations: [], logprobs: [] }
      this.emit({ type: 'response.output_text.done', ...at, content_index: 0, text: item.text, logprobs: [] })
      this.emit({ type: 'response.content_part.done', ...at, content_index: 0, part })
    } else if (item.call.custom) {
      this.emit({ type: 'response.custom_tool_call_input.delta', ...at, delta: done.input })
      this.emit({ type: 'response.custom_tool_call_input.done', ...at, input: done.input })
    } else {
      this.emit({ type: 'response.function_call_arguments.done', ...at, name: done.name, arguments: done.arguments })
    }
    this.output[item.index] = done
    this.emit({ type: 'response.output_item.done', output_index: item.index, item: done })
  }

  private numbered(event: Obj): Obj {
    return { ...event, sequence_number: this.seq++ }
  }

  private emit(event: Obj): void {
    this.out.sink.event(this.numbered(event))
  }
}
