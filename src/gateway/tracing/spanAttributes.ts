import type { Attempt, RequestRecord } from '../store/requestsRepo'
import type { Bodies } from '../store/recordBatch'
import { COUNT_TOKENS_ENDPOINT, GEMINI_COUNT_TOKENS_ENDPOINT, INPUT_TOKENS_ENDPOINT } from '../store/requestsRepo'
import type { Provider } from '../providers/registry'
import { dialectOf } from '../providers/quirks'
import { attributeKey, SPAN_ATTRIBUTES, writeAttribute, type AttributeKey, type ProtoWriter } from './otlpWriter'

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

/** One attribute of the span being written. */
const put = (w: ProtoWriter, key: AttributeKey, value: string | number | boolean) => writeAttribute(w, SPAN_ATTRIBUTES, key, value)

/** What a request's span says of it, all from its record (never its prompt or its answer), as the attributes of the span being written. */
export function writeRequestAttributes(w: ProtoWriter, record: RequestRecord, providers: ProviderLookup): void {
  put(w, OPERATION, operationOf(record))
  put(w, REQUEST_ID, record.id)
  put(w, ENDPOINT, record.endpoint)
  put(w, OUTCOME, record.outcome)
  put(w, STATUS_CODE, record.status)
  if (record.provider !== null) {
    put(w, PROVIDER, providerName(record.provider, providers))
    put(w, GW_PROVIDER, record.provider)
  }
  if (record.model !== null) put(w, REQUEST_MODEL, record.model)
  if (record.upstream_model !== null) put(w, RESPONSE_MODEL, record.upstream_model)
  const usage = record.usage
  if (usage) {
    put(w, INPUT_TOKENS, usage.prompt_tokens)
    put(w, OUTPUT_TOKENS, usage.completion_tokens)
  }
  const cost = record.cost
  if (cost?.final_usd != null) put(w, COST, cost.final_usd)
  if (cost?.unpriced_reason) put(w, UNPRICED, cost.unpriced_reason)
  if (record.preset !== null) put(w, PRESET, record.preset)
  const session = record.attribution.session_id
  if (session !== null) put(w, SESSION, session)
  if (record.source_tool) put(w, SOURCE_TOOL, record.source_tool)
  if (record.instance) put(w, INSTANCE, record.instance)
  if (record.fallback_used) put(w, FALLBACK_USED, true)
  if (record.response_cache) put(w, CACHE_HIT, record.response_cache.hit)
  if (record.error) put(w, ERROR_TYPE, record.error.code ?? record.error.type)
}

/** The prompt and the answer as logged, as attributes of the request's span (only where the operator asked for them: see requestTracer). */
export function writeContentAttributes(w: ProtoWriter, bodies: Bodies): void {
  if (bodies.request !== null) put(w, REQUEST_BODY, bodies.request)
  if (bodies.response !== null) put(w, RESPONSE_BODY, bodies.response)
}

/** What an upstream attempt's span says of it, as the attributes of the span being written. */
export function writeAttemptAttributes(w: ProtoWriter, record: RequestRecord, attempt: Attempt, providers: ProviderLookup): void {
  put(w, OPERATION, operationOf(record))
  put(w, PROVIDER, providerName(attempt.provider, providers))
  put(w, REQUEST_MODEL, attempt.model)
  put(w, GW_PROVIDER, attempt.provider)
  if (attempt.status !== null) put(w, STATUS_CODE, attempt.status)
  if (attempt.error !== null) put(w, ERROR_TYPE, attempt.status === null ? 'no_response' : String(attempt.status))
}
