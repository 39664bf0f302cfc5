import type { Db } from './db'

type Obj = Record<string, unknown>

/** A response the gateway answered on a translated path, as it is kept. */
export interface NewResponse {
  id: string
  key_id: string
  request_id: string
  previous_response_id: string | null
  created_at: number
  expires_at: number
  /** The response object as delivered, its output included (kept apart, as items). */
  response: Obj & { output: Obj[] }
  /** The input the request sent beyond the response it continued, each item with its id. */
  input: Obj[]
}

interface ItemRow {
  id: string
  part: 'context' | 'input' | 'output'
  item: string
}

/**
 * The gateway's own store of Responses state: what `previous_response_id`, `item_reference`,
 * `GET`/`DELETE /v1/responses/{id}` and `input_items` read. Every read is scoped to a key and
 * to what has not expired; a response another key made is as absent as one never made.
 */
export class ResponsesRepo {
  constructor(private readonly db: Db) {}

  /** Keeps a response with its input and output items, in one transaction. */
  save(r: NewResponse): void {
    const { output, ...rest } = r.response
    const items = this.db.prepare(`INSERT INTO response_items (response_id, seq, id, part, item) VALUES (?, ?, ?, ?, ?)`)
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO responses (id, key_id, request_id, previous_response_id, created_at, expires_at, response) VALUES (?, ?, ?, ?, ?, ?, ?)`)
        .run(r.id, r.key_id, r.request_id, r.previous_response_id, r.created_at, r.expires_at, JSON.stringify(rest))
      let seq = 0
      for (const item of r.input) items.run(r.id, seq++, item.id, 'input', JSON.stringify(item))
      for (const item of output) items.run(r.id, seq++, item.id, 'output', JSON.stringify(item))
    })()
  }

  /** Whether this key holds a live response with this id. */
  has(id: string, keyId: string, now: number): boolean {
    return this.db.prepare(`SELECT 1 FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?`).get(id, keyId, now) !== undefined
  }

  /** The response object, output included; undefined when the key has no live response with this id. */
  get(id: string, keyId: string, now: number): Obj | undefined {
    if (!this.has(id, keyId, now)) return undefined
    const row = this.db.prepare(`SELECT response FROM responses WHERE id = ?`).get(id) as { response: string }
    const output = this.ownItems(id)
      .filter((i) => i.part === 'output')
      .map((i) => JSON.parse(i.item) as Obj)
    return { ...(JSON.parse(row.response) as Obj), output }
  }

  /** The whole conversation a response ends: every earlier turn's input and output, then its own. */
  conversation(id: string, keyId: string, now: number): Obj[] | undefined {
    if (!this.has(id, keyId, now)) return undefined
    return this.items(id).map((i) => JSON.parse(i.item) as Obj)
  }

  /** The input a response answered (the conversation before it, then what its request added), oldest first. */
  inputItems(id: string, keyId: string, now: number): Obj[] | undefined {
    if (!this.has(id, keyId, now)) return undefined
    return this.items(id, false).map((i) => JSON.parse(i.item) as Obj)
  }

  /** An item of one of the key's live responses, the newest where several hold the id. */
  item(itemId: string, keyId: string, now: number): Obj | undefined {
    const row = this.db
      .prepare(
        `SELECT i.item FROM response_items i JOIN responses r ON r.id = i.response_id
         WHERE i.id = ? AND r.key_id = ? AND r.expires_at > ? ORDER BY r.created_at DESC LIMIT 1`,
      )
      .get(itemId, keyId, now) as { item: string } | undefined
    return row && (JSON.parse(row.item) as Obj)
  }

  /** Deletes one of the key's responses; a later response that continued it keeps the conversation. */
  delete(id: string, keyId: string, now: number): boolean {
    return this.db.transaction(() => {
      if (!this.has(id, keyId, now)) return false
      this.remove([id])
      return true
    })()
  }

  /** Deletes every response a key made; returns how many. */
  deleteForKey(keyId: string): number {
    return this.db.prepare(`DELETE FROM responses WHERE key_id = ?`).run(keyId).changes
  }

  /** How many live responses a key has kept. */
  countForKey(keyId: string, now: number): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM responses WHERE key_id = ? AND expires_at > ?`).get(keyId, now) as { n: number }).n
  }

  /** Deletes responses expired at `now`, or made before `before` when given (a shortened retention). */
  prune(now: number, before = -Infinity): number {
    return this.db.transaction(() => {
      const ids = (this.db.prepare(`SELECT id FROM responses WHERE expires_at <= ? OR created_at < ?`).all(now, before) as Array<{ id: string }>).map(
        (r) => r.id,
      )
      this.remove(ids)
      return ids.length
    })()
  }

  /**
   * Removes responses, first copying each one's conversation into the responses that continued
   * it and stay (their `context` rows), so deleting or expiring a turn never breaks a later one.
   */
  private remove(ids: string[]): void {
    if (ids.length === 0) return
    const going = new Set(ids)
    const children = this.db.prepare(`SELECT id FROM responses WHERE previous_response_id = ?`)
    const insert = this.db.prepare(`INSERT INTO response_items (response_id, seq, id, part, item) VALUES (?, ?, ?, 'context', ?)`)
    const unlink = this.db.prepare(`UPDATE responses SET previous_response_id = NULL WHERE id = ?`)
    for (const id of ids) {
      const staying = (children.all(id) as Array<{ id: string }>).filter((c) => !going.has(c.id))
      if (staying.length === 0) continue
      const conversation = this.items(id)
      for (const child of staying) {
        conversation.forEach((item, i) => insert.run(child.id, i - conversation.length, item.id, item.item))
        unlink.run(child.id)
      }
    }
    const del = this.db.prepare(`DELETE FROM responses WHERE id = ?`)
    for (const id of ids) del.run(id)
  }

  /** The rows of a response's conversation: its ancestors' items, oldest first, then its own (its output unless left out). */
  private items(id: string, withOutput = true): ItemRow[] {
    const chain: string[] = []
    const previous = this.db.prepare(`SELECT previous_response_id AS p FROM responses WHERE id = ?`)
    for (let at: string | null = id; at !== null;) {
      chain.unshift(at)
      at = (previous.get(at) as { p: string | null } | undefined)?.p ?? null
    }
    return chain.flatMap((r) => this.ownItems(r).filter((i) => withOutput || r !== id || i.part !== 'output'))
  }

  private ownItems(id: string): ItemRow[] {
    return this.db.prepare(`SELECT id, part, item FROM response_items WHERE response_id = ? ORDER BY seq`).all(id) as ItemRow[]
  }
}
