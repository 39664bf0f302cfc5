/**
 * The prompt-cache doctor on the dashboard: a session's cache panel (verdict, what the cache saved
 * and wasted, each miss and why) and a request's cache section, against the fake Anthropic playing
 * the prompt cache, at 1280 and 390 px in both themes.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { cachingAnthropic, sessionMissingOnce, type CachingAnthropic } from './support/promptCache'
import { Shell } from './pages/shell'
import { SessionDetailPage, SessionsPage } from './pages/sessions'
import { RequestDetailPage } from './pages/requests'

const skip = skipReason()
const SESSION = 'refactor-the-router'

describe("the prompt-cache doctor on a session's page and a request's", { skip: skip ?? false }, () => {
  let stack: Stack
  let anthropic: CachingAnthropic
  let browser: Browser
  let w: WatchedPage

  before(async () => {
    buildApp()
    stack = await startStack()
    anthropic = await cachingAnthropic(stack)
    const secret = (await stack.running.gateway.store.keys.create('laptop')).secret
    await stack.running.gateway.configChanged()
    await sessionMissingOnce(stack, secret, SESSION)
    browser = await launch()
    w = await signedIn(stack, browser)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await anthropic?.close()
    await stack?.close()
  })

  it("the session's cache panel: its verdict, saved and wasted, the miss at the system prompt; each turn's cache in the timeline", async () => {
    const sessions = new SessionsPage(w.page)
    const detail = new SessionDetailPage(w.page)
    await new Shell(w.page).nav('sessions')
    await sessions.row(SESSION).waitFor()
    await sessions.open(SESSION)
    await detail.id('session-cache').waitFor()
    assert.equal((await detail.id('cache-verdict').innerText()).trim(), 'missing')
    await detail.waitForCount('cache-miss', 1)
    const miss = detail.id('cache-miss')
    assert.equal(await miss.getAttribute('data-kind'), 'system')
    assert.match(await miss.innerText(), /^the system prompt changed at turn 3: [\d,]+ tokens re-written · its request$/)
    assert.match(await detail.id('cache-hit-rate').innerText(), /^\d+\.\d% of [\d,]+ prompt tokens$/)
    assert.match(await detail.id('cache-saved').innerText(), /^\$/)
    assert.equal((await detail.id('timeline-cache').allInnerTexts()).length, 2, 'the write and the read')
    await detail.waitForCount('timeline-cache-miss', 1)
    await shots(
      w.page,
      'session-cache',
      () => detail.id('session-cache').waitFor(),
      async (width) => {
        if (width === PHONE.width) await assertNoSideScroll(w.page, "a session's cache panel")
      },
    )

    // The miss opens its request, whose cache section tells the same.
    await miss.getByRole('link').click()
    const request = new RequestDetailPage(w.page)
    await request.promptCache().waitFor()
    await request.waitForText(request.id('cache-turn'), 'the system prompt changed at turn 3')
    assert.equal((await request.id('cache-markers').innerText()).trim(), '2 sent, reached the provider')
    assert.match(await request.id('cache-fingerprint').innerText(), /^system \S{8} · 3 tools · 5 messages$/)
    await shots(
      w.page,
      'request-cache',
      () => request.id('cache-turn').waitFor(),
      async (width) => {
        // The section, the routing attempts' table and everything else on the page fit a phone.
        if (width === PHONE.width) await assertNoSideScroll(w.page, "a request's page")
      },
    )
  })
})
