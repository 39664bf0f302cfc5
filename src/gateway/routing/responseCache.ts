import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import type { Logger } from 'pino'
import type { Target } from '../pipeline/resolveModel'
import type { UpstreamRequest } from '../providers/adapter'
import type { CachedAnswer, ResponseCacheRepo } from '../store/responseCacheRepo'
import type { UpstreamResponse } from '../upstream/client'

/**
 * What a provider's answer says when it refused or did not finish, on any wire it speaks: a
 * content filter's finish, a refusal, a blocked prompt, a failed or incomplete Responses answer.
 * Such an answer is never kept. Quotes inside a JSON string are escaped, so generated text that
 * merely mentions these never matches; a false match only leaves an answer uncached.
 */
const REFUSED =
  /"(?:finish_reason|finishReason)"\s*:\s*"(?:content_filter|SAFETY|RECITATION|BLOCKLIST|PROHIBITED_CONTENT|SPII|IMAGE_SAFETY)"|"refusal"\s*:\s*"|"stop_reason"\s*:\s*"refusal"|"blockReason"\s*:|"type"\s*:\s*"(?:refusal|response\.failed|response\.incomplete)"|"status"\s*:\s*"(?:failed|incomplete)"/

/**
 * Fields of an upstream body that say who asks or how the provider files the request, never what
 * it answers: a request that differs only in them is a repeat. Claude Code puts its session in
 * `metadata.user_id`; OpenAI's `user`, `safety_identifier` and `prompt_cache_key` name the caller.
 */
const NEUTRAL_FIELDS = new Set(['metadata', 'user', 'safety_identifier', 'prompt_cache_key'])

/**
 * The forwarded headers that change an answer (a beta feature, the API version); the others a
 * wire passes through name a session or a request (Codex's `session-id`, `x-client-request-id`).
 */
const SHAPING_HEADERS = new Set(['anthropic-version', 'anthropic-beta'])

/** What of an upstream request shapes its answer, as one text to hash. */
function shapeOf(request: UpstreamRequest): string {
  const body = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {}
  const headers = Object.entries(request.headers ?? {})
    .filter(([name]) => SHAPING_HEADERS.has(name.toLowerCase()))
    .sort(([a], [b]) => (a < b ? -1 : 1))
  // Top-level fields only: the replacer's `this` is the object holding the key.
  return JSON.stringify([request.path, headers, body], function (this: unknown, key: string, value: unknown) {
    return this === body && NEUTRAL_FIELDS.has(key) ? undefined : value
  })
}

/** How often at most a gateway prunes the cache after keeping answers (it also prunes with the records, hourly). */
const PRUNE_EVERY_MS = 60_000

/**
 * The response cache at the upstream boundary: an answer is kept as the provider's own bytes
 * under the hash of the request exactly as it went upstream (provider, path, body, forwarded
 * headers) and its scope (the key), and a repeat gets those bytes back instead of a provider
 * call, through the same delivery, so every wire, native or translated, whole or streamed,
 * answers in its own shape. The store is bounded (`maxBytes`, oldest out first) and pruned of
 * expired answers.
 */
export class ResponseCache {
  private lastPrune = 0

  constructor(
    private readonly repo: ResponseCacheRepo,
    private readonly clock: () => number,
    /** What the kept answers may hold in all; one answer over a sixteenth of it is not kept. */
    readonly maxBytes: number,
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  /** One call's use of the cache, for `scope` (a key id), keeping its answer `ttlS` seconds. */
  call(scope: string, ttlS: number): CachedCall {
    return new CachedCall(this, scope, ttlS)
  }

  lookup(hash: string): Promise<CachedAnswer | undefined> {
    return this.repo.get(hash, this.clock())
  }

  /** Keeps an answer; a store that refuses it is logged, never the request's failure. */
  async keep(hash: string, scope: string, requestId: string, ttlS: number, answer: string): Promise<void> {
    const now = this.clock()
    try {
      await this.repo.put({ hash, scope, request_id: requestId, answer, created_at: now, expires_at: now + ttlS * 1000 })
      if (now - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = now
        await this.prune(now)
      }
    } catch (err) {
      this.log.error({ err }, 'response cache: could not keep an answer')
    }
  }

  /** Takes out expired answers, then the oldest while the rest hold more than `maxBytes`. */
  prune(now = this.clock()): Promise<number> {
    return this.repo.prune(now, this.maxBytes)
  }
}

/**
 * One call's use of the cache: the hash of the request for the target being tried, the answer
 * found for it, and, on a miss, the provider's answer as it is read, to keep once it completed.
 */
export class CachedCall {
  private hash: string | null = null
  /** The answer a lookup found; null on a miss. */
  hit: CachedAnswer | null = null
  private chunks: Buffer[] | null = null
  private bytes = 0

  constructor(
    private readonly cache: ResponseCache,
    private readonly scope: string,
    private readonly ttlS: number,
  ) {}

  /**
   * The kept answer to `request` for `target` as if the provider had just sent it, or null to
   * call the provider. Asked before each candidate is called, so the request that answered is
   * the last one hashed.
   */
  readonly replay = async (target: Target, request: UpstreamRequest): Promise<UpstreamResponse | null> => {
    const hash = createHash('sha256')
      .update(JSON.stringify([this.scope, target.provider.id, target.upstreamModel]))
      .update('\n')
      .update(shapeOf(request))
      .digest('base64url')
    this.hash = hash
    const found = await this.cache.lookup(hash)
    if (!found) return null
    this.hit = found
    return replayed(found.answer)
  }

  /** Reads the provider's answer beside its delivery (called once the delivery listens to it, so no byte reaches only this). */
  watch(upstream: UpstreamResponse): void {
    if (this.hit) return
    this.chunks = []
    const limit = this.cache.maxBytes / 16
    const onData = (bytes: Buffer) => {
      this.bytes += bytes.length
      if (this.bytes <= limit) this.chunks?.push(bytes)
      else {
        this.chunks = null
        upstream.body.removeListener('data', onData)
      }
    }
    upstream.body.on('data', onData)
  }

  /** Keeps the answer the delivery completed, unless it was too large or a refusal (errors, aborts and streams cut short never reach here). */
  async keep(requestId: string): Promise<void> {
    if (!this.chunks || this.hash === null) return
    const answer = Buffer.concat(this.chunks).toString('utf8')
    this.chunks = null
    if (REFUSED.test(answer)) return
    await this.cache.keep(this.hash, this.scope, requestId, this.ttlS, answer)
  }
}

/**
 * A kept answer as a provider's 200 response: its bytes as one read, then the end; `text()` and
 * `json()` read it whole, as undici's body does.
 */
function replayed(answer: string): UpstreamResponse {
  const stream = Readable.from([Buffer.from(answer, 'utf8')], { objectMode: false })
  const body = Object.assign(stream, { text: async () => answer, json: async () => JSON.parse(answer) as unknown })
  return {
    statusCode: 200,
    headers: {},
    trailers: {},
    opaque: null,
    context: {},
    body,
    heard: () => {},
  } as unknown as UpstreamResponse
}
