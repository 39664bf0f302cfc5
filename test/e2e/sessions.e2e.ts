import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { waitForRecord } from '../support/harness'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { OverviewPage } from './pages/overview'
import { SessionDetailPage, SessionsPage } from './pages/sessions'

const skip = skipReason()
const CODEX_SESSION = '01a20a7e-494c-7612-b07e-3c6a6a0f0844'
const CODEX_TOOL = 'codex_exec 0.169.0'

/** A turn of `codex exec` as Codex 0.169.0 sends it (its identifying headers; the body shortened). */
async function codexTurn(stack: Stack, key: string): Promise<void> {
  const res = await fetch(`${stack.baseURL}/responses`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      originator: 'codex_exec',
      'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.169.0)',
      'session-id': CODEX_SESSION,
      'thread-id': CODEX_SESSION,
      'x-client-request-id': CODEX_SESSION,
      'x-codex-window-id': `${CODEX_SESSION}:0`,
    },
    body: JSON.stringify({
      model: 'openai/gpt-5.1',
      stream: true,
      store: false,
      prompt_cache_key: CODEX_SESSION,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the failing test' }] }],
    }),
  })
  await res.text()
  await waitForRecord(stack.running.gateway, res.headers.get('x-request-id'))
}

describe('the Sessions screen', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let secret: string

  before(async () => {
    buildApp()
    stack = await startStack()
    const gw = stack.running.gateway
    secret = (await gw.store.keys.create('laptop')).secret
    await gw.configChanged()
    browser = await launch()
    w = await signedIn(stack, browser)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('before any session: says how sessions come to be, and fits a phone', async () => {
    const sessions = new SessionsPage(w.page)
    await new Shell(w.page).nav('sessions')
    await sessions.id('sessions-empty').waitFor()
    await sessions.waitForText(sessions.id('sessions-empty'), 'No sessions in this range')
    await sessions.waitForText(sessions.id('sessions-empty'), 'X-Gw-Session-Id')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the empty Sessions screen')
    await shots(w.page, 'sessions-empty', () => sessions.id('sessions-empty').waitFor())
  })

  it("lists a Codex session recognised by itself and a caller's own session, with their tools and cost; unpriced spend is never $0", async () => {
    // gpt-5.1 per million: $1.25 input, $10 output. Turns of 1,000/100, 2,000/200 and 4,000/400 tokens:
    // $0.00225, $0.0045 and $0.009, so the session has cost $0.00225, $0.00675 and $0.01575.
    stack.fake.scriptResponses(
      { kind: 'reply', content: 'Looking.', usage: { input_tokens: 1_000, output_tokens: 100 } },
      { kind: 'reply', content: 'Found it.', usage: { input_tokens: 2_000, output_tokens: 200 } },
      { kind: 'reply', content: 'Fixed.', usage: { input_tokens: 4_000, output_tokens: 400 } },
    )
    for (let i = 0; i < 3; i++) await codexTurn(stack, secret)
    // A script's own session: one priced request, one to a model nobody priced.
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: secret, maxRetries: 0, defaultHeaders: { 'X-Gw-Session-Id': 'nightly-eval-run-17' } })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    await client.chat.completions.create({ model: 'openai/gpt-late-price-with-a-very-long-model-name', messages: [{ role: 'user', content: 'hi' }] })

    const sessions = new SessionsPage(w.page)
    await sessions.answerOf('sessions.list', () => sessions.id('sessions-refresh').click())
    await sessions.waitForCount('session-row', 2)
    const codex = sessions.row(CODEX_SESSION)
    assert.equal((await codex.getByTestId('session-tool').innerText()).trim(), CODEX_TOOL)
    assert.equal((await codex.getByTestId('session-requests').innerText()).trim(), '3')
    assert.equal((await codex.getByTestId('session-cost').innerText()).trim(), '$0.02')
    const script = sessions.row('nightly-eval-run-17')
    assert.match((await script.getByTestId('session-tool').innerText()).trim(), /^openai-js \d+\.\d+\.\d+/)
    const partly = script.getByTestId('session-cost').locator('span')
    assert.match(await partly.innerText(), /^≥\s\$0\.0000\d+$/, 'a lower bound, never $0 for what is unknown')
    assert.match((await partly.getAttribute('title'))!, /1 unpriced request not included/)

    await shots(w.page, 'sessions-list', () => sessions.row('nightly-eval-run-17').waitFor())
    await sessions.choose('tool', CODEX_TOOL)
    await sessions.waitForCount('session-row', 1)
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the Sessions list')
    const box = (await codex.getByTestId('session-cost').boundingBox())!
    assert.ok(box.width > 0 && box.x + box.width <= PHONE.width, `the cost is off-screen at ${box.x}+${box.width} px`)
    await w.page.setViewportSize({ width: 1280, height: PHONE.height })
  })

  it("a session's page: its totals, and its requests in order with the cost accumulating", async () => {
    const sessions = new SessionsPage(w.page)
    const detail = new SessionDetailPage(w.page)
    await sessions.open(CODEX_SESSION)
    await detail.waitForCount('timeline-row', 3)
    assert.deepEqual(await detail.soFar(), ['$0.00225', '$0.00675', '$0.02'])
    assert.deepEqual(
      (await detail.id('timeline-cost').allInnerTexts()).map((t) => t.trim()),
      ['$0.00225', '$0.0045', '$0.009'],
    )
    assert.equal((await detail.id('session-total-cost').innerText()).trim(), '$0.02')
    assert.equal((await detail.id('session-id').innerText()).trim(), CODEX_SESSION)
    assert.equal((await detail.id('session-source').innerText()).trim(), 'from the tool')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, "a session's page")
    await shots(w.page, 'session-detail', () => detail.steps().first().waitFor())

    // Each step opens its request.
    await detail.steps().first().getByTestId('timeline-link').click()
    await detail.id('request-detail').waitFor()
    await detail.waitForText(detail.id('detail-attribution'), CODEX_TOOL)
    await detail.id('open-session').click()
    await detail.waitForCount('timeline-row', 3)
  })

  it('Overview lists the top tools, each opening its sessions', async () => {
    const overview = new OverviewPage(w.page)
    await new Shell(w.page).nav('overview')
    const row = overview.id('top-tool').locator('tr', { hasText: CODEX_TOOL })
    await row.waitFor()
    await row.getByRole('link').click()
    const sessions = new SessionsPage(w.page)
    await sessions.waitForCount('session-row', 1)
    assert.equal(await sessions.id('sessions-tool').inputValue(), CODEX_TOOL)
  })
  it('Refresh asks up to now: a session that began after the screen opened (in a later minute) is listed', async () => {
    // The page's clock starts three minutes behind the gateway's, so the screen opens on a range
    // that ended two minutes ago (none of this test's sessions in it); the request below is
    // recorded by the gateway's own clock, and Refresh is pressed once the page's clock caught up.
    await w.page.clock.install({ time: Date.now() - 3 * 60_000 })
    await w.page.reload()
    const sessions = new SessionsPage(w.page)
    await new Shell(w.page).nav('sessions')
    await sessions.id('sessions-empty').waitFor()
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: secret, maxRetries: 0, defaultHeaders: { 'X-Gw-Session-Id': 'began-after-the-screen' } })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    await w.page.clock.setSystemTime(Date.now())
    await sessions.answerOf('sessions.list', () => sessions.id('sessions-refresh').click())
    await sessions.row('began-after-the-screen').waitFor()
    assert.equal(await sessions.id('session-row').count(), 3, "the screen's range now ends after every session")
  })
})
