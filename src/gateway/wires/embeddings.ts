import type { InboundWire } from '../core/wire'
import type { Target } from '../pipeline/resolveModel'
import type { UpstreamRequest } from '../providers/adapter'
import { invalidRequest } from '../errors'
import { without } from '../jsonObject'
import { normalizeUsage } from '../pricing/usage'
import { adapterFor } from '../providers/kinds'
import { deliverWith, type AnswerGrammar } from './deliver'
import { checkNumbers } from './numberFields'

type Encoding = 'float' | 'base64'
type EmbeddingsBody = Record<string, unknown> & { model: string; encoding_format: Encoding }

function validateEmbeddingsBody(body: unknown): EmbeddingsBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object.')
  const b = body as Record<string, unknown>
  if (typeof b.model !== 'string' || b.model.trim() === '') throw invalidRequest('you must provide a model parameter', 'model')
  const input = b.input
  const isTokens = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t) && (t as number) >= 0)
  if (input === undefined) throw invalidRequest("Missing required parameter: 'input'.", 'input')
  if (typeof input === 'string') {
    if (input === '') throw invalidRequest('input cannot be an empty string', 'input')
  } else if (!Array.isArray(input) || input.length === 0) {
    throw invalidRequest('input must be a string, an array of strings, an array of tokens or an array of token arrays', 'input')
  } else if (!isTokens(input)) {
    input.forEach((item, i) => {
      if (typeof item === 'string' ? item === '' : !isTokens(item)) {
        throw invalidRequest(`input[${i}] must be a non-empty string or a non-empty array of token ids`, `input[${i}]`)
      }
    })
  }
  const encoding = b.encoding_format ?? 'float'
  if (encoding !== 'float' && encoding !== 'base64') throw invalidRequest("encoding_format must be 'float' or 'base64'", 'encoding_format')
  checkNumbers(b, { dimensions: { integer: true, min: 1 } })
  return { ...b, model: b.model, encoding_format: encoding }
}

/** Little-endian float32, the layout OpenAI's base64 embeddings use (and the SDKs decode). */
export function floatsToBase64(values: number[]): string {
  const buf = Buffer.alloc(values.length * 4)
  values.forEach((v, i) => buf.writeFloatLE(v, i * 4))
  return buf.toString('base64')
}

export function base64ToFloats(b64: string): number[] {
  const buf = Buffer.from(b64, 'base64')
  const out = new Array<number>(buf.length / 4)
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4)
  return out
}

/** Whatever encoding the provider answered in, the client gets the one it asked for. */
function reencode(data: unknown, want: Encoding): void {
  if (!Array.isArray(data)) return
  for (const item of data as Array<{ embedding?: unknown }>) {
    if (want === 'base64' && Array.isArray(item.embedding)) item.embedding = floatsToBase64(item.embedding as number[])
    else if (want === 'float' && typeof item.embedding === 'string') item.embedding = base64ToFloats(item.embedding)
  }
}

/** An embeddings answer's usage: OpenAI's usage block, which names no completion tokens. */
export const embeddingsUsage = (json: Record<string, unknown>) => normalizeUsage({ completion_tokens: 0, ...(json.usage as object) })

/** OpenAI's embeddings request for `target`; a 400 naming the model where its kind has no embeddings endpoint. */
export function embeddingsRequestFor(target: Target, body: Record<string, unknown>): UpstreamRequest {
  const request = adapterFor(target.provider.kind).embeddingsRequest({ ...body, model: target.upstreamModel })
  if (!request) throw invalidRequest(`provider ${target.provider.id} has no embeddings endpoint`, 'model')
  return request
}

/** OpenAI's embeddings: no preset, no stream; the answer comes back in the encoding the client asked for. */
export const embeddingsWire: InboundWire = {
  endpoint: 'embeddings',
  read(sent) {
    const sentBody = validateEmbeddingsBody(sent)
    const envelope = sentBody.gw
    const body = without(sentBody, 'gw') as EmbeddingsBody
    const grammar: AnswerGrammar = {
      whole({ json }) {
        reencode(json.data, body.encoding_format)
        return { body: json, usage: embeddingsUsage(json) }
      },
    }
    return {
      model: body.model,
      stream: false,
      envelope,
      body,
      control: () => ({ chat: false, prompt: body.input }),
      request: (_ctx, target) => embeddingsRequestFor(target, body),
      deliver: (upstream, out) => deliverWith(grammar, upstream, out),
    }
  },
}
