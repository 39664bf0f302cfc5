/**
 * The gateway exactly as shipped (authentication, attribution, pricing, request records in
 * SQLite), in its own process so the benchmark can measure its CPU and RSS alone. Its `openai`
 * provider points at the mock; a fresh key is created in a temp data dir.
 * Usage: node --import tsx bench/gateway-process.ts --mock http://127.0.0.1:N [--log-bodies]
 * Prints {"url": ..., "key": ...} on stdout; SIGTERM closes it cleanly (flushing records and,
 * under --cpu-prof, writing the profile).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startGateway } from '../src/gateway/server'
import type { SecretStore } from '../src/gateway/secrets/secretStore'

const { values } = parseArgs({ options: { mock: { type: 'string' }, 'log-bodies': { type: 'boolean', default: false } } })
if (!values.mock) throw new Error('--mock <url> is required')

/** No keychain in a benchmark: the credential comes from OPENAI_API_KEY like on a headless server. */
const noSecrets: SecretStore = {
  description: 'none (benchmark)',
  get: async () => null,
  set: async () => {},
  delete: async () => false,
  unusableReason: async () => 'benchmark',
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'))
const running = await startGateway(
  { host: '127.0.0.1', port: 0, dataDir },
  { env: { OPENAI_API_KEY: 'sk-mock-bench' }, secrets: noSecrets, log: (m, e) => console.error(m, e ?? '') },
)
const gw = running.gateway
gw.providers.upsert('openai', 'openai', `${values.mock}/v1`)
if (values['log-bodies']) gw.settingsRepo.write({ log_bodies: true })
const { secret } = gw.keys.create('bench')
gw.configChanged()
process.stdout.write(JSON.stringify({ url: running.url, key: secret, pid: process.pid, dataDir }) + '\n')

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await running.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
