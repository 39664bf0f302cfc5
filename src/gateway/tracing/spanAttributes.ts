import type { Attributes } from '@opentelemetry/api'
import type { Attempt, RequestRecord } from '../store/requestsRepo'
import { COUNT_TOKENS_ENDPOINT, GEMINI_COUNT_TOKENS_ENDPOINT, INPUT_TOKENS_ENDPOINT } from '../store/requestsRepo'
import type { Provider } from '../providers/registry'
import { dialectOf } from '../providers/quirks'

/*
 * The GenAI semantic conventions' names (1.45; still "development", so written here rather than
 * imported from the conventions' incubating entry point, as its authors advise), and the gateway's own.
 */
const OPERATION = 'gen_ai.operation.name'
const PROVIDER = 'gen_ai.provider.name'
const REQUEST_MODEL = 'gen_ai.request.model'
const RESPONSE_MODEL = 'gen_ai.response.model'
const INPUT_TOKENS = 'gen_ai.usage.input_tokens'
const OUTPUT_TOKENS = 'gen_ai.usage.output_tokens'
const STATUS_CODE = 'http.response.status_code'
const ERROR_TYPE = 'error.type'

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

/** What a request's span says of it, all from its record: never its prompt or its answer. */
export function requestAttributes(record: RequestRecord, providers: ProviderLookup): Attributes {
  const a: Attributes = {
    [OPERATION]: operationOf(record),
    'gw.request_id': record.id,
    'gw.endpoint': record.endpoint,
    'gw.outcome': record.outcome,
    [STATUS_CODE]: record.status,
  }
  if (record.provider !== null) {
    a[PROVIDER] = providerName(record.provider, providers)
    a['gw.provider'] = record.provider
  }
  if (record.model !== null) a[REQUEST_MODEL] = record.model
  if (record.upstream_model !== null) a[RESPONSE_MODEL] = record.upstream_model
  const usage = record.usage
  if (usage) {
    a[INPUT_TOKENS] = usage.prompt_tokens
    a[OUTPUT_TOKENS] = usage.completion_tokens
  }
  const cost = record.cost
  if (cost?.final_usd != null) a['gw.cost.usd'] = cost.final_usd
  if (cost?.unpriced_reason) a['gw.cost.unpriced_reason'] = cost.unpriced_reason
  if (record.preset !== null) a['gw.preset'] = record.preset
  const session = record.attribution.session_id
  if (session !== null) a['gw.session_id'] = session
  if (record.source_tool) a['gw.source_tool'] = record.source_tool
  if (record.instance) a['gw.instance'] = record.instance
  if (record.fallback_used) a['gw.fallback_used'] = true
  if (record.response_cache) a['gw.response_cache.hit'] = record.response_cache.hit
  if (record.error) a[ERROR_TYPE] = record.error.code ?? record.error.type
  return a
}

/** What an upstream attempt's span says of it. */
export function attemptAttributes(record: RequestRecord, attempt: Attempt, providers: ProviderLookup): Attributes {
  const a: Attributes = {
    [OPERATION]: operationOf(record),
    [PROVIDER]: providerName(attempt.provider, providers),
    [REQUEST_MODEL]: attempt.model,
    'gw.provider': attempt.provider,
  }
  if (attempt.status !== null) a[STATUS_CODE] = attempt.status
  if (attempt.error !== null) a[ERROR_TYPE] = attempt.status === null ? 'no_response' : String(attempt.status)
  return a
}
