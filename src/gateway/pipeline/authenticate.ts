import { invalidApiKey } from '../errors'
import { hashKey, hashesEqual, isWellFormedKey, keyLookup, maskKey } from '../keys/inferenceKey'
import type { KeyRow } from '../store/keysRepo'

function notRevoked(row: KeyRow): KeyRow {
  if (row.revoked_at !== null) {
    throw invalidApiKey(`The API key ${maskKey(row.lookup, row.last4)} was revoked on ${new Date(row.revoked_at).toISOString()}.`)
  }
  return row
}

/** Keys indexed in memory by their public lookup prefix; the secret part is checked in constant time. */
export class KeyIndex {
  private byLookup = new Map<string, KeyRow[]>()
  private byId = new Map<string, KeyRow>()

  reload(rows: KeyRow[]): void {
    const next = new Map<string, KeyRow[]>()
    for (const row of rows) next.set(row.lookup, [...(next.get(row.lookup) ?? []), row])
    this.byLookup = next
    this.byId = new Map(rows.map((r) => [r.id, r]))
  }

  /**
   * The Playground's way in: the dashboard already proved who the user is and that the key is
   * theirs, so the key is named by id; a revoked key is refused like any other.
   */
  authenticateById(id: string): KeyRow {
    const row = this.byId.get(id)
    if (!row) throw invalidApiKey(`No key ${id}.`)
    return notRevoked(row)
  }

  /** The key a request presents, or the 401 it gets: missing, malformed, unknown or revoked. */
  authenticate(authorization: string | undefined): KeyRow {
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
