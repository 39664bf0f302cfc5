import fs from 'node:fs'
import path from 'node:path'
import type { SecretStore } from '../../../src/gateway/secrets/secretStore'
import { KeychainSecretStore } from '../../../src/gateway/secrets/secretStore'
import { startGateway, type RunningGateway } from '../../../src/gateway/server'
import type { ConfigOverrides } from '../../../src/gateway/config'
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai'
import { tempDir } from '../../support/tempDir'
import { MemorySecretStore } from '../../support/memorySecretStore'
import { TEST_SECRET_KEY, testStoreFor } from '../../support/harness'
import { freePort } from '../../support/freePort'

export interface Stack {
  url: string
  baseURL: string
  fake: FakeOpenAI
  running: RunningGateway
  dataDir: string
  /** Where provider keys saved from the dashboard go. */
  secretsDescription: string
  close(): Promise<void>
}

/**
 * A real gateway (the /api management contract, /v1 and the built dashboard) on a loopback port
 * with a fresh data dir, its `openai` provider pointed at a fake OpenAI server; `env` adds to its
 * environment; `clock`, when given, is the gateway's time (records' times, what has expired).
 */
export async function startStack(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = {}, clock?: () => number): Promise<Stack> {
  const fake = await startFakeOpenAI()
  const dataDir = tempDir('gw-e2e-')
  // The real keychain when a D-Bus session exists (as under scripts/test.mjs); otherwise memory.
  // (On PostgreSQL the gateway keeps provider keys in the database, under TEST_SECRET_KEY.)
  const secrets: SecretStore = process.env.DBUS_SESSION_BUS_ADDRESS
    ? new KeychainSecretStore(`GW Gateway e2e ${process.pid}`)
    : new MemorySecretStore('memory (no OS keychain on this machine)')
  // A concrete free port rather than port 0: settings.get reports the configured port, and 0
  // fails the contract's `port >= 1` (a backend issue, reported).
  const running = await startGateway(
    { host: '127.0.0.1', port: await freePort(), dataDir, logFile: path.join(dataDir, 'gw.log'), ...(await testStoreFor(dataDir)), ...overrides },
    { env: { OPENAI_API_KEY: fake.apiKey, GW_SECRET_KEY: TEST_SECRET_KEY, ...env }, secrets, ...(clock && { clock }) },
  )
  await running.gateway.store.providers.upsert('openai', 'openai', fake.url)
  await running.gateway.configChanged()
  return {
    url: running.url,
    baseURL: `${running.url}/v1`,
    fake,
    running,
    dataDir,
    secretsDescription: running.gateway.secrets.description,
    async close() {
      await running.close()
      await fake.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
