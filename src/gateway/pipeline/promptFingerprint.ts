import { hash } from 'node:crypto'
import type { PromptFingerprint } from '../store/requestsRepo'
import type { SentText } from './estimate'

/**
 * A prompt's parts in the order a provider's cache reads them: the system prompt, each tool, each
 * message (or input item, or content). Each wire says where they are in its body.
 */
export interface PromptParts {
  system: unknown
  tools: readonly unknown[]
  messages: readonly unknown[]
  /** A marker on the request itself (Messages' top-level `cache_control`: the provider places the breakpoint). */
  marked?: boolean
}

/** Characters of base64url kept of each digest: 48 bits, enough to tell one turn's block from the previous turn's. */
const DIGEST_CHARS = 8

/**
 * A short fingerprint of a prompt's prefix: a digest of the system prompt, of each tool and of
 * each message (never their text), and how many prompt-cache markers (`cache_control`) it
 * carries. The markers are left out of the digests: Claude Code moves its last breakpoint to the
 * newest message every turn, and a block that only lost its marker is the same to the cache.
 * Made only for requests of a session (the doctor compares a session's turns), so others pay nothing.
 */
export function fingerprintPrompt(parts: PromptParts, sentText: SentText = () => null): PromptFingerprint {
  const count = { markers: parts.marked ? 1 : 0 }
  const digest = (value: unknown): string => {
    const bare = unmarked(value, count)
    // A part with no marker, as the client wrote it, where that is JSON.stringify's text of it (core/clientText.ts).
    const text = (bare === value ? sentText(value) : null) ?? JSON.stringify(bare) ?? ''
    // One-shot hashing: a Hash object a digest cost ~2 µs more, and a coding agent's turn has a hundred messages.
    return hash('sha1', text, 'base64url').slice(0, DIGEST_CHARS)
  }
  const system = parts.system === undefined || parts.system === null ? null : digest(parts.system)
  return { system, tools: parts.tools.map(digest), messages: parts.messages.map(digest), markers: count.markers }
}

/**
 * `value` without its `cache_control` keys, at any depth, each counted: copied only where a
 * marker is, `value` itself otherwise. Serialised then on JSON.stringify's fast path; a replacer
 * that dropped them instead called back into JavaScript for every key and value, 2 ms a turn of
 * Claude Code's (190 KB; bench/README.md).
 */
function unmarked(value: unknown, count: { markers: number }): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let out: unknown[] | null = null
    for (let i = 0; i < value.length; i++) {
      const item = unmarked(value[i], count)
      if (item !== value[i]) (out ??= value.slice())[i] = item
    }
    return out ?? value
  }
  const object = value as Record<string, unknown>
  let out: Record<string, unknown> | null = null
  for (const key in object) {
    if (key === 'cache_control') {
      count.markers++
      out ??= { ...object }
      delete out[key]
      continue
    }
    const field = unmarked(object[key], count)
    if (field !== object[key]) (out ??= { ...object })[key] = field
  }
  return out ?? object
}

/** An optional array field as a list (absent or not an array: none). */
export const listOf = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : [])
