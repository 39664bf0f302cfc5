import type { Delivery } from '../../core/wire'
import type { NormalizedUsage } from '../../pricing/types'
import type { Chunk } from '../../providers/adapter'
import { readFirstChoice, type Choice, type ChoiceReader, type ChunkEncoder, type ToolFragment } from '../chat/chatStream'
import { anthropicId, anthropicUsage, matchedStop, stopReason, toolUseId } from './chatToMessage'

/**
 * A chat stream as Anthropic's events, in the order its SDKs rebuild a message from:
 * `message_start`; per block `content_block_start`, deltas, `content_block_stop`, blocks numbered
 * 0, 1, 2… as they open (the SDK appends each start to the content); then, once the usage is in,
 * `message_delta` (stop reason and the final counts), the `gw` event and `message_stop`. Text and
 * tool calls may alternate: the open block is closed before the next opens. A tool call opens a
 * `tool_use` block whose input arrives as `input_json_delta` fragments.
 */
export class MessagesEvents implements ChunkEncoder, ChoiceReader {
  private started = false
  private blocks = 0
  /** The open block: its index, and whether it is text (else a tool call). */
  private open: { index: number; text: boolean } | null = null
  /** The provider's tool-call index → the call's block index. */
  private readonly calls = new Map<number, number>()
  private finish: unknown = null
  private stop: string | null = null
  private done = false

  constructor(
    private readonly out: Delivery,
    private readonly opts: { model: string; stopSequences: unknown },
  ) {}

  chunk(chunk: Chunk, _asSent: string | undefined, usage: NormalizedUsage | null): void {
    if (!this.started) this.start(usage)
    if (!this.complete) readFirstChoice(chunk, this)
  }

  finished(choice: Choice): void {
    this.finish = choice.finish_reason
    this.stop = matchedStop(choice as Record<string, unknown>, this.opts.stopSequences)
    this.close()
    this.done = true
  }

  /** The usage chunk carries nothing else; the relay keeps its counts. */
  usage(): void {}

  get complete(): boolean {
    return this.done
  }

  last(gw: object, usage: NormalizedUsage | null): object[] {
    return [{ type: 'message_delta', delta: stopReason(this.finish, this.stop), usage: anthropicUsage(usage) }, { type: 'gw', gw }, { type: 'message_stop' }]
  }

  /** Anthropic ends a failed stream with its error event alone. */
  owed(): object[] {
    return []
  }

  logged(text: string): string {
    return JSON.stringify({ content: text, stop_reason: this.done ? stopReason(this.finish, this.stop).stop_reason : null })
  }

  /** Anthropic reports the prompt in message_start; a chat stream only at its end, so what is known now (often nothing). */
  private start(usage: NormalizedUsage | null): void {
    this.started = true
    this.out.firstByte()
    this.emit({
      type: 'message_start',
      message: {
        id: anthropicId('msg'),
        type: 'message',
        role: 'assistant',
        model: this.opts.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(usage),
      },
    })
  }

  text(text: string): void {
    if (!this.open?.text) this.begin({ type: 'text', text: '', citations: null }, true)
    this.emit({ type: 'content_block_delta', index: this.open!.index, delta: { type: 'text_delta', text } })
  }

  /**
   * A call's first fragment (a new index) opens its block. Providers are not known to interleave
   * the fragments of parallel calls, but nothing forbids it: a late fragment goes to its own
   * block's index, which the SDKs accumulate by, rather than being lost.
   */
  toolFragment(call: ToolFragment): void {
    const k = call.index ?? 0
    let index = this.calls.get(k)
    if (index === undefined) {
      const name = call.function?.name
      index = this.begin({ type: 'tool_use', id: toolUseId(call.id), name: typeof name === 'string' ? name : '', input: {} }, false)
      this.calls.set(k, index)
    }
    const args = call.function?.arguments
    if (typeof args === 'string' && args !== '') this.emit({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: args } })
  }

  private begin(block: object, text: boolean): number {
    this.close()
    const index = this.blocks++
    this.open = { index, text }
    this.emit({ type: 'content_block_start', index, content_block: block })
    return index
  }

  private close(): void {
    if (!this.open) return
    this.emit({ type: 'content_block_stop', index: this.open.index })
    this.open = null
  }

  private emit(event: object): void {
    this.out.sink.event(event)
  }
}
