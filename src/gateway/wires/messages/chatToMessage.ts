import { randomText } from '../../randomText'
import type { NormalizedUsage } from '../../pricing/types'
import { answerText, toolCallsOf } from '../translatedAnswer'
import { isObj } from '../../jsonObject'

type Obj = Record<string, unknown>

/** Ids shaped as Anthropic's (`msg_…`, `toolu_…`), for what the provider did not name. */
export const anthropicId = (prefix: 'msg' | 'toolu') => `${prefix}_${randomText(18, 'base64url')}`

/** A tool call's id as the tool_use id (the client sends it back in its tool_result); one made up if the provider gave none. */
export const toolUseId = (id: unknown): string => (typeof id === 'string' && id !== '' ? id : anthropicId('toolu'))

/**
 * OpenAI finish reasons as Anthropic stop reasons. A filtered answer is Anthropic's refusal; the
 * legacy function_call is a tool call; anything a provider invents ended the turn.
 */
const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
}

/**
 * The stop sequence that ended the answer, where the provider tells: OpenAI does not, vLLM and
 * servers built on it put the matched string in the choice's `stop_reason`.
 */
export function matchedStop(choice: Obj | undefined, stopSequences: unknown): string | null {
  const said = choice?.stop_reason
  return typeof said === 'string' && Array.isArray(stopSequences) && stopSequences.includes(said) ? said : null
}

export function stopReason(finish: unknown, matched: string | null): { stop_reason: string; stop_sequence: string | null } {
  if (finish === 'stop' && matched !== null) return { stop_reason: 'stop_sequence', stop_sequence: matched }
  const reason = typeof finish === 'string' && Object.hasOwn(STOP_REASONS, finish) ? STOP_REASONS[finish] : 'end_turn'
  return { stop_reason: reason, stop_sequence: null }
}

/**
 * Usage in Anthropic's convention: `input_tokens` excludes cache reads and writes, which OpenAI's
 * `prompt_tokens` includes. Nothing reported reads as zero, as Anthropic's SDKs need numbers.
 */
export function anthropicUsage(u: NormalizedUsage | null) {
  if (!u) return { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 }
  return {
    input_tokens: Math.max(0, u.prompt_tokens - u.cached_tokens - u.cache_write_tokens),
    cache_creation_input_tokens: u.cache_write_tokens,
    cache_read_input_tokens: u.cached_tokens,
    output_tokens: u.completion_tokens,
  }
}

/**
 * An OpenAI chat completion (as the adapter repaired it) as an Anthropic message. `model` is the
 * one the client asked for. A tool call whose arguments are not a JSON object gets `{}` as input,
 * so the client's tool sees missing parameters and the model can try again rather than the whole
 * turn failing; its index is returned for the record.
 */
export function chatToMessage(
  completion: Obj,
  usage: NormalizedUsage | null,
  opts: { model: string; stopSequences: unknown },
): { message: Obj; badArguments: number[] } {
  const choice = (Array.isArray(completion.choices) ? completion.choices[0] : undefined) as Obj | undefined
  const m = isObj(choice?.message) ? choice.message : {}
  const content: Obj[] = []
  const text = answerText(m)
  if (text) content.push({ type: 'text', text, citations: null })
  const badArguments: number[] = []
  toolCallsOf(m).forEach(({ call, name, input }, i) => {
    if (input === null) badArguments.push(i)
    content.push({ type: 'tool_use', id: toolUseId(call.id), name, input: input ?? {} })
  })
  const message = {
    id: anthropicId('msg'),
    type: 'message',
    role: 'assistant',
    model: opts.model,
    content,
    ...stopReason(choice?.finish_reason, matchedStop(choice, opts.stopSequences)),
    usage: anthropicUsage(usage),
  }
  return { message, badArguments }
}
