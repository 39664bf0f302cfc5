/**
 * Anthropic's prompt cache, as the fake Anthropic plays it: the prompt is read as blocks in the
 * cache's order (each tool, each system block, each message's content blocks); a block marked
 * `cache_control` (or the last block, for a top-level `cache_control`) is a breakpoint. A request
 * reads the longest prefix ending at most 20 blocks before one of its breakpoints that an earlier
 * request of the same model wrote (the same blocks, markers aside), and writes the prefix up to its
 * last breakpoint past that. Each block counts one token per 4 characters of its JSON (markers
 * aside). So reads are reported only for an unchanged prefix, as Anthropic reports them.
 */
import { createHash } from 'node:crypto'

/** How far before a breakpoint Anthropic looks for a prefix it has cached. */
const LOOKBACK = 20

export interface CacheUsage {
  input_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
  cache_creation_1h_input_tokens: number
}

interface Block {
  tokens: number
  marker: { ttl?: string } | null
  text: string
}

const withoutMarker = (v: Record<string, unknown>) => JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x))
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)

function block(v: unknown): Block {
  const o = isObject(v) ? v : { text: v }
  const text = withoutMarker(o)
  return { tokens: Math.ceil(text.length / 4), marker: isObject(o.cache_control) ? (o.cache_control as { ttl?: string }) : null, text }
}

/** The prompt's blocks in the cache's order: tools, system, messages. */
function blocksOf(body: Record<string, any>): Block[] {
  const blocks: Block[] = []
  for (const tool of Array.isArray(body.tools) ? body.tools : []) blocks.push(block(tool))
  if (typeof body.system === 'string') blocks.push(block({ type: 'text', text: body.system }))
  else for (const s of Array.isArray(body.system) ? body.system : []) blocks.push(block(s))
  for (const m of body.messages as Array<{ role: string; content: unknown }>) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as unknown[])
    for (const c of content) blocks.push(block(isObject(c) ? { role: m.role, ...c } : c))
  }
  if (isObject(body.cache_control) && blocks.length > 0) blocks[blocks.length - 1].marker = body.cache_control
  return blocks
}

export class FakePromptCache {
  /** The digests of every prefix written, by model. */
  private readonly written = new Map<string, Set<string>>()

  /** What a Messages request reads and writes of the cache, and its uncached input. */
  use(body: Record<string, any>): CacheUsage {
    const blocks = blocksOf(body)
    const written = this.written.get(body.model) ?? new Set<string>()
    this.written.set(body.model, written)
    // The digest and token count of each prefix, ending after block i.
    const digests: string[] = []
    const tokens: number[] = []
    const hash = createHash('sha1')
    let sum = 0
    for (const b of blocks) {
      hash.update(b.text)
      digests.push(hash.copy().digest('hex'))
      tokens.push((sum += b.tokens))
    }
    const breakpoints = blocks.flatMap((b, i) => (b.marker ? [i] : []))
    let readEnd = -1
    for (const bp of breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - LOOKBACK); i--) {
        if (written.has(digests[i])) {
          readEnd = Math.max(readEnd, i)
          break
        }
      }
    }
    const last = breakpoints.at(-1) ?? -1
    const read = readEnd >= 0 ? tokens[readEnd] : 0
    const writeEnd = Math.max(last, readEnd)
    const write = writeEnd >= 0 ? tokens[writeEnd] - read : 0
    for (const bp of breakpoints) written.add(digests[bp])
    const oneHour = last >= 0 && blocks[last].marker?.ttl === '1h' ? write : 0
    return {
      input_tokens: sum - read - write,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: write,
      cache_creation_1h_input_tokens: oneHour,
    }
  }
}
