import type { PlaygroundWire } from '../../../../contract/playground'

/** What the Playground says of each wire it can send through (where each posts: playgroundPath). */
export const WIRES: Record<PlaygroundWire, { name: string; hint: string; maxTemperature: number; stopLabel: string }> = {
  chat: {
    name: 'Chat completions',
    hint: 'What OpenAI SDKs and most editors send.',
    maxTemperature: 2,
    stopLabel: 'Finish reason',
  },
  messages: {
    name: 'Anthropic Messages',
    hint: 'What Claude Code and the Anthropic SDKs send: system apart from the messages, max_tokens required.',
    maxTemperature: 1,
    stopLabel: 'Stop reason',
  },
  responses: {
    name: 'OpenAI Responses',
    hint: 'What Codex and the OpenAI SDKs’ responses.create send: system as instructions, messages as input items, nothing stored at the provider. Translated for providers that do not serve Responses.',
    maxTemperature: 2,
    stopLabel: 'Status',
  },
  gemini: {
    name: 'Google Gemini',
    hint: 'What Gemini CLI and Google’s genai SDKs send: the model in the path, system as systemInstruction, messages as contents (the assistant as model), parameters in generationConfig. Translated for providers that do not speak it.',
    maxTemperature: 2,
    stopLabel: 'Finish reason',
  },
}
