import { invalidApiKey } from '../errors'
import { hashKey, hashesEqual, isWellFormedKey, keyLookup, maskKey } from '../keys/inferenceKey'
import type { KeyRow } from '../store/keysRepo'
import { parseKey, type Key } from './keyRules'

function notRevoked(row: Key): Key {
  if (row.revoked_at !== null) {
    throw invalidApiKey(`The API key ${maskKey(row.lookup, row.last4)} was revoked on ${new Date(row.revoked_at).toISOString()}.`)
  }
  return row
}

/** Keys indexed in memory by their public lookup prefix, each parsed as it is loaded; the secret part is checked in constant time. */
export class KeyIndex {
  private byLookup = new Map<string, Key[]>()
  private byId = new Map<string, Key>()

  reload(rows: KeyRow[]): void {
    const keys = rows.map(parseKey)
    const next = new Map<string, Key[]>()
    for (const key of keys) next.set(key.lookup, [...(next.get(key.lookup) ?? []), key])
    this.byLookup = next
    this.byId = new Map(keys.map((k) => [k.id, k]))
  }

  /**
   * The Playground's way in: the dashboard already proved who the user is and that the key is
   * theirs, so the key is named by id; a revoked key is refused like any other.
   */
  authenticateById(id: string): Key {
    const row = this.byId.get(id)
    if (!row) throw invalidApiKey(`No key ${id}.`)
    return notRevoked(row)
  }

  /** The key a request presents, or the 401 it gets: missing, malformed, unknown or revoked. */
  authenticate(authorization: string | undefined): Key {
    if (!authorization) {
      throw invalidApiKey("You didn't provide an API key. Send your gateway key as `Authorization: Bearer gw-…` (create one with `gw keys create`).")
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw invalidApiKey('The Authorization header must be `Bearer <key>`.')
    const secret = match[1]
    if (!isWellFormedKey(secret)) {
      throw invalidApiKey('Malformed API key: gateway keys start with `gw-` followed by at least 40 URL-safe characters.')
    }
    const hash = hashKey(secret)
    const lookup = keyLookup(secret)
    const row = this.byLookup.get(lookup)?.find((r) => hashesEqual(r.hash, hash))
    if (!row) throw invalidApiKey(`Incorrect API key provided: ${maskKey(lookup, secret.slice(-4))}.`)
    return notRevoked(row)
  }
}
