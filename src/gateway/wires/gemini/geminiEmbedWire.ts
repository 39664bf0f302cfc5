import type { InboundWire } from '../../core/wire'
import { invalidRequest } from '../../errors'
import { CHARS_PER_TOKEN_TYPICAL, estimateTokens } from '../../pipeline/estimate'
import type { NormalizedUsage } from '../../pricing/types'
import { ZERO_USAGE } from '../../pricing/usage'
import { geminiUsageOf } from '../../providers/gemini/usage'
import { deliverWith, type AnswerGrammar, type WholeAnswer } from '../deliver'
import { embeddingsRequestFor, embeddingsUsage } from '../embeddings'
import { checkNumbers } from '../numberFields'
import { isObj } from '../../jsonObject'
import { isNative, nativePath, type GeminiCall } from './geminiWire'

type EmbedRequest = Record<string, unknown> & { content: { parts: Array<{ text?: unknown }> } }

function checkEmbedRequest(v: unknown, field: string): EmbedRequest {
  if (!isObj(v)) throw invalidRequest(`${field}: must be an object`, field)
  const content = v.content
  if (!isObj(content) || !Array.isArray(content.parts))
    throw invalidRequest(`${field}.content.parts: Field required (an array of parts)`, `${field}.content.parts`)
  content.parts.forEach((p, i) => {
    if (!isObj(p) || typeof p.text !== 'string')
      throw invalidRequest(`${field}.content.parts[${i}].text: Field required (a string)`, `${field}.content.parts[${i}].text`)
  })
  checkNumbers(v, { outputDimensionality: { integer: true, min: 1 } })
  return v as EmbedRequest
}

/** What OpenAI's embeddings carry of a request: its text and its dimensions (a batch's model is the URL's). */
const TRANSLATED = new Set(['content', 'outputDimensionality', 'model'])

const textOf = (r: EmbedRequest): string => r.content.parts.map((p) => p.text as string).join('\n')

/**
 * What Google reports for an embedding (`usageMetadata` where it sends one); where it sends none,
 * the input estimated from the text, marked so: an embedding is billed, never recorded at $0.
 */
function embeddingUsage(json: Record<string, unknown>, requests: EmbedRequest[]): Pick<WholeAnswer, 'usage' | 'estimated'> {
  const reported = geminiUsageOf(json)
  if (reported) return { usage: reported }
  const prompt = requests.reduce((n, r) => n + estimateTokens(textOf(r), CHARS_PER_TOKEN_TYPICAL), 0)
  const usage: NormalizedUsage = { ...ZERO_USAGE, prompt_tokens: prompt, total_tokens: prompt }
  return { usage, estimated: true }
}

/** OpenAI's embeddings answer, in Google's shape: one `embedding`, or `embeddings` for a batch. */
function fromOpenAI(json: Record<string, unknown>, batch: boolean): Record<string, unknown> {
  const data = Array.isArray(json.data) ? (json.data as Array<{ embedding?: unknown; index?: number }>) : []
  const values = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => ({ values: d.embedding }))
  return batch ? { embeddings: values } : { embedding: values[0] ?? { values: [] } }
}

/**
 * Google's `:embedContent` (`batch` false) and `:batchEmbedContents`. To a provider of kind
 * `gemini` the body goes as sent (a batch's requests naming the upstream model, as Google
 * requires); to any other, as OpenAI's embeddings (each request's text one input,
 * `outputDimensionality` as `dimensions`) and the answer back in Google's shape.
 */
export const embedContentWire = (batch: boolean): InboundWire => ({
  endpoint: 'embedContent',
  read(sent) {
    const { model, body } = sent as GeminiCall
    if (!isObj(body)) throw invalidRequest('The request body must be a JSON object.')
    let requests: EmbedRequest[]
    if (batch) {
      if (!Array.isArray(body.requests) || body.requests.length === 0) throw invalidRequest('requests: Field required (a non-empty array)', 'requests')
      requests = body.requests.map((r, i) => checkEmbedRequest(r, `requests[${i}]`))
    } else requests = [checkEmbedRequest(body, 'content')]
    const grammar: AnswerGrammar = {
      whole: ({ json, text }, out) => {
        if (isNative(out.target)) return { body: json, asSent: text, ...embeddingUsage(json, requests) }
        return { body: fromOpenAI(json, batch), usage: embeddingsUsage(json) }
      },
    }
    return {
      model,
      stream: false,
      envelope: undefined,
      body,
      control: () => ({ chat: false, prompt: requests.map(textOf) }),
      request(ctx, target) {
        const upstream = target.upstreamModel
        if (isNative(target)) {
          const native = batch ? { ...body, requests: requests.map((r) => ({ ...r, model: `models/${upstream}` })) } : body
          return { path: nativePath(upstream, batch ? 'batchEmbedContents' : 'embedContent'), body: native }
        }
        const dimensions = requests[0].outputDimensionality
        requests.forEach((r, i) => {
          for (const name of Object.keys(r)) {
            if (TRANSLATED.has(name)) continue
            const field = batch ? `requests[${i}].${name}` : name
            ctx.ignore({ name: field, reason: `OpenAI's embeddings have no counterpart; ${target.provider.id} did not get it` })
          }
        })
        return embeddingsRequestFor(target, { input: requests.map(textOf), ...(dimensions !== undefined && { dimensions }) })
      },
      deliver: (upstream, out) => deliverWith(grammar, upstream, out),
    }
  },
})

export const embedContent = embedContentWire(false)
export const batchEmbedContents = embedContentWire(true)
