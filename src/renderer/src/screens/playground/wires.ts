import type { PlaygroundWire } from '../../../../contract/playground'

/** What the Playground says of each wire it can send through. */
export const WIRES: Record<PlaygroundWire, { name: string; path: string; hint: string; maxTemperature: number; stopLabel: string }> = {
  chat: {
    name: 'Chat completions',
    path: '/v1/chat/completions',
    hint: 'What OpenAI SDKs and most editors send.',
    maxTemperature: 2,
    stopLabel: 'Finish reason',
  },
  messages: {
    name: 'Anthropic Messages',
    path: '/v1/messages',
    hint: 'What Claude Code and the Anthropic SDKs send: system apart from the messages, max_tokens required.',
    maxTemperature: 1,
    stopLabel: 'Stop reason',
  },
  responses: {
    name: 'OpenAI Responses',
    path: '/v1/responses',
    hint: 'What Codex and the OpenAI SDKs’ responses.create send: system as instructions, messages as input items, nothing stored at the provider. Translated for providers that do not serve Responses.',
    maxTemperature: 2,
    stopLabel: 'Status',
  },
}
