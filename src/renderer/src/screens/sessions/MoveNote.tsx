import { MOVED_BECAUSE } from '../../../../contract/sessions'
import type { Output } from '../../../../contract'
import { int, usd } from '../../lib/format'

export type Move = NonNullable<Output<'sessions.get'>['cache']['turns'][number]['moved']>

/** A session's move in words: "Moved from anthropic/… to mirror/… because it failed: 41,200 tokens of cache re-written ($0.15)". */
export function MoveNote({ m }: { m: Move }) {
  const cost = m.cache_write_tokens
    ? `: ${int(m.cache_write_tokens)} tokens of cache re-written${m.cache_write_usd === null ? '' : ` (${usd(m.cache_write_usd)})`}`
    : ''
  return (
    <>
      Moved from <code>{m.from}</code> to <code>{m.to}</code> because {MOVED_BECAUSE[m.reason]}
      {cost}
    </>
  )
}
