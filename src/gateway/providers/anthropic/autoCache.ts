import type { Cacheable, MessagesBody } from './types'

/** Anthropic refuses a request with more. */
const MAX_BREAKPOINTS = 4

/** Every place a breakpoint can sit, in the order Anthropic builds the cached prefix: tools, system, messages. */
function slots(body: MessagesBody): Cacheable[] {
  const out: Cacheable[] = [...(body.tools ?? []), ...(body.system ?? [])]
  for (const turn of body.messages) {
    for (const block of turn.content) {
      out.push(block)
      if (block.type === 'tool_result' && Array.isArray(block.content)) out.push(...block.content)
    }
  }
  return out
}

/**
 * `gw.auto_cache`: marks the ends of the parts of the prompt that repeat from one request to the
 * next, so they are written once and then read at a tenth of the input price. In order of worth:
 * the conversation before the final user turn (a breakpoint caches everything before it, tools and
 * system included), the system prompt, the tool definitions (these two stay put when the
 * conversation changes). The caller's own breakpoints are kept and count towards the limit.
 * Nothing is added before a caller's 1-hour breakpoint: that one already caches what precedes
 * it, and Anthropic refuses a 5-minute breakpoint ahead of a 1-hour one.
 */
export function addCacheBreakpoints(body: MessagesBody): void {
  const all = slots(body)
  let budget = MAX_BREAKPOINTS - all.filter((s) => s.cache_control).length
  const lastHour = all.findLastIndex((s) => s.cache_control?.ttl === '1h')
  const finalUser = body.messages.findLastIndex((t) => t.role === 'user')
  const prefixEnd = finalUser > 0 ? body.messages[finalUser - 1].content.at(-1) : undefined
  for (const slot of [prefixEnd, body.system?.at(-1), body.tools?.at(-1)]) {
    if (budget <= 0) return
    if (!slot || slot.cache_control || all.indexOf(slot) < lastHour) continue
    slot.cache_control = { type: 'ephemeral' }
    budget--
  }
}
