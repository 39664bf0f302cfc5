import type { Attempt, RequestRecord } from '../store/requestsRepo'
import type { Bodies } from '../store/recordBatch'
import { COUNT_TOKENS_ENDPOINT, GEMINI_COUNT_TOKENS_ENDPOINT, INPUT_TOKENS_ENDPOINT } from '../store/requestsRepo'
import type { Provider } from '../providers/registry'
import { dialectOf } from '../providers/quirks'
import { attributeKey, SPAN_ATTRIBUTES, writeAttribute, type AttributeKey, type ProtoWriter } from './otlpWriter'
import type { RowReader, TraceRow } from './traceRow'

/*
 * The GenAI semantic conventions' names (1.45; still "development", so written here rather than
 * imported from the conventions' incubating entry point, as its authors advise), and the gateway's
 * own; each key's bytes are written once, here, not for every span.
 */
const OPERATION = attributeKey('gen_ai.operation.name')
const PROVIDER = attributeKey('gen_ai.provider.name')
const REQUEST_MODEL = attributeKey('gen_ai.request.model')
const RESPONSE_MODEL = attributeKey('gen_ai.response.model')
const INPUT_TOKENS = attributeKey('gen_ai.usage.input_tokens')
const OUTPUT_TOKENS = attributeKey('gen_ai.usage.output_tokens')
const STATUS_CODE = attributeKey('http.response.status_code')
const ERROR_TYPE = attributeKey('error.type')
const REQUEST_ID = attributeKey('gw.request_id')
const ENDPOINT = attributeKey('gw.endpoint')
const OUTCOME = attributeKey('gw.outcome')
const GW_PROVIDER = attributeKey('gw.provider')
const COST = attributeKey('gw.cost.usd')
const UNPRICED = attributeKey('gw.cost.unpriced_reason')
const PRESET = attributeKey('gw.preset')
const SESSION = attributeKey('gw.session_id')
const SOURCE_TOOL = attributeKey('gw.source_tool')
const INSTANCE = attributeKey('gw.instance')
const FALLBACK_USED = attributeKey('gw.fallback_used')
const CACHE_HIT = attributeKey('gw.response_cache.hit')
const REQUEST_BODY = attributeKey('gw.request.body')
const RESPONSE_BODY = attributeKey('gw.response.body')

/** The conventions' operation for each endpoint; a token count has none there, so it is named as the providers name it. */
const OPERATIONS: Record<RequestRecord['endpoint'], string> = {
  'chat.completions': 'chat',
  messages: 'chat',
  responses: 'chat',
  generateContent: 'generate_content',
  embeddings: 'embeddings',
  embedContent: 'embeddings',
  [COUNT_TOKENS_ENDPOINT]: 'count_tokens',
  [INPUT_TOKENS_ENDPOINT]: 'count_tokens',
  [GEMINI_COUNT_TOKENS_ENDPOINT]: 'count_tokens',
}

export const operationOf = (record: Pick<RequestRecord, 'endpoint'>) => OPERATIONS[record.endpoint]

/** The conventions' well-known names by whose API a provider speaks; a generic OpenAI-compatible one goes by its id in the gateway. */
const WELL_KNOWN: Record<string, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'gcp.gemini', xai: 'x_ai' }

/** Finds a provider by its id in the gateway (the registry as it is now). */
export type ProviderLookup = (id: string) => Provider | undefined

function providerName(id: string, providers: ProviderLookup): string {
  const provider = providers(id)
  if (!provider) return id
  return WELL_KNOWN[provider.kind === 'anthropic' ? 'anthropic' : (dialectOf(provider) ?? '')] ?? id
}

/** A request span's name, as the conventions make it: the operation, then the model. */
export const spanName = (operation: string, model: string | null) => (model ? `${operation} ${model}` : operation)

/** One attribute of the span being written; none for a value the request did not have. */
const put = (w: ProtoWriter, key: AttributeKey, value: string | number | boolean | null) => {
  if (value !== null) writeAttribute(w, SPAN_ATTRIBUTES, key, value)
}

/*
 * Each pair below puts what a span says into a trace's row on the request's thread (`append…`,
 * from the record, never its prompt or its answer unless asked) and writes it as the span's
 * attributes on the span thread (`write…`, reading the row in the same order). The provider's
 * conventional name is looked up on the request's thread, where the registry is.
 */

/** The request span's attributes after its model (which its name holds, and the caller reads first). */
export function appendRequestAttributes(row: TraceRow, record: RequestRecord, providers: ProviderLookup): void {
  const usage = record.usage
  const cost = record.cost
  row.push(
    record.id,
    record.outcome,
    record.status,
    record.provider === null ? null : providerName(record.provider, providers),
    record.provider,
    record.upstream_model,
    usage ? usage.prompt_tokens : null,
    usage ? usage.completion_tokens : null,
    cost?.final_usd ?? null,
    cost?.unpriced_reason || null,
    record.preset,
    record.attribution.session_id,
    record.source_tool || null,
    record.instance || null,
    record.fallback_used || null,
    record.response_cache ? record.response_cache.hit : null,
    record.error ? (record.error.code ?? record.error.type) : null,
  )
}

export function writeRequestAttributes(w: ProtoWriter, r: RowReader, endpoint: RequestRecord['endpoint'], model: string | null): void {
  put(w, OPERATION, operationOf({ endpoint }))
  put(w, REQUEST_ID, r.next())
  put(w, ENDPOINT, endpoint)
  put(w, OUTCOME, r.next())
  put(w, STATUS_CODE, r.next())
  put(w, PROVIDER, r.next())
  put(w, GW_PROVIDER, r.next())
  put(w, REQUEST_MODEL, model)
  put(w, RESPONSE_MODEL, r.next())
  put(w, INPUT_TOKENS, r.next())
  put(w, OUTPUT_TOKENS, r.next())
  put(w, COST, r.next())
  put(w, UNPRICED, r.next())
  put(w, PRESET, r.next())
  put(w, SESSION, r.next())
  put(w, SOURCE_TOOL, r.next())
  put(w, INSTANCE, r.next())
  put(w, FALLBACK_USED, r.next())
  put(w, CACHE_HIT, r.next())
  put(w, ERROR_TYPE, r.next())
}

/** The prompt and the answer as logged (only where the operator asked for them in spans: see requestTracer), or nothing. */
export function appendContent(row: TraceRow, bodies: Bodies | null): void {
  row.push(bodies?.request ?? null, bodies?.response ?? null)
}

export function writeContentAttributes(w: ProtoWriter, r: RowReader): void {
  put(w, REQUEST_BODY, r.next())
  put(w, RESPONSE_BODY, r.next())
}

/** An upstream attempt's span's attributes after its model and provider (which the caller reads first). */
export function appendAttemptAttributes(row: TraceRow, attempt: Attempt, providers: ProviderLookup): void {
  row.push(providerName(attempt.provider, providers), attempt.status, attempt.error)
}

/** Writes them; returns the attempt's error, for its span's status. */
export function writeAttemptAttributes(w: ProtoWriter, r: RowReader, operation: string, provider: string, model: string): string | null {
  const name = r.next()
  const status = r.next()
  const error = r.string()
  put(w, OPERATION, operation)
  put(w, PROVIDER, name)
  put(w, REQUEST_MODEL, model)
  put(w, GW_PROVIDER, provider)
  put(w, STATUS_CODE, status)
  if (error !== null) put(w, ERROR_TYPE, status === null ? 'no_response' : String(status))
  return error
}
