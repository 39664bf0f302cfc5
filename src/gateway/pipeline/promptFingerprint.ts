import { createHash } from 'node:crypto'
import type { PromptFingerprint } from '../store/requestsRepo'

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
export function fingerprintPrompt(parts: PromptParts): PromptFingerprint {
  let markers = parts.marked ? 1 : 0
  const digest = (value: unknown): string => {
    const text = JSON.stringify(value, (name, v: unknown) => {
      if (name !== 'cache_control') return v
      markers++
      return undefined
    })
    return createHash('sha1')
      .update(text ?? '')
      .digest('base64url')
      .slice(0, DIGEST_CHARS)
  }
  const system = parts.system === undefined || parts.system === null ? null : digest(parts.system)
  return { system, tools: parts.tools.map(digest), messages: parts.messages.map(digest), markers }
}

/** An optional array field as a list (absent or not an array: none). */
export const listOf = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : [])
