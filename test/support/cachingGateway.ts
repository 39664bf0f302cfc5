/**
 * A gateway whose `anthropic` provider is the fake Anthropic playing the prompt cache and whose
 * `openai` is the fake OpenAI, on the test store, its clock the caller's: what the prompt-cache
 * tests (the doctor, the Overview's figures) run against.
 */
import fs from 'node:fs'
import { startGateway, type RunningGateway } from '../../src/gateway/server'
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic'
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai'
import { testStoreFor } from './harness'
import { tempDir } from './tempDir'

export interface CachingGateway {
  gateway: RunningGateway
  anthropic: FakeAnthropic
  openai: FakeOpenAI
  dataDir: string
  close(): Promise<void>
}

export async function startCachingGateway(clock: () => number): Promise<CachingGateway> {
  const anthropic = await startFakeAnthropic({ promptCache: true })
  const openai = await startFakeOpenAI()
  const dataDir = tempDir()
  const gateway = await startGateway(
    { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', ...(await testStoreFor(dataDir)) },
    { env: { ANTHROPIC_API_KEY: anthropic.apiKey, OPENAI_API_KEY: openai.apiKey }, routing: { maxRetries: 0 }, clock },
  )
  await gateway.gateway.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
  await gateway.gateway.store.providers.upsert('openai', 'openai', openai.url)
  await gateway.gateway.configChanged()
  return {
    gateway,
    anthropic,
    openai,
    dataDir,
    async close() {
      await gateway.close()
      await anthropic.close()
      await openai.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
