import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

export const KEY_PREFIX = 'gw-'
/** 32 random bytes as base64url: 43 URL-safe characters after the prefix. */
const SECRET_BYTES = 32
/** The first characters after the prefix are public (shown in the dashboard) and used to find the stored hash. */
const LOOKUP_LENGTH = 8
const KEY_PATTERN = /^gw-[A-Za-z0-9_-]{40,}$/

export interface NewKey {
  secret: string
  lookup: string
  hash: string
  last4: string
}

export function generateKey(): NewKey {
  const secret = KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url')
  return { secret, lookup: keyLookup(secret), hash: hashKey(secret), last4: secret.slice(-4) }
}

export const isWellFormedKey = (candidate: string) => KEY_PATTERN.test(candidate)

export const keyLookup = (secret: string) => secret.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_LENGTH)

/**
 * Keys (and dashboard session tokens, hashed the same way) carry 256 bits of randomness, so a
 * fast hash is enough: there is nothing to brute-force and a slow KDF would cost every request. `hash()` is the one-shot form: no Hash object per
 * request (0.2 instead of 0.6 µs).
 */
export const hashKey = (secret: string) => hash('sha256', secret, 'hex')

/** Compares hex digests without leaking, through timing, how many leading characters matched. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && timingSafeEqual(x, y)
}

/** What the dashboard and CLI show instead of the secret. */
export const maskKey = (lookup: string, last4: string) => `${KEY_PREFIX}${lookup}…${last4}`
