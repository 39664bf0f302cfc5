import fs from 'node:fs'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import type { GatewayOptions } from '../../src/gateway/gateway'
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic'
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai'
import { tempDir } from './tempDir'

/** A function tool as the Responses API takes it. */
export const weather = {
  type: 'function' as const,
  name: 'weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
}

/** A gateway in front of the three kinds of provider a Responses request can meet. */
export interface TranslatedStack {
  gateway: RunningGateway
  /** OpenAI's provider marked as serving chat completions only: every Responses request on it is translated. */
  openai: FakeOpenAI
  /** Anthropic, reached through its chat-completions adapter. */
  anthropic: FakeAnthropic
  /** `groq`, marked as serving Responses itself (the native path). */
  native: FakeOpenAI
  dataDir: string
  close(): Promise<void>
}

export async function startTranslatedStack(options: Pick<GatewayOptions, 'clock'> = {}): Promise<TranslatedStack> {
  const openai = await startFakeOpenAI()
  const native = await startFakeOpenAI()
  const anthropic = await startFakeAnthropic()
  const dataDir = tempDir()
  const gateway = await startGateway(
    { port: 0, dataDir, logLevel: 'silent' },
    {
      env: { OPENAI_API_KEY: openai.apiKey, ANTHROPIC_API_KEY: anthropic.apiKey, GROQ_API_KEY: native.apiKey },
      routing: { maxRetries: 0, cooldownAfterFailures: 1_000_000 },
      ...options,
    },
  )
  const gw = gateway.gateway
  await gw.store.providers.upsert('openai', 'openai', openai.url, {}, 'chat')
  await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
  await gw.store.providers.upsert('groq', 'openai', native.url, {}, 'both')
  await gw.configChanged()
  return {
    gateway,
    openai,
    anthropic,
    native,
    dataDir,
    async close() {
      await gateway.close()
      await openai.close()
      await native.close()
      await anthropic.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
