import type { ProviderAdapter } from './adapter'
import { anthropicAdapter } from './anthropic/adapter'
import { geminiAdapter } from './gemini/adapter'
import { openaiAdapter } from './openai/adapter'

/** Provider kinds this build speaks. */
export const adapters: Record<string, ProviderAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
}

export const providerKinds = () => Object.keys(adapters)

export function adapterFor(kind: string): ProviderAdapter {
  const a = adapters[kind]
  if (!a) throw new Error(`unknown provider kind "${kind}" (known: ${providerKinds().join(', ')})`)
  return a
}
