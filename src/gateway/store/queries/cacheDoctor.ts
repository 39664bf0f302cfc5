import type { z } from 'zod'
import { MOVED_BECAUSE, type cacheCause, type cacheTurn, type sessionCache } from '../../../contract/sessions'
import { picoToUsdNumber, usdToPico } from '../../../contract/money'
import type { PromptFingerprint, RequestRecord, SessionMove } from '../requestsRepo'

export type SessionCache = z.output<typeof sessionCache>
type CacheTurn = z.output<typeof cacheTurn>
type CacheCause = z.output<typeof cacheCause>

/** Anthropic's cache lifetimes: 5 minutes unless written for an hour. */
const FIVE_MINUTES = 5 * 60_000
const ONE_HOUR = 60 * 60_000

/** How long what a turn cached lives from its time (a 1-hour write keeps the prefix an hour). */
const ttlOf = (t: CacheTurn) => (t.cache_write_1h_tokens > 0 ? ONE_HOUR : FIVE_MINUTES)

const count = (n: number) => n.toLocaleString('en-US')
const pico = (usd: number | null | undefined) => (usd ? usdToPico(usd) : 0n)

/** What a miss cost in tokens, as its sentence says. */
function missCost(t: CacheTurn): string {
  if (t.cache_write_tokens > 0) return `${count(t.cache_write_tokens)} tokens re-written`
  return `${count(t.prompt_tokens - t.cached_tokens)} tokens read uncached`
}

/** The first block of `now`'s prompt that differs from `before`'s, in the order a cache reads them: tools, system, messages. */
function firstDifference(before: PromptFingerprint, now: PromptFingerprint): { kind: CacheCause['kind']; index: number | null; what: string } | null {
  const tools = Math.max(before.tools.length, now.tools.length)
  for (let i = 0; i < tools; i++) {
    if (before.tools[i] === now.tools[i]) continue
    const same = before.tools.length === now.tools.length && [...before.tools].sort().join() === [...now.tools].sort().join()
    if (same) return { kind: 'tools_reordered', index: i, what: 'the tools were reordered' }
    const what = i >= before.tools.length ? `tool ${i + 1} was added` : i >= now.tools.length ? `tool ${i + 1} was removed` : `tool ${i + 1} changed`
    return { kind: 'tools', index: i, what }
  }
  if (before.system !== now.system) return { kind: 'system', index: null, what: 'the system prompt changed' }
  // The previous turn's messages are the prefix this one should repeat; what comes after them is new.
  for (let i = 0; i < before.messages.length; i++) {
    if (before.messages[i] === now.messages[i]) continue
    const what = i >= now.messages.length ? `message ${i + 1} was removed` : `message ${i + 1} changed`
    return { kind: 'message', index: i, what }
  }
  return null
}

/** Why `t` missed what `p` (the previous turn of its model) cached. */
function causeOf(p: CacheTurn, t: CacheTurn, gapMs: number, prompts: Map<string, PromptFingerprint>): CacheCause {
  const at = `at turn ${t.turn}: ${missCost(t)}`
  const cause = (kind: CacheCause['kind'], text: string, index: number | null = null): CacheCause => ({ kind, index, previous_id: p.request_id, text })
  if (gapMs > ttlOf(p)) {
    const minutes = Math.round(gapMs / 60_000)
    return cause(
      'expired',
      `the cache expired ${at} (${count(minutes)} min after turn ${p.turn}, past its ${ttlOf(p) === ONE_HOUR ? '1-hour' : '5-minute'} TTL)`,
    )
  }
  const before = prompts.get(p.request_id)
  const now = prompts.get(t.request_id)
  if (!before || !now) return cause('unknown', `the cache missed ${at}; a turn has no prompt fingerprint to compare`)
  const diff = firstDifference(before, now)
  if (diff) return cause(diff.kind, `${diff.what} ${at}`, diff.index)
  if (t.markers_dropped) return cause('markers_dropped', `the cache markers were dropped ${at}: ${t.markers_dropped}`)
  if (now.markers === 0) return cause('no_markers', `no cache_control markers were sent ${at}`)
  return cause('unexplained', `the prefix and its markers were unchanged and within the TTL, yet the cache missed ${at}`)
}

/** Money as a sentence gives it: to the cent, or to the significant digit below a cent. */
const dollars = (usd: number) => (usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`)

/** The miss of a turn routing moved: "moved from anthropic/… to mirror/… (it failed) at turn 4: 41,200 tokens re-written, $0.15". */
function moveCause(p: CacheTurn, t: CacheTurn, m: SessionMove): CacheCause {
  const price = m.cache_write_usd === null ? '' : `, ${dollars(m.cache_write_usd)}`
  const text = `moved from ${m.from} to ${m.to} (because ${MOVED_BECAUSE[m.reason]}) at turn ${t.turn}: ${missCost(t)}${t.cache_write_tokens > 0 ? price : ''}`
  return { kind: 'moved', index: null, previous_id: p.request_id, text }
}

/** A record's figures as one turn (no cause or verdict yet). */
function turnOf(r: RequestRecord, turn: number): CacheTurn {
  // A response-cache replay's usage is its first answer's: it neither read nor wrote the provider's cache.
  const u = r.response_cache?.hit ? null : r.usage
  const dropped = r.ignored.find((i) => i.name === 'cache_control')
  return {
    request_id: r.id,
    turn,
    model: r.provider && r.upstream_model ? `${r.provider}/${r.upstream_model}` : null,
    prompt_tokens: u?.prompt_tokens ?? 0,
    cached_tokens: u?.cached_tokens ?? 0,
    cache_write_tokens: u?.cache_write_tokens ?? 0,
    cache_write_1h_tokens: u?.cache_write_1h_tokens ?? 0,
    state: 'none',
    markers: r.prompt?.markers ?? null,
    markers_dropped: dropped ? dropped.reason : null,
    cause: null,
    unread_write: false,
    moved: r.moved ?? null,
  }
}

/** Whether a turn after `i` (they are in time order, so only those up to `until`) of its model read into what `i` wrote. */
function readWithin(turns: CacheTurn[], times: number[], i: number, until: number): boolean {
  const w = turns[i]
  for (let k = i + 1; k < turns.length && times[k] <= until; k++) {
    if (turns[k].model === w.model && turns[k].cached_tokens > w.cached_tokens) return true
  }
  return false
}

/**
 * The prompt-cache doctor over a session's records, oldest first, as of `now`. A turn misses when
 * the previous turn with usage on the same model had cached a prefix (read or written) and it read
 * less than that; the miss is explained by the first block of its prompt that differs from that
 * turn's, or by what else kept the cache from being read (see `cacheCause`).
 */
export function diagnoseSession(records: RequestRecord[], now: number): SessionCache {
  const turns = records.map((r, i) => turnOf(r, i + 1))
  const times = records.map((r) => Date.parse(r.created_at))
  const prompts = new Map(records.flatMap((r) => (r.prompt ? [[r.id, r.prompt] as const] : [])))
  const previous = new Map<string, number>()
  let prompt = 0
  let cached = 0
  let written = 0
  let misses = 0
  records.forEach((r, i) => {
    const t = turns[i]
    // A response-cache replay never reached the provider: its usage is the first answer's, and
    // the provider's prompt cache was neither read nor written by it.
    if (!r.usage || t.model === null || r.response_cache?.hit) return
    prompt += t.prompt_tokens
    cached += t.cached_tokens
    written += t.cache_write_tokens
    t.state = t.cached_tokens > 0 ? 'read' : t.cache_write_tokens > 0 ? 'write' : 'none'
    const pi = previous.get(t.model)
    previous.set(t.model, i)
    // A turn routing moved is compared with the last turn on where it came from: its cache is there.
    const from = r.moved ? previous.get(r.moved.from) : undefined
    if (r.moved && from !== undefined) {
      const p = turns[from]
      if (p.cached_tokens + p.cache_write_tokens === 0) return
      t.state = 'miss'
      t.cause = moveCause(p, t, r.moved)
      misses++
      return
    }
    if (pi === undefined) return
    const p = turns[pi]
    if (t.cached_tokens >= p.cached_tokens + p.cache_write_tokens || p.cached_tokens + p.cache_write_tokens === 0) return
    t.state = 'miss'
    t.cause = causeOf(p, t, times[i] - times[pi], prompts)
    misses++
  })
  let saved = 0n
  let writeCost = 0n
  let wasted = 0n
  let wastedTokens = 0
  records.forEach((r, i) => {
    const t = turns[i]
    saved += pico(r.cost?.cache_savings_usd)
    writeCost += pico(r.cost?.cache_write_usd)
    if (t.cache_write_tokens === 0) return
    const until = times[i] + ttlOf(t)
    if (until >= now) return
    if (readWithin(turns, times, i, until)) return
    t.unread_write = true
    wasted += pico(r.cost?.cache_write_usd)
    wastedTokens += t.cache_write_tokens
  })
  return {
    verdict: misses > 0 ? 'missing' : cached + written === 0 ? 'unused' : 'healthy',
    prompt_tokens: prompt,
    cached_tokens: cached,
    cache_write_tokens: written,
    hit_rate: prompt > 0 ? cached / prompt : null,
    saved_usd: picoToUsdNumber(saved),
    written_usd: picoToUsdNumber(writeCost),
    wasted_usd: picoToUsdNumber(wasted),
    wasted_tokens: wastedTokens,
    misses,
    turns,
  }
}
