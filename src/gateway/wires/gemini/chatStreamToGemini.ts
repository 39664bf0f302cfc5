import type { Delivery } from '../../core/wire'
import type { GwBlock } from '../../pipeline/cost'
import type { NormalizedUsage } from '../../pricing/types'
import type { Chunk } from '../../providers/adapter'
import { readFirstChoice, type Choice, type ChoiceReader, type ChunkEncoder, type ToolFragment } from '../chat/chatStream'
import { toolInput } from '../translatedAnswer'
import type { GeminiPart } from './geminiBody'
import { badArguments, finishReason, functionCallPart, geminiResponse, reasoningOf, responseIdOf, type GeminiShape } from './chatToGemini'
import { thoughtSignatureOf } from '../../providers/openai/thoughtSignatures'

type Obj = Record<string, unknown>

/** A tool call being gathered from its fragments, until it goes out whole. */
interface Call {
  id: unknown
  name: unknown
  args: string
  signature?: string
  sent: boolean
}

/**
 * A chat stream as streamGenerateContent's chunks, each a GenerateContentResponse: a chat chunk
 * with text (thoughts too, where the caller asked for them) or a finished tool call becomes one
 * chunk of those parts. Google streams function calls whole, and clients read each functionCall
 * part as a complete call, so a call's fragments are gathered and it goes out in the chunk where
 * its arguments became a whole JSON object, or at the finish for one whose arguments never do
 * (none at all, or not an object: `{}`, named for the record). Once the usage is in, the last
 * chunk carries the finish reason, the usage and the `gw` block. Empty text never goes out:
 * Gemini CLI discards a chunk holding an empty text part, with whatever else it held.
 */
export class GeminiEvents implements ChunkEncoder, ChoiceReader {
  private started = false
  private responseId: string | null = null
  /** The parts of the chat chunk being read, sent as one chunk when it is read. */
  private parts: GeminiPart[] = []
  /** The provider's tool-call index → the call. */
  private readonly calls = new Map<number, Call>()
  private finish: unknown = null
  private done = false

  constructor(
    private readonly out: Delivery,
    private readonly shape: GeminiShape,
  ) {}

  chunk(chunk: Chunk): void {
    if (this.done) return
    this.responseId ??= responseIdOf(chunk.id)
    if (this.shape.includeThoughts) {
      const thought = reasoningOf(chunk.choices?.find((c) => (c.index ?? 0) === 0)?.delta as Obj | undefined)
      if (thought) this.parts.push({ thought: true, text: thought })
    }
    readFirstChoice(chunk, this)
    if (!this.parts.length) return
    if (!this.started) {
      this.started = true
      this.out.firstByte()
    }
    this.out.sink.event(geminiResponse(this.parts, this.shape, this.responseId))
    this.parts = []
  }

  text(text: string): void {
    this.parts.push({ text })
  }

  toolFragment(fragment: ToolFragment): void {
    const k = fragment.index ?? 0
    let call = this.calls.get(k)
    if (call === undefined) {
      call = { id: fragment.id, name: fragment.function?.name, args: '', sent: false }
      this.calls.set(k, call)
    }
    const args = fragment.function?.arguments
    if (typeof args === 'string') call.args += args
    const signature = thoughtSignatureOf(fragment as Obj)
    if (signature !== undefined) call.signature = signature
    // An object is whole only once it ends in `}`: only then is it worth parsing (a long argument
    // comes in many fragments, and parsing each prefix would be quadratic).
    if (call.sent || !call.args.trimEnd().endsWith('}')) return
    const input = toolInput(call.args)
    if (input !== null) this.send(call, input)
  }

  /** The calls still gathering go out now, as far as they got. */
  finished(choice: Choice): void {
    this.finish = choice.finish_reason
    for (const [k, call] of this.calls) {
      if (call.sent) continue
      const input = toolInput(call.args)
      if (input === null) this.out.ignore(badArguments(k, this.out.target.provider.id))
      this.send(call, input ?? {})
    }
    this.done = true
  }

  private send(call: Call, args: Obj): void {
    call.sent = true
    this.parts.push(functionCallPart({ id: call.id, name: call.name, args, signature: call.signature }))
  }

  /** The usage chunk carries nothing else; the relay keeps its counts. */
  usage(): void {}

  get complete(): boolean {
    return this.done
  }

  last(gw: GwBlock, usage: NormalizedUsage | null): object[] {
    return [{ ...geminiResponse([], this.shape, this.responseId ?? responseIdOf(null), { finish: this.finish, usage }), gw }]
  }

  /** Google ends a failed stream with its error alone. */
  owed(): object[] {
    return []
  }

  logged(text: string): string {
    return JSON.stringify({ content: text, finishReason: this.done ? finishReason(this.finish) : null })
  }
}
