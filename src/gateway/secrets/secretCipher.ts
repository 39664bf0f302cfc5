import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { SealedSecret } from '../store/providerSecretsRepo'
import { SECRET_KEY_VAR, type SecretKey } from './secretKey'
import { UnreadableSecret } from './secretStore'

const ALGORITHM = 'aes-256-gcm'
/** GCM's standard nonce: 96 random bits, fresh for every encryption. */
const NONCE_BYTES = 12
/** The full 128-bit tag; a shorter one is refused rather than checked on fewer bits. */
const TAG_BYTES = 16

/**
 * The additional data every provider key is sealed with: its provider's id (a row copied to
 * another provider does not open there), under a label of its own (nothing else sealed under the
 * same key passes for a provider key).
 */
const additionalData = (providerId: string) => Buffer.from(`gw provider key\0${providerId}`, 'utf8')

/** Encrypts a provider's key under `key`, with a fresh nonce. */
export function sealSecret(key: SecretKey, providerId: string, secret: string): SealedSecret {
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv(ALGORITHM, key.bytes, nonce, { authTagLength: TAG_BYTES })
  cipher.setAAD(additionalData(providerId))
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return { key_id: key.id, nonce: nonce.toString('base64'), ciphertext: ciphertext.toString('base64'), tag: cipher.getAuthTag().toString('base64') }
}

/**
 * The provider's key, decrypted and authenticated; an UnreadableSecret when `key` is not the one
 * it was sealed under, or the row was altered or belongs to another provider.
 */
export function openSecret(key: SecretKey, providerId: string, sealed: SealedSecret): string {
  if (sealed.key_id !== key.id) {
    throw new UnreadableSecret(`provider ${providerId}'s key was encrypted under key id ${sealed.key_id}, ${SECRET_KEY_VAR} has key id ${key.id}`)
  }
  const nonce = Buffer.from(sealed.nonce, 'base64')
  const tag = Buffer.from(sealed.tag, 'base64')
  try {
    if (nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed')
    const decipher = createDecipheriv(ALGORITHM, key.bytes, nonce, { authTagLength: TAG_BYTES })
    decipher.setAAD(additionalData(providerId))
    decipher.setAuthTag(tag)
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8')
  } catch {
    // node:crypto says only "Unsupported state or unable to authenticate data": this says what that means here.
    throw new UnreadableSecret(
      `provider ${providerId}'s key does not decrypt under ${SECRET_KEY_VAR} (key id ${key.id}) although it names that key: its row was altered, or copied from another provider`,
    )
  }
}
