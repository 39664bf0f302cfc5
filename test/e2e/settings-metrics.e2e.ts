import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { freePort } from '../support/freePort'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertAccessible, assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { SettingsPage } from './pages/settings'

const skip = skipReason()
const TOKEN = 'never-shown-in-the-dashboard'

describe('Settings says where Prometheus scrapes a gateway with metrics on', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let port: number

  before(async () => {
    buildApp()
    port = await freePort()
    stack = await startStack({ metricsPort: port, metricsToken: TOKEN })
    browser = await launch()
    w = await signedIn(stack, browser)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('shows the metrics URL and that a token is required, never the token, at 1280 and 390 px in both themes', async () => {
    const [shell, settings] = [new Shell(w.page), new SettingsPage(w.page)]
    await shell.nav('settings')
    await settings.waitForLoaded()
    assert.equal(await settings.metrics(), `http://127.0.0.1:${port}/metrics\nBearer token required`)
    assert.ok(!(await w.page.content()).includes(TOKEN), 'the token is nowhere on the page')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the settings page')
    await assertAccessible(w.page, 'the settings page')
    await shots(w.page, 'settings-metrics', () => settings.id('settings-metrics').waitFor())
  })
})
