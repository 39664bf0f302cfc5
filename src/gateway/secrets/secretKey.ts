import { createHash } from 'node:crypto'

/** The environment variable that holds the key provider keys are encrypted under on a PostgreSQL store. */
export const SECRET_KEY_VAR = 'GW_SECRET_KEY'

const KEY_BYTES = 32

/** An AES-256 key for provider keys kept in a store, and the id that names it without revealing it. */
export interface SecretKey {
  /**
   * The first 8 bytes of the key's SHA-256, hex. Kept beside each row it encrypted, so a gateway
   * with another key says which key a row needs instead of failing to decrypt it.
   */
  readonly id: string
  readonly bytes: Buffer
}

/**
 * What is wrong with a key as written (base64 of 32 random bytes), or null when nothing is. Says
 * how it is wrong, never what it is: the text may be a real key with a typo.
 */
export function secretKeyProblem(text: string): string | null {
  const trimmed = text.trim()
  const what = 'must be 32 random bytes in base64 (`openssl rand -base64 32` makes one)'
  if (trimmed === '') return `${what}; it is empty`
  const bytes = Buffer.from(trimmed, 'base64')
  // Buffer.from skips what is not base64 rather than refusing it: a text that does not come back
  // the same from its bytes was not (only) base64.
  if (bytes.toString('base64') !== trimmed) return `${what}; it is not base64`
  if (bytes.length !== KEY_BYTES) return `${what}; it decodes to ${bytes.length} bytes`
  return null
}

/** The key a text holds; throws (saying how it is wrong, under `name`) when it holds none. */
export function parseSecretKey(text: string, name: string): SecretKey {
  const problem = secretKeyProblem(text)
  if (problem) throw new Error(`${name} ${problem}`)
  const bytes = Buffer.from(text.trim(), 'base64')
  return { id: createHash('sha256').update(bytes).digest().subarray(0, 8).toString('hex'), bytes }
}

/** GW_SECRET_KEY from the environment: null when unset, an error naming the variable when malformed. */
export function secretKeyFromEnv(env: NodeJS.ProcessEnv): SecretKey | null {
  const value = env[SECRET_KEY_VAR]
  return value === undefined || value === '' ? null : parseSecretKey(value, SECRET_KEY_VAR)
}
