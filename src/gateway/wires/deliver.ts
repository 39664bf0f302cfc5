import type { Delivered, Delivery } from '../core/wire'
import { ApiError } from '../errors'
import type { NormalizedUsage } from '../pricing/types'
import type { UpstreamResponse } from '../upstream/client'
import { upstreamNetworkError } from '../upstream/upstreamErrors'

/** A provider's whole JSON answer: parsed, and its text as received. */
export interface ProviderJson {
  json: Record<string, unknown>
  text: string
}

/** What a wire makes of a provider's whole answer: the client's answer and the usage it reports. */
export interface WholeAnswer {
  body: Record<string, unknown>
  /** The provider's text, when the answer goes out unchanged (no second serialisation). */
  asSent?: string
  usage: NormalizedUsage | null
  /** The usage was reconstructed (the provider reports none for this call). */
  estimated?: boolean
  /** The provider's id of an answer it keeps for later retrieval. */
  upstreamId?: string | null
}

/**
 * How one wire answers from one target: what a whole answer becomes, and the relay of a stream.
 * Every wire's delivery is this skeleton with its grammar; the translated and native grammars are
 * made by `translatedGrammar` and `nativeGrammar`.
 */
export interface AnswerGrammar {
  whole(answer: ProviderJson, out: Delivery): WholeAnswer
  /** The relay of a streamed answer; absent on a wire that never streams. */
  relay?(upstream: UpstreamResponse, out: Delivery): Promise<Delivered>
}

/** Delivers a provider's 200 answer, whole or streamed, through `grammar`. */
export async function deliverWith(grammar: AnswerGrammar, upstream: UpstreamResponse, out: Delivery): Promise<Delivered> {
  if (out.stream && grammar.relay) return grammar.relay(upstream, out)
  const whole = grammar.whole(await readJson(out.target.provider.id, upstream), out)
  const logged = await sendJson(out, whole.body, whole.usage, whole.asSent, whole.estimated)
  // Literals, not `{ ...OK, … }`: V8 (Node 20) builds a spread through a slow path, on every request.
  return { status: 200, outcome: 'ok', usage: whole.usage, logged, upstreamId: whole.upstreamId ?? null }
}

/**
 * Sends a whole answer, priced, with its `gw` block; resolves to the text body logging keeps. An
 * answer the gateway did not change goes out as the provider's text (no second serialisation;
 * numbers and key order untouched), any other is serialised here as Fastify would. A logged
 * response keeps the answer's text without the block: routing and cost are the record's own
 * fields, and the block was over half of a short answer's bytes, which the record thread pays for
 * twice (WAL and checkpoint). `withGwBlock` puts it back when the body is read.
 */
export async function sendJson(
  out: Delivery,
  answer: Record<string, unknown>,
  usage: NormalizedUsage | null,
  asSent?: string,
  estimated?: boolean,
): Promise<string | null> {
  const gw = JSON.stringify(out.close(usage, estimated))
  const ready = out.ready()
  if (ready) await ready
  // A gateway upstream of this one may have put its own block there; ours replaces it.
  const chained = 'gw' in answer
  if (chained) delete answer.gw
  const text = asSent !== undefined && !chained ? asSent.trim() : JSON.stringify(answer)
  out.firstByte()
  await out.sink.json(/^\{\s*\}$/.test(text) ? `{"gw":${gw}}` : `${text.slice(0, -1)},"gw":${gw}}`, out.headers())
  return out.logging ? text : null
}

/**
 * Reads a provider's JSON answer, telling the call's idle timeout of every read; DeepSeek may
 * send blank lines first, which JSON.parse tolerates. Listeners rather than `for await`, as the
 * stream relay reads: no async iterator and no promise per read.
 */
export function readJson(providerId: string, upstream: UpstreamResponse): Promise<ProviderJson> {
  const body = upstream.body
  const parts: Buffer[] = []
  return new Promise((resolve, reject) => {
    body.on('data', (bytes: Buffer) => {
      upstream.heard()
      parts.push(bytes)
    })
    // Stays attached once settled: a body that errors with no listener would take the process down.
    body.on('error', (err) => reject(upstreamNetworkError(providerId, err)))
    body.on('end', () => {
      try {
        resolve(parseAnswer(providerId, parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8')))
      } catch (err) {
        reject(err)
      }
    })
  })
}

function parseAnswer(providerId: string, text: string): ProviderJson {
  try {
    const json = JSON.parse(text)
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return { json, text }
  } catch {
    // fall through
  }
  throw new ApiError(502, 'server_error', `${providerId} answered 200 with a body that is not a JSON object`, 'upstream_error')
}
