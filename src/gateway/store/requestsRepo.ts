import type { Db } from './db'
import type { Statement } from 'better-sqlite3'
import type { Cost } from '../pricing/types'

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

export interface RequestRecord {
  id: string
  created_at: string
  endpoint: 'chat.completions' | 'embeddings' | 'messages' | typeof COUNT_TOKENS_ENDPOINT | 'responses' | typeof INPUT_TOKENS_ENDPOINT
  /** Where the request came from: an API client, or the dashboard's Playground. */
  source: 'api' | 'playground'
  /** The tool that sent it, as its headers say (`claude-code 2.1.330`); records from before tools were recognised lack it. */
  source_tool?: string | null
  status: number
  outcome: Outcome
  key_id: string | null
  model: string | null
  preset: string | null
  preset_version: number | null
  /** The model alias that steered the request (records from before aliases lack it). */
  alias?: { pattern: string; target: string } | null
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
  latency_ms: number
  /** Time until the first byte of the answer went to the client. */
  ttfb_ms: number | null
  error: { status: number; type: string; code: string | null; message: string } | null
}

/** Logged bodies as read back: the JSON the client sent and what it got. */
export interface LoggedBodies {
  request: unknown
  response: unknown
}

/** Where a request went and what it cost: the fields its `gw` block is made of. */
export type RoutingFields = Pick<
  RequestRecord,
  'id' | 'model' | 'preset' | 'preset_version' | 'alias' | 'provider' | 'upstream_model' | 'attempts' | 'fallback_used' | 'cost'
>

/** Columns carry what is filtered or grouped on; the full record is kept as JSON beside them. */
export class RequestsRepo {
  private readonly insertRequest
  private readonly insertTag
  private readonly insertDimension
  private insertBodiesStmt: Statement<[string, string, string]> | null = null

  constructor(private readonly db: Db) {
    // Positional parameters: binding 24 named ones cost ~2 µs more per record (bench/record-insert.ts).
    this.insertRequest = db.prepare(
      `INSERT INTO requests (id, created_at, endpoint, status, outcome, key_id, model, preset, preset_version, provider,
         upstream_model, stream, user_id, trace_id, session_id, prompt_tokens, completion_tokens, total_tokens, cost_usd, priced,
         latency_ms, error_code, source, upstream_id, source_tool, session_derived, service_tier_requested, service_tier, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    this.insertTag = db.prepare(`INSERT OR IGNORE INTO request_tags (request_id, tag, created_at) VALUES (?, ?, ?)`)
    this.insertDimension = db.prepare(`INSERT OR IGNORE INTO request_dimensions (request_id, name, value, created_at) VALUES (?, ?, ?, ?)`)
  }

  /** Call inside a transaction. */
  insert(r: RequestRecord): void {
    const at = Date.parse(r.created_at)
    this.insertRequest.run(
      r.id,
      at,
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
      JSON.stringify(r),
    )
    for (const tag of r.attribution.tags) this.insertTag.run(r.id, tag, at)
    for (const [name, value] of Object.entries(r.dimensions)) this.insertDimension.run(r.id, name, value, at)
  }

  /**
   * One session's recorded cost and requests on one key, token counts aside (they cost nothing).
   * `+key_id` keeps the planner on the session index: by key it would read every request the key made.
   */
  sessionTotals(keyId: string, sessionId: string): { usd: number; requests: number } {
    return this.db
      .prepare(
        `SELECT COALESCE(SUM(cost_usd), 0) AS usd, COUNT(*) AS requests FROM requests
         WHERE session_id = ? AND +key_id = ? AND endpoint NOT IN ('${COUNT_TOKENS_ENDPOINT}', '${INPUT_TOKENS_ENDPOINT}')`,
      )
      .get(sessionId, keyId) as { usd: number; requests: number }
  }

  /** Who made the stored Responses answer `upstreamId`, and where: undefined when no record has it. */
  madeUpstream(upstreamId: string): { provider: string; key_id: string } | undefined {
    return this.db.prepare(`SELECT provider, key_id FROM requests WHERE upstream_id = ? ORDER BY created_at DESC LIMIT 1`).get(upstreamId) as
      { provider: string; key_id: string } | undefined
  }

  /** Newest first. */
  list(limit = 100, offset = 0): RequestRecord[] {
    const rows = this.db.prepare(`SELECT detail FROM requests ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`).pluck().all(limit, offset) as string[]
    return rows.map((d) => JSON.parse(d) as RequestRecord)
  }

  /** Request and response bodies, kept only while body logging is on. */
  insertBodies(id: string, bodies: { request: string | null; response: string | null }): void {
    // Prepared once, on first use: compiling the statement for every logged request cost more than running it.
    this.insertBodiesStmt ??= this.db.prepare(`INSERT OR REPLACE INTO request_bodies (request_id, request, response) VALUES (?, ?, ?)`)
    this.insertBodiesStmt.run(id, bodies.request ?? 'null', bodies.response ?? 'null')
  }

  bodies(id: string): LoggedBodies | null {
    const row = this.db.prepare(`SELECT request, response FROM request_bodies WHERE request_id = ?`).get(id) as
      { request: string; response: string } | undefined
    return row ? { request: JSON.parse(row.request), response: JSON.parse(row.response) } : null
  }

  /** What repricing replaced, oldest first. */
  costHistory(id: string): Array<{ repriced_at: number; old_usd: number | null; new_usd: number | null; actor: string }> {
    return this.db
      .prepare(
        `SELECT repriced_at, CASE WHEN old_priced = 1 THEN old_cost_usd END AS old_usd, new_cost_usd AS new_usd, actor
         FROM request_costs WHERE request_id = ? ORDER BY repriced_at, id`,
      )
      .all(id) as Array<{ repriced_at: number; old_usd: number | null; new_usd: number | null; actor: string }>
  }

  get(id: string): RequestRecord | undefined {
    const detail = this.db.prepare(`SELECT detail FROM requests WHERE id = ?`).pluck().get(id) as string | undefined
    return detail ? (JSON.parse(detail) as RequestRecord) : undefined
  }
}
