// A key's page: its usage over the last 7 days asks up to now when refreshed, however long the page has been open.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { signedIn } from './support/views'
import { KeysPage } from './pages/keys'

const skip = skipReason()

describe("a key's usage", { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await signedIn(stack, browser)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('Refresh asks up to now: a request made after the page opened (in a later minute) is counted', async () => {
    const gw = stack.running.gateway
    const key = await gw.store.keys.create('usage-later')
    await gw.configChanged()
    // The page's clock starts three minutes behind the gateway's, so the page opens on a range that
    // ended two minutes ago; the request below is recorded by the gateway's own clock, and Refresh
    // is pressed once the page's clock caught up.
    await w.page.clock.install({ time: Date.now() - 3 * 60_000 })
    await w.page.reload()
    const keys = new KeysPage(w.page)
    await keys.go(`#/keys/${key.info.id}`)
    await keys.id('key-usage-empty').waitFor()
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: key.secret, maxRetries: 0 })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    await w.page.clock.setSystemTime(Date.now())
    await keys.answerOf('analytics.overview', () => keys.id('key-usage-refresh').click())
    await keys.waitForText(keys.id('key-usage-totals'), /^1 request · /)
    assert.match(await keys.id('key-usage-totals').innerText(), /0 errors$/)
  })
})
