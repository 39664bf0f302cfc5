import type { Sql } from './sql'

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
  constructor(private readonly sql: Sql) {}

  /** Keeps a response with its input and output items, in one transaction. */
  save(r: NewResponse): Promise<void> {
    const { output, ...rest } = r.response
    return this.sql.write(async (tx) => {
      await tx.run(`INSERT INTO responses (id, key_id, request_id, previous_response_id, created_at, expires_at, response) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
        r.id,
        r.key_id,
        r.request_id,
        r.previous_response_id,
        r.created_at,
        r.expires_at,
        JSON.stringify(rest),
      ])
      let seq = 0
      for (const item of r.input) await tx.run(INSERT_ITEM, [r.id, seq++, item.id as string, 'input', JSON.stringify(item)])
      for (const item of output) await tx.run(INSERT_ITEM, [r.id, seq++, item.id as string, 'output', JSON.stringify(item)])
    })
  }

  /** Whether this key holds a live response with this id. */
  async has(id: string, keyId: string, now: number, sql: Sql = this.sql): Promise<boolean> {
    return (await sql.get(`SELECT 1 AS one FROM responses WHERE id = ? AND key_id = ? AND expires_at > ?`, [id, keyId, now])) !== undefined
  }

  /** The response object, output included; undefined when the key has no live response with this id. */
  get(id: string, keyId: string, now: number): Promise<Obj | undefined> {
    return this.sql.read(async (tx) => {
      if (!(await this.has(id, keyId, now, tx))) return undefined
      const row = (await tx.get<{ response: string }>(`SELECT response FROM responses WHERE id = ?`, [id]))!
      const output = (await ownItems(tx, id)).filter((i) => i.part === 'output').map((i) => JSON.parse(i.item) as Obj)
      return { ...(JSON.parse(row.response) as Obj), output }
    })
  }

  /** The whole conversation a response ends: every earlier turn's input and output, then its own. */
  conversation(id: string, keyId: string, now: number): Promise<Obj[] | undefined> {
    return this.sql.read(async (tx) => {
      if (!(await this.has(id, keyId, now, tx))) return undefined
      return (await items(tx, id)).map((i) => JSON.parse(i.item) as Obj)
    })
  }

  /** The input a response answered (the conversation before it, then what its request added), oldest first. */
  inputItems(id: string, keyId: string, now: number): Promise<Obj[] | undefined> {
    return this.sql.read(async (tx) => {
      if (!(await this.has(id, keyId, now, tx))) return undefined
      return (await items(tx, id, false)).map((i) => JSON.parse(i.item) as Obj)
    })
  }

  /** An item of one of the key's live responses, the newest where several hold the id. */
  async item(itemId: string, keyId: string, now: number): Promise<Obj | undefined> {
    const row = await this.sql.get<{ item: string }>(
      `SELECT i.item FROM response_items i JOIN responses r ON r.id = i.response_id
       WHERE i.id = ? AND r.key_id = ? AND r.expires_at > ? ORDER BY r.created_at DESC LIMIT 1`,
      [itemId, keyId, now],
    )
    return row && (JSON.parse(row.item) as Obj)
  }

  /** Deletes one of the key's responses; a later response that continued it keeps the conversation. */
  delete(id: string, keyId: string, now: number): Promise<boolean> {
    return this.sql.write(async (tx) => {
      if (!(await this.has(id, keyId, now, tx))) return false
      await remove(tx, [id])
      return true
    })
  }

  /**
   * Deletes every response a key made; returns how many were live (the count `countForKey` showed:
   * expired ones go too, but were already gone to clients).
   */
  deleteForKey(keyId: string, now: number): Promise<number> {
    return this.sql.write(async (tx) => {
      const live = await this.countForKey(keyId, now, tx)
      await tx.run(`DELETE FROM responses WHERE key_id = ?`, [keyId])
      return live
    })
  }

  /** How many live responses a key has kept. */
  async countForKey(keyId: string, now: number, sql: Sql = this.sql): Promise<number> {
    return (await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM responses WHERE key_id = ? AND expires_at > ?`, [keyId, now]))!.n
  }

  /** Deletes responses expired at `now`, or made before `before` when given (a shortened retention). */
  prune(now: number, before = -Infinity): Promise<number> {
    return this.sql.write(async (tx) => {
      // -Infinity binds on neither store: the oldest possible time stands for it.
      const ids = (
        await tx.all<{ id: string }>(`SELECT id FROM responses WHERE expires_at <= ? OR created_at < ?`, [now, Math.max(before, Number.MIN_SAFE_INTEGER)])
      ).map((r) => r.id)
      await remove(tx, ids)
      return ids.length
    })
  }
}

const INSERT_ITEM = `INSERT INTO response_items (response_id, seq, id, part, item) VALUES (?, ?, ?, ?, ?)`

/**
 * Removes responses, first copying each one's conversation into the responses that continued
 * it and stay (their `context` rows), so deleting or expiring a turn never breaks a later one.
 */
async function remove(tx: Sql, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  const going = new Set(ids)
  for (const id of ids) {
    const staying = (await tx.all<{ id: string }>(`SELECT id FROM responses WHERE previous_response_id = ?`, [id])).filter((c) => !going.has(c.id))
    if (staying.length === 0) continue
    const conversation = await items(tx, id)
    for (const child of staying) {
      for (const [i, item] of conversation.entries()) await tx.run(INSERT_ITEM, [child.id, i - conversation.length, item.id, 'context', item.item])
      await tx.run(`UPDATE responses SET previous_response_id = NULL WHERE id = ?`, [child.id])
    }
  }
  for (const id of ids) await tx.run(`DELETE FROM responses WHERE id = ?`, [id])
}

/** The rows of a response's conversation: its ancestors' items, oldest first, then its own (its output unless left out). */
async function items(tx: Sql, id: string, withOutput = true): Promise<ItemRow[]> {
  const chain: string[] = []
  for (let at: string | null = id; at !== null;) {
    chain.unshift(at)
    at = (await tx.get<{ p: string | null }>(`SELECT previous_response_id AS p FROM responses WHERE id = ?`, [at]))?.p ?? null
  }
  const rows: ItemRow[] = []
  for (const r of chain) rows.push(...(await ownItems(tx, r)).filter((i) => withOutput || r !== id || i.part !== 'output'))
  return rows
}

function ownItems(tx: Sql, id: string): Promise<ItemRow[]> {
  return tx.all<ItemRow>(`SELECT id, part, item FROM response_items WHERE response_id = ? ORDER BY seq`, [id])
}
