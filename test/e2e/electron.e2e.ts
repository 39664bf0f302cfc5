// The desktop app end to end with Playwright's Electron driver: launch, first-run setup (sign
// in), create a key, send a Playground message over IPC. Needs the Electron binary; without it
// (as where it cannot be downloaded) the test says so and skips.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { _electron, type ElectronApplication, type Page } from 'playwright-core'
import { startGateway } from '../../src/gateway/server'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { tempDir } from '../support/tempDir'
import { ROOT } from '../support/build'

const ELECTRON_DIST = path.join(ROOT, 'node_modules/electron/dist')

function skipReason(): string | null {
  if (!fs.existsSync(ELECTRON_DIST)) {
    return `no Electron binary at node_modules/electron/dist (it is fetched by "npm start" / node node_modules/electron/install.js, which needs network access to github.com)`
  }
  return null
}

const skip = skipReason()
if (skip) console.log(`# electron e2e skipped: ${skip}`)

describe('the desktop app (Electron)', { skip: skip ?? false }, () => {
  let app: ElectronApplication
  let page: Page
  let fake: FakeOpenAI
  let dataDir: string
  const errors: string[] = []

  before(async () => {
    // Native modules rebuilt for Electron and the app built into .electron-native.
    const prep = spawnSync(process.execPath, [path.join(ROOT, 'scripts/desktop.mjs'), '--prepare'], { cwd: ROOT, stdio: 'inherit' })
    assert.equal(prep.status, 0, 'scripts/desktop.mjs --prepare failed')
    fake = await startFakeOpenAI()
    dataDir = tempDir('gw-electron-e2e-')
    // Point the openai provider at the fake upstream, on a free port (0 → a free one, remembered).
    const seed = await startGateway({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' }, { env: {} })
    await seed.gateway.store.providers.upsert('openai', 'openai', fake.url)
    await seed.gateway.store.settings.write({ port: 0 })
    await seed.gateway.configChanged()
    await seed.close()
    app = await _electron.launch({
      args: [path.join(ROOT, '.electron-native'), ...(process.platform === 'linux' ? ['--no-sandbox'] : [])],
      cwd: ROOT,
      env: {
        ...process.env,
        GW_DATA_DIR: dataDir,
        GW_LOG_FILE: path.join(dataDir, 'gw.log'),
        OPENAI_API_KEY: fake.apiKey,
        GW_KEYCHAIN_SERVICE: `GW Gateway e2e ${process.pid}`,
      } as Record<string, string>,
      timeout: 60_000,
    })
    page = await app.firstWindow()
    page.on('pageerror', (e) => errors.push(e.message))
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
  })
  after(async () => {
    await app?.close()
    await fake?.close()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('loads from app://gw/ with the bridge and no Node in the page', async () => {
    assert.match(page.url(), /^app:\/\/gw\//)
    const shape = await page.evaluate(() => ({
      gw: typeof (globalThis as any).gw,
      require: typeof (globalThis as any).require,
      process: typeof (globalThis as any).process,
      ipc: typeof (globalThis as any).ipcRenderer,
    }))
    assert.deepEqual(shape, { gw: 'object', require: 'undefined', process: 'undefined', ipc: 'undefined' })
    const prefs = await app.evaluate(({ BrowserWindow }) => {
      const w = BrowserWindow.getAllWindows()[0]
      const p = (w.webContents as any).getLastWebPreferences()
      return { contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration }
    })
    assert.deepEqual(prefs, { contextIsolation: true, sandbox: true, nodeIntegration: false })
  })

  it('errors cross the bridge with code, field and status', async () => {
    const e = await page.evaluate(async () => {
      try {
        await (globalThis as any).gw['auth.setup']({ username: 'owner', password: 'short' })
        return null
      } catch (err: any) {
        return { code: err.code, field: err.field, status: err.status, message: err.message }
      }
    })
    assert.deepEqual(e, { code: 'invalid_input', field: 'password', status: 400, message: 'password: must be at least 10 characters' })
  })

  it('first run: creates the owner account and is signed in', async () => {
    await page.getByTestId('setup-form').waitFor()
    await page.getByTestId('setup-username').fill('owner')
    await page.getByTestId('setup-password').fill('correct-horse-battery')
    await page.getByTestId('setup-confirm').fill('correct-horse-battery')
    await page.getByTestId('setup-confirm').press('Enter')
    await page.getByText('owner').first().waitFor()
  })

  it('creates a key and sends a Playground message, streamed over IPC', async () => {
    await page.evaluate(() => ((globalThis as any).location.hash = '/keys'))
    await page.getByTestId('create-key').click()
    await page.getByTestId('key-name').fill('desktop')
    await page.getByTestId('key-name').press('Enter')
    await page.getByTestId('key-secret').waitFor()
    await page.getByTestId('key-secret-done').click()
    const keyId = await page.evaluate(
      async () => ((await (globalThis as any).gw['keys.list']({})) as any).items?.[0]?.id ?? ((await (globalThis as any).gw['keys.list']({})) as any)[0]?.id,
    )
    await page.evaluate(() => ((globalThis as any).location.hash = '/playground'))
    await page.getByTestId('pg-form').waitFor()
    await page.getByTestId('pg-key').selectOption(keyId)
    await page.getByTestId('pg-model').selectOption('openai/gpt-4o-mini')
    await page.getByTestId('pg-input').fill('Hello from the desktop')
    await page.getByTestId('pg-input').press('Enter')
    await page.getByTestId('run-result').or(page.getByTestId('run-error')).first().waitFor()
    const reply = await page.getByTestId('pg-message-assistant').last().locator('textarea').inputValue()
    assert.equal(reply, 'Hello from the fake provider.')
    assert.deepEqual(errors, [])
  })
})
