import type { Sql, SqlValue } from './sql'
import { bumpConfigRev } from './configRev'
import type { Cost } from '../pricing/types'
import { usdToPico } from '../../contract/money'
import type { SoftLimit } from '../../contract/keys'
import type { z } from 'zod'
import type { sessionMove } from '../../contract/sessions'

export type Outcome = 'ok' | 'error' | 'aborted'

export interface Attempt {
  provider: string
  model: string
  status: number | null
  latency_ms: number
  error: string | null
}

export interface Attribution {
  user_id: string | null
  trace_id: string | null
  session_id: string | null
  /** The session is the tool's own (Claude Code's, Codex's…), recognised by the gateway; the caller set none. */
  session_derived: boolean
  tags: string[]
  extra: Record<string, string>
  auto_cache: boolean | null
}

/** The endpoint of free token counts: recorded, but not inference (no usage, cost $0 marked free). */
export const COUNT_TOKENS_ENDPOINT = 'messages.count_tokens'
/** The same on the Responses API. */
export const INPUT_TOKENS_ENDPOINT = 'responses.input_tokens'
/** The same on Google's API. */
export const GEMINI_COUNT_TOKENS_ENDPOINT = 'countTokens'

const TOKEN_COUNT_ENDPOINTS: ReadonlySet<string> = new Set([COUNT_TOKENS_ENDPOINT, INPUT_TOKENS_ENDPOINT, GEMINI_COUNT_TOKENS_ENDPOINT])

/** Every token count's endpoint, as SQL leaves them out of a session's count: `'a', 'b'`. */
export const TOKEN_COUNT_ENDPOINTS_SQL = [...TOKEN_COUNT_ENDPOINTS].map((e) => `'${e}'`).join(', ')

/** A token count's record: it counts towards no session's requests or spend (nothing is billed). */
export const isTokenCount = (r: Pick<RequestRecord, 'endpoint'>) => TOKEN_COUNT_ENDPOINTS.has(r.endpoint)

/**
 * A record's cost in whole pico-dollars (0 when it has none). A record keeps its cost in USD,
 * written from whole pico-dollars; this gives them back exactly (for any cost below $8,192).
 */
export const costPico = (r: Pick<RequestRecord, 'cost'>): bigint => (r.cost?.final_usd ? usdToPico(r.cost.final_usd) : 0n)

/**
 * The exact sum of a money column of the selected records (`COST_PICO_SUM`: their costs) in
 * pico-dollars, as text (past 2^53 a JavaScript number would round it). Each amount is turned
 * back into the whole pico-dollars it was written from before it is added, as `costPico` does
 * (the two agree for any amount below $4,096), so the sum is of 64-bit integers: summing the USD
 * values as floats would drift (0.1 + 0.2 ≠ 0.3).
 */
export const picoSum = (column: string) => `CAST(COALESCE(SUM(CAST(round(${column} * 1e12) AS BIGINT)), 0) AS TEXT)`
export const COST_PICO_SUM = picoSum('cost_usd')

export interface RequestRecord {
  id: string
  created_at: string
  endpoint:
    | 'chat.completions'
    | 'embeddings'
    | 'messages'
    | typeof COUNT_TOKENS_ENDPOINT
    | 'responses'
    | typeof INPUT_TOKENS_ENDPOINT
    | 'generateContent'
    | typeof GEMINI_COUNT_TOKENS_ENDPOINT
    | 'embedContent'
  /** Where the request came from: an API client, or the dashboard's Playground. */
  source: 'api' | 'playground'
  /** The tool that sent it, as its headers say (`claude-code 2.1.330`); records from before tools were recognised lack it. */
  source_tool?: string | null
  /** The gateway that served it (`--instance-name`, by default `<host name>:<port>`); records from before gateways were named lack it. */
  instance?: string | null
  status: number
  outcome: Outcome
  key_id: string | null
  model: string | null
  preset: string | null
  preset_version: number | null
  /** The model alias that steered the request (records from before aliases lack it). */
  alias?: { pattern: string; target: string } | null
  /** Where the key's soft cap sent the request instead of the model it asked for; absent when it did not. */
  soft_cap?: SoftCapSwitch | null
  /** The session left the provider and model that served its previous turn under the same preset; absent when it did not. */
  moved?: SessionMove
  provider: string | null
  upstream_model: string | null
  stream: boolean
  attribution: Attribution
  dimensions: Record<string, string>
  ignored: Array<{ name: string; reason: string }>
  usage: Record<string, number> | null
  /**
   * The service tier the request asked for and the one the provider says served it (the one
   * billed), with the data-residency region it reported; absent when none of them was said.
   */
  tier?: { requested: string | null; served: string | null; inference_geo: string | null }
  cost: Cost | null
  attempts: Attempt[]
  /** A preset fallback served instead of the primary model. */
  fallback_used: boolean
  /** A Responses answer the provider stored (`store` not false): its id, by which `GET /v1/responses/{id}` finds the provider. */
  upstream_id?: string
  /**
   * The response cache's part, when the request could be answered from it: a hit names the request
   * whose answer it replayed and what that answer would have cost again; absent when the request
   * did not use the cache.
   */
  response_cache?: ResponseCacheNote
  latency_ms: number
  /** Time until the first byte of the answer went to the client. */
  ttfb_ms: number | null
  error: { status: number; type: string; code: string | null; message: string } | null
  /** The prompt's fingerprint, for the prompt-cache doctor: kept for requests of a session only (and not on records from before it). */
  prompt?: PromptFingerprint
}

/**
 * A prompt's prefix as the cache doctor compares it turn by turn: short digests of the system
 * prompt (null when there is none), of each tool and of each message, in order, never their text;
 * and how many prompt-cache markers (`cache_control`) the client put in it.
 */
export interface PromptFingerprint {
  system: string | null
  tools: string[]
  messages: string[]
  markers: number
}

/** A soft cap's switch, as the record and the answer's `gw.routing` keep it. */
export interface SoftCapSwitch {
  /** The spend limit that was near. */
  limit: SoftLimit
  /** The key's soft cap: the share of the limit it starts at. */
  at_percent: number
  /** The model the request would have gone to (`<provider>/<model>`); the record's provider and upstream model say which served. */
  instead_of: string
  /** The same in words. */
  reason: string
}

/** A session's move, as the record and the answer's `gw.routing` keep it (`sessionMove` says each field). */
export type SessionMove = z.output<typeof sessionMove>

/** Why a session's turn left the target of its previous turn. */
export type MoveReason = SessionMove['reason']

/** Logged bodies as read back: the JSON the client sent and what it got. */
export interface LoggedBodies {
  request: unknown
  response: unknown
}

/** A request's use of the response cache: a miss (its answer was kept when it completed), or a hit on an earlier request's answer. */
export type ResponseCacheNote = { hit: false } | { hit: true; request_id: string; saved_usd: number | null }

/** Where a request went and what it cost: the fields its `gw` block is made of. */
export type RoutingFields = Pick<
  RequestRecord,
  | 'id'
  | 'model'
  | 'preset'
  | 'preset_version'
  | 'alias'
  | 'soft_cap'
  | 'moved'
  | 'provider'
  | 'upstream_model'
  | 'attempts'
  | 'fallback_used'
  | 'cost'
  | 'response_cache'
>

/** The columns of `requests` a record fills, in the order `requestValues` gives them. */
export const REQUEST_COLUMNS = [
  'id',
  'created_at',
  'endpoint',
  'status',
  'outcome',
  'key_id',
  'model',
  'preset',
  'preset_version',
  'provider',
  'upstream_model',
  'stream',
  'user_id',
  'trace_id',
  'session_id',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost_usd',
  'priced',
  'latency_ms',
  'error_code',
  'source',
  'upstream_id',
  'source_tool',
  'session_derived',
  'service_tier_requested',
  'service_tier',
  'instance',
  'cache_hit_of',
  'cache_saved_usd',
  'soft_cap',
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'cache_savings_usd',
  'cache_write_usd',
  'detail',
] as const

/** What the provider's prompt cache did for a record's request, as the cache doctor counts a turn; null when there is no such turn. */
function cacheUsage(r: Pick<RequestRecord, 'usage' | 'provider' | 'upstream_model' | 'response_cache'>): Record<string, number> | null {
  // A response-cache replay's usage is its first answer's: the provider's cache was not touched.
  return r.usage && r.provider && r.upstream_model && !r.response_cache?.hit ? r.usage : null
}

/**
 * A record's prompt-cache token counts as columns (cache reads, writes, 1-hour writes), so the
 * Overview sums them from its index and finds unread writes without reading JSON: null when no
 * provider answered with usage, and for a response-cache replay.
 */
function cacheTokenValues(r: RequestRecord): SqlValue[] {
  const u = cacheUsage(r)
  return u ? [u.cached_tokens ?? 0, u.cache_write_tokens ?? 0, u.cache_write_1h_tokens ?? 0] : [null, null, null]
}

/**
 * What a record's cache reads saved and its cache writes cost, as columns (repricing rewrites
 * them with the cost). Null rather than 0 when there is none, which keeps them out of the index's bytes.
 */
export function cacheMoneyValues(r: RequestRecord, cost: Cost | null): [number | null, number | null] {
  const writes = cacheUsage(r)?.cache_write_tokens ?? 0
  return [cost?.cache_savings_usd || null, writes > 0 ? (cost?.cache_write_usd ?? null) : null]
}

/**
 * A record as a row of `requests`: columns carry what is filtered or grouped on; the full record
 * is kept as JSON beside them. Positional: binding 29 named parameters cost ~2 µs more per record
 * (bench/record-insert.ts).
 */
export function requestValues(r: RequestRecord): SqlValue[] {
  return [
    r.id,
    Date.parse(r.created_at),
    r.endpoint,
    r.status,
    r.outcome,
    r.key_id,
    r.model,
    r.preset,
    r.preset_version,
    r.provider,
    r.upstream_model,
    r.stream ? 1 : 0,
    r.attribution.user_id,
    r.attribution.trace_id,
    r.attribution.session_id,
    r.usage?.prompt_tokens ?? null,
    r.usage?.completion_tokens ?? null,
    r.usage ? (r.usage.prompt_tokens ?? 0) + (r.usage.completion_tokens ?? 0) : null,
    r.cost?.final_usd ?? null,
    r.cost?.priced ? 1 : 0,
    r.latency_ms,
    r.error?.code ?? null,
    r.source,
    r.upstream_id ?? null,
    r.source_tool ?? null,
    r.attribution.session_derived ? 1 : 0,
    r.tier?.requested ?? null,
    r.tier?.served ?? null,
    r.instance ?? null,
    r.response_cache?.hit ? r.response_cache.request_id : null,
    r.response_cache?.hit ? r.response_cache.saved_usd : null,
    r.soft_cap?.limit ?? null,
    ...cacheTokenValues(r),
    ...cacheMoneyValues(r, r.cost),
    JSON.stringify(r),
  ]
}

/** A record's rows beside `requests`, as the record writer inserts them (its columns, then one row of values each). */
export const RECORD_ROWS = {
  tags: { insert: 'INSERT INTO request_tags (request_id, tag, created_at)', conflict: 'ON CONFLICT DO NOTHING' },
  dimensions: { insert: 'INSERT INTO request_dimensions (request_id, name, value, created_at)', conflict: 'ON CONFLICT DO NOTHING' },
  bodies: {
    insert: 'INSERT INTO request_bodies (request_id, request, response)',
    conflict: 'ON CONFLICT (request_id) DO UPDATE SET request = excluded.request, response = excluded.response',
  },
} as const

export const tagValues = (r: RequestRecord): SqlValue[][] => {
  const at = Date.parse(r.created_at)
  return r.attribution.tags.map((tag) => [r.id, tag, at])
}

export const dimensionValues = (r: RequestRecord): SqlValue[][] => {
  const at = Date.parse(r.created_at)
  return Object.entries(r.dimensions).map(([name, value]) => [r.id, name, value, at])
}

/** Logged bodies as stored: the JSON texts, `null` for a side not kept. */
export const bodyValues = (id: string, bodies: { request: string | null; response: string | null }): SqlValue[] => [
  id,
  bodies.request ?? 'null',
  bodies.response ?? 'null',
]

/** A record's new cost, as repricing decided it. */
export interface Repricing {
  record: RequestRecord
  cost: Cost
  /** The record's key when it is prepaid: its ledger is adjusted to the new cost. */
  prepaidKey: string | null
  /** The new cost in pico-dollars; null when unpriced (no adjustment). */
  pico: bigint | null
  /** The adjustment's note. */
  note: string
}

/** Reads of request records; they are written by the record writer, in batches. */
export class RequestsRepo {
  constructor(private readonly sql: Sql) {}

  /**
   * One session's recorded cost and requests on one key, token counts aside (they cost nothing).
   * On SQLite `+key_id` keeps the planner on the session index: by key it would read every request the key made.
   */
  async sessionTotals(keyId: string, sessionId: string): Promise<{ pico: bigint; requests: number }> {
    const row = await this.sql.get<{ pico: string; requests: number }>(
      `SELECT ${COST_PICO_SUM} AS pico, COUNT(*) AS requests FROM requests
       WHERE session_id = ? AND ${this.sql.dialect.unindexed('key_id')} = ? AND endpoint NOT IN (${TOKEN_COUNT_ENDPOINTS_SQL})`,
      [sessionId, keyId],
    )
    return { pico: BigInt(row!.pico), requests: row!.requests }
  }

  /**
   * The provider and model that last answered a session's turn under a preset: where its prompt
   * cache is. Read through the session index (its newest rows first), one row.
   */
  sessionTarget(keyId: string, sessionId: string, preset: string): Promise<{ provider: string; upstream_model: string; soft_cap: string | null } | undefined> {
    return this.sql.get<{ provider: string; upstream_model: string; soft_cap: string | null }>(
      `SELECT provider, upstream_model, soft_cap FROM requests
       WHERE session_id = ? AND ${this.sql.dialect.unindexed('key_id')} = ? AND ${this.sql.dialect.unindexed('preset')} = ? AND outcome = 'ok' AND provider IS NOT NULL AND upstream_model IS NOT NULL
       ORDER BY created_at DESC LIMIT 1`,
      [sessionId, keyId, preset],
    )
  }

  /** Who made the stored Responses answer `upstreamId`, and where: undefined when no record has it. */
  madeUpstream(upstreamId: string): Promise<{ provider: string; key_id: string } | undefined> {
    return this.sql.get<{ provider: string; key_id: string }>(`SELECT provider, key_id FROM requests WHERE upstream_id = ? ORDER BY created_at DESC LIMIT 1`, [
      upstreamId,
    ])
  }

  /** Newest first. */
  async list(limit = 100, offset = 0): Promise<RequestRecord[]> {
    const rows = await this.sql.all<{ detail: string }>(`SELECT detail FROM requests ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`, [limit, offset])
    return rows.map((r) => JSON.parse(r.detail) as RequestRecord)
  }

  async count(): Promise<number> {
    return (await this.sql.get<{ n: number }>(`SELECT count(*) AS n FROM requests`))!.n
  }

  async bodies(id: string): Promise<LoggedBodies | null> {
    const row = await this.sql.get<{ request: string; response: string }>(`SELECT request, response FROM request_bodies WHERE request_id = ?`, [id])
    return row ? { request: JSON.parse(row.request), response: JSON.parse(row.response) } : null
  }

  /** What repricing replaced, oldest first. */
  costHistory(id: string): Promise<Array<{ repriced_at: number; old_usd: number | null; new_usd: number | null; actor: string }>> {
    return this.sql.all<{ repriced_at: number; old_usd: number | null; new_usd: number | null; actor: string }>(
      `SELECT repriced_at, CASE WHEN old_priced = 1 THEN old_cost_usd END AS old_usd, new_cost_usd AS new_usd, actor
       FROM request_costs WHERE request_id = ? ORDER BY repriced_at, id`,
      [id],
    )
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const row = await this.sql.get<{ detail: string }>(`SELECT detail FROM requests WHERE id = ?`, [id])
    return row ? (JSON.parse(row.detail) as RequestRecord) : undefined
  }

  /** A batch of records for repricing, in id order after `cursor`, with whether their key is prepaid. */
  async forRepricing(cursor: string, since: number, limit: number): Promise<Array<{ record: RequestRecord; prepaidKey: string | null }>> {
    const rows = await this.sql.all<{ detail: string; key_id: string | null; prepaid: number | null }>(
      `SELECT r.detail, r.key_id, k.prepaid FROM requests r LEFT JOIN keys k ON k.id = r.key_id
       WHERE r.id > ? AND r.created_at >= ? ORDER BY r.id LIMIT ?`,
      [cursor, since, limit],
    )
    return rows.map((r) => ({ record: JSON.parse(r.detail) as RequestRecord, prepaidKey: r.prepaid === 1 ? r.key_id : null }))
  }

  /**
   * Stores new costs in one transaction: the figure each record had goes to `request_costs`, the
   * record and its cost column get the new one, and a prepaid key's ledger gets the difference
   * between the new cost and what the request was charged so far (its debit and earlier
   * adjustments). Returns how many adjustments were made.
   */
  reprice(changes: Repricing[], actor: string, now: number): Promise<number> {
    return this.sql.write(async (tx) => {
      let adjustments = 0
      for (const { record, cost, prepaidKey, pico, note } of changes) {
        const old = record.cost
        await tx.run(
          `INSERT INTO request_costs (request_id, repriced_at, old_cost_usd, old_priced, old_cost, new_cost_usd, actor) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [record.id, now, old?.final_usd ?? null, old?.priced ? 1 : 0, old ? JSON.stringify(old) : null, cost.final_usd, actor],
        )
        const [savings, writes] = cacheMoneyValues(record, cost)
        await tx.run(`UPDATE requests SET cost_usd = ?, priced = ?, cache_savings_usd = ?, cache_write_usd = ?, detail = ? WHERE id = ?`, [
          cost.final_usd,
          cost.priced ? 1 : 0,
          savings,
          writes,
          JSON.stringify({ ...record, cost }),
          record.id,
        ])
        if (!prepaidKey || pico === null) continue
        const charged = await tx.get<{ pico: string }>(
          `SELECT CAST(COALESCE(-SUM(amount_pico), 0) AS TEXT) AS pico FROM ledger WHERE request_id = ? AND key_id = ?`,
          [record.id, prepaidKey],
        )
        const delta = pico - BigInt(charged!.pico)
        if (delta === 0n) continue
        await tx.run(`INSERT INTO ledger (key_id, created_at, amount_pico, kind, request_id, actor, note) VALUES (?, ?, ?, 'adjustment', ?, ?, ?)`, [
          prepaidKey,
          now,
          -delta,
          record.id,
          actor,
          note,
        ])
        adjustments++
      }
      // Balances a running gateway holds in memory are read again.
      if (adjustments > 0) await bumpConfigRev(tx)
      return adjustments
    })
  }

  /** Deletes records made before `before` (their tags, dimensions, bodies and cost history go with them). */
  prune(before: number): Promise<number> {
    return this.sql.run(`DELETE FROM requests WHERE created_at < ?`, [before])
  }
}
