import type { ProviderDialect, ProviderWire } from '../../contract/providers'

/** Providers a user can use by adding a key alone; their ids are the prefixes in `<provider-id>/<model>`. */
export interface ProviderDefinition {
  id: string
  kind: string
  label: string
  baseUrl: string
  /** Local servers (Ollama, LM Studio) take no key and cost nothing. */
  local: boolean
  /** Kind openai: the wires its API serves (chat completions when absent). */
  wire?: ProviderWire
  /**
   * Kind openai: the dialect it speaks wherever its base URL points (a proxy, a test's fake);
   * absent, its base URL's host tells (`dialectOf`).
   */
  dialect?: ProviderDialect
}

export const builtinProviders: ProviderDefinition[] = [
  { id: 'openai', kind: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', local: false, wire: 'both', dialect: 'openai' },
  // The native Messages API: prompt caching, cache-write usage and Anthropic's error types need it.
  { id: 'anthropic', kind: 'anthropic', label: 'Anthropic', baseUrl: 'https://api.anthropic.com/v1', local: false },
  // Both of Google's APIs under one key: the native one for the Gemini wire, its OpenAI layer for chat.
  { id: 'gemini', kind: 'gemini', label: 'Google Gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta', local: false },
  { id: 'mistral', kind: 'openai', label: 'Mistral', baseUrl: 'https://api.mistral.ai/v1', local: false },
  { id: 'deepseek', kind: 'openai', label: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1', local: false },
  // xAI recommends its Responses API; Groq's and OpenRouter's are in beta and stateless (no
  // previous_response_id), as are Ollama's (since 0.13.3) and LM Studio's.
  { id: 'xai', kind: 'openai', label: 'xAI', baseUrl: 'https://api.x.ai/v1', local: false, wire: 'both', dialect: 'xai' },
  { id: 'groq', kind: 'openai', label: 'Groq', baseUrl: 'https://api.groq.com/openai/v1', local: false, wire: 'both' },
  { id: 'together', kind: 'openai', label: 'Together', baseUrl: 'https://api.together.xyz/v1', local: false },
  { id: 'openrouter', kind: 'openai', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', local: false, wire: 'both' },
  { id: 'ollama', kind: 'openai', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', local: true, wire: 'both' },
  { id: 'lmstudio', kind: 'openai', label: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', local: true, wire: 'both' },
]
