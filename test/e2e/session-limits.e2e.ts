import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, screenshot, skipReason, type WatchedPage } from './support/browser'
import { signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { KeyDetailPage, KeysPage } from './pages/keys'
import { SettingsPage } from './pages/settings'
import { RequestsPage } from './pages/requests'

const skip = skipReason()

/** 48 characters as JSON: the gateway expects the 12 prompt tokens the fake reports, so each call reserves its cost, $0.0000048. */
const messages = [{ role: 'user' as const, content: 'nineteen characters' }]

describe('session limits and the session alert in the dashboard', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, keys: KeysPage, keyDetail: KeyDetailPage, settings: SettingsPage, requests: RequestsPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await signedIn(stack, browser)
    const p = w.page
    ;[shell, keys, keyDetail, settings, requests] = [new Shell(p), new KeysPage(p), new KeyDetailPage(p), new SettingsPage(p), new RequestsPage(p)]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('limits set in the key’s policy stop the session’s next call; the alert shows a banner linking to the session’s requests until dismissed', async () => {
    await shell.nav('keys')
    const key = await keys.create('claude-code')
    await keys.closeSecret()
    await keys.open('claude-code')
    await keyDetail.setSessionLimits('0.00001', '10')
    await keyDetail.waitForToast('Policy saved')
    assert.deepEqual(JSON.parse((await stack.running.gateway.store.keys.all()).find((k) => k.name === 'claude-code')!.policy), {
      max_session_usd: 0.00001,
      max_session_requests: 10,
    })

    await shell.nav('settings')
    await settings.waitForLoaded()
    await settings.setSessionAlert('0.000009')
    await settings.waitForToast('Settings saved')

    const agent = new OpenAI({ baseURL: stack.baseURL, apiKey: key.secret, maxRetries: 0, defaultHeaders: { 'x-gw-session-id': 'sess-e2e' } })
    const ask = () => agent.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: 5 })
    await ask()
    await ask()
    const refused: any = await ask().catch((e) => e)
    assert.equal(refused.status, 400)
    assert.match(refused.message, /could take this session past its \$0.00001 limit set on key "claude-code"/)

    const alert = shell.sessionAlert('sess-e2e')
    await alert.waitFor()
    assert.match(await alert.innerText(), /Session sess-e2e \(openai-js \d+\.\d+\.\d+\) on key claude-code passed \$0\.000009: it has cost \$0\.0000096\./)
    await screenshot(w.page, 'session-alert-banner')
    await alert.getByTestId('session-alert-requests').click()
    await requests.waitForLoaded()
    await requests.waitForCount('request-row', 3)

    await shell.dismissSessionAlerts()
    // Dismissed in this browser: after a reload the poll asks only for alerts since then.
    const res = await requests.answerOf('sessions.alerts', () => w.page.reload())
    assert.deepEqual(await res.json(), [])
    await requests.waitForLoaded()
    assert.equal(await shell.id('session-alerts').count(), 0)
  })
})
