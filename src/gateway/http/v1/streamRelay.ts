import { once } from 'node:events'
import type { FastifyReply } from 'fastify'
import type { Dispatcher } from 'undici'
import { ApiError } from '../../errors'
import { costOf, gwExtension } from '../../pipeline/cost'
import type { RequestContext } from '../../pipeline/requestContext'
import { normalizeUsage } from '../../pricing/usage'
import { SseParser } from '../../upstream/sse'
import { CHARS_PER_TOKEN_TYPICAL, estimateTokens } from '../../pipeline/estimate'
import { parseUpstreamError, upstreamNetworkError } from '../../upstream/upstreamErrors'
import type { Finished } from '../runRecorded'

type Chunk = Record<string, unknown> & {
  choices?: Array<{ finish_reason?: unknown; delta?: { content?: unknown; refusal?: unknown; tool_calls?: Array<{ function?: { arguments?: unknown } }> } }>
  usage?: unknown
}

/** Characters of output a chunk carries: content, refusal and tool-call arguments. */
function generatedChars(chunk: Chunk): number {
  let n = 0
  for (const c of chunk.choices ?? []) {
    const d = c.delta
    if (!d) continue
    if (typeof d.content === 'string') n += d.content.length
    if (typeof d.refusal === 'string') n += d.refusal.length
    for (const t of d.tool_calls ?? []) if (typeof t.function?.arguments === 'string') n += t.function.arguments.length
  }
  return n
}

/**
 * Relays an upstream chat stream chunk by chunk. Usage is always requested upstream; the
 * usage-only chunk reaches the client only if it asked for it. The finishing chunk is held back
 * until the usage arrives, so the last chunk before [DONE] can carry `gw` (routing and cost)
 * without an extra empty-choices chunk for clients that did not ask for one.
 */
export async function relayChatStream(
  ctx: RequestContext,
  reply: FastifyReply,
  upstream: Dispatcher.ResponseData,
  opts: { includeUsage: boolean; prompt: unknown; signal: AbortSignal },
): Promise<Finished> {
  const { includeUsage, signal } = opts
  const out = reply.raw
  reply.hijack()
  out.on('error', () => {})
  out.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain', { signal })
  }
  const send = (chunk: Chunk) => write(`data: ${JSON.stringify(chunk)}\n\n`)
  const fail = async (error: ApiError): Promise<Finished> => {
    if (s.held) await send(s.held)
    await write(`data: ${JSON.stringify(error.toBody())}\n\n`)
    out.end()
    ctx.usage = normalizeUsage(s.rawUsage)
    ctx.cost = costOf(ctx, ctx.usage)
    return { status: 200, outcome: 'error', error }
  }

  const parser = new SseParser()
  // Mutated from inside handle(); an object keeps TypeScript from narrowing these to their initial null.
  const s: { held: Chunk | null; usageChunk: Chunk | null; last: Chunk | null; rawUsage: unknown; finished: boolean; generatedChars: number } = {
    held: null,
    usageChunk: null,
    last: null,
    rawUsage: null,
    finished: false,
    generatedChars: 0,
  }

  /** Returns an error when the upstream reported one inside the stream. */
  const handle = async (data: string): Promise<ApiError | null> => {
    if (data === '[DONE]') return null
    let chunk: Chunk
    try {
      chunk = JSON.parse(data) as Chunk
    } catch {
      return new ApiError(502, 'server_error', `${ctx.target!.provider.id} sent a stream event that is not JSON`, 'upstream_error')
    }
    if (chunk.error) {
      const e = parseUpstreamError(data)
      return new ApiError(502, e.type ?? 'server_error', `${ctx.target!.provider.id}: ${e.message}`, e.code ?? 'upstream_error')
    }
    const groqUsage = (chunk.x_groq as { usage?: unknown } | undefined)?.usage
    if (chunk.usage) s.rawUsage = chunk.usage
    else if (groqUsage) s.rawUsage = groqUsage
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) {
      if (chunk.usage) s.usageChunk = chunk
      return null
    }
    if (!includeUsage) delete chunk.usage
    s.generatedChars += generatedChars(chunk)
    s.last = chunk
    if (s.held) {
      await send(s.held)
      s.held = null
    }
    if (chunk.choices?.some((c) => c.finish_reason)) {
      s.held = chunk
      s.finished = true
    } else {
      ctx.markFirstByte()
      await send(chunk)
    }
    return null
  }

  try {
    for await (const bytes of upstream.body) {
      for (const ev of parser.push(bytes as Buffer)) {
        const error = await handle(ev.data)
        if (error) return await fail(error)
      }
    }
    for (const ev of parser.end()) {
      const error = await handle(ev.data)
      if (error) return await fail(error)
    }
  } catch (err) {
    if (signal.aborted) {
      // The client left mid-stream: it pays for what was generated. Without the provider's count,
      // that is estimated from the text sent so far, and flagged as such.
      const reported = normalizeUsage(s.rawUsage)
      ctx.usage = reported ?? {
        prompt_tokens: estimateTokens(opts.prompt, CHARS_PER_TOKEN_TYPICAL),
        completion_tokens: Math.ceil(s.generatedChars / CHARS_PER_TOKEN_TYPICAL),
        total_tokens: 0,
        cached_tokens: 0,
        cache_write_tokens: 0,
        cache_write_1h_tokens: 0,
        reasoning_tokens: 0,
      }
      ctx.usage.total_tokens = ctx.usage.prompt_tokens + ctx.usage.completion_tokens
      ctx.cost = costOf(ctx, ctx.usage, reported === null)
      return { status: 200, outcome: 'aborted' }
    }
    return fail(upstreamNetworkError(ctx.target!.provider.id, err))
  }
  const { held, usageChunk, last, rawUsage } = s
  if (!s.finished || !held) {
    return fail(
      new ApiError(502, 'server_error', `${ctx.target!.provider.id} ended the stream before the answer was complete`, 'upstream_incomplete'),
    )
  }
  ctx.usage = normalizeUsage(rawUsage)
  ctx.cost = costOf(ctx, ctx.usage)
  const gw = gwExtension(ctx)
  if (includeUsage) {
    await send(held)
    const { choices: _c, usage: _u, ...envelope } = usageChunk ?? last ?? held
    await send({ ...envelope, choices: [], usage: usageChunk?.usage ?? rawUsage ?? null, gw })
  } else {
    await send({ ...held, gw })
  }
  await write('data: [DONE]\n\n')
  out.end()
  return { status: 200, outcome: 'ok' }
}
