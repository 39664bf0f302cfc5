/**
 * The Overview's cache row: the prompt cache's hit rate, what it saved and what writes never read
 * wasted, and the response cache's hits, as `analytics.overview` answers them, at 1280 and 390 px
 * in both themes. Requests go to the fake Anthropic playing the prompt cache an hour before now
 * (so the unread writes' TTLs have ended) and to the fake OpenAI through the response cache.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { waitForRecord } from '../support/harness'
import { compact, pct, plural, usd } from '../../src/renderer/src/lib/format'
import type { Output } from '../../src/contract'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { cachingAnthropic, sessionMissingOnce, type CachingAnthropic } from './support/promptCache'
import { OverviewPage } from './pages/overview'

const skip = skipReason()
const HOUR = 3_600_000

describe("the Overview's cache row", { skip: skip ?? false }, () => {
  let stack: Stack
  let anthropic: CachingAnthropic
  let browser: Browser
  let w: WatchedPage
  /** The gateway's clock runs this far behind while the requests are made. */
  let behind = HOUR

  before(async () => {
    buildApp()
    stack = await startStack({}, {}, () => Date.now() - behind)
    anthropic = await cachingAnthropic(stack)
    const gw = stack.running.gateway
    const key = await gw.store.keys.create('laptop')
    await gw.configChanged()
    // A session reading its cache, then a turn with a new system prompt whose write nothing reads.
    await sessionMissingOnce(stack, key.secret, 'refactor')
    // A deterministic question asked three times: the response cache answers the repeats.
    const client = new OpenAI({ apiKey: key.secret, baseURL: stack.baseURL, maxRetries: 0 })
    for (let i = 0; i < 3; i++) {
      const { response } = await client.chat.completions
        .create({ model: 'openai/gpt-4o-mini', temperature: 0, messages: [{ role: 'user', content: 'What is 2 + 2?' }] }, { headers: { 'X-Gw-Cache': '1h' } })
        .withResponse()
      await waitForRecord(gw, response.headers.get('x-request-id'))
    }
    behind = 0
    browser = await launch()
    w = await signedIn(stack, browser)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await anthropic?.close()
    await stack?.close()
  })

  it('shows the hit rate, cache saved and wasted, and response-cache hits as the Overview op answers them', async () => {
    const overview = new OverviewPage(w.page)
    const answer = await overview.answerOf('analytics.overview', () => overview.id('overview-refresh').click())
    const { cache } = (await answer.json()) as Output<'analytics.overview'>
    assert.equal(cache.response.hits, 2)
    assert.ok(cache.prompt.cached_tokens > 0 && cache.prompt.saved_usd !== 0)
    assert.equal(cache.prompt.unread_writes, 2, "the second turn's write, which the third did not read, and the third's, an hour old")
    const p = cache.prompt
    assert.deepEqual(await overview.cacheFigures(), {
      'cache-hit-rate': { value: pct(p.hit_rate), hint: `${compact(p.cached_tokens)} of ${compact(p.prompt_tokens)} prompt tokens read from the cache` },
      'cache-saved': { value: usd(p.saved_usd), hint: 'cached reads against the input rate, less what writes cost above it' },
      'cache-wasted': { value: usd(p.wasted_usd), hint: `2 writes never read · ${compact(p.wasted_tokens)} tokens` },
      'response-cache': { value: plural(2, 'hit'), hint: `${usd(cache.response.saved_usd)} saved` },
    })
    assert.notEqual(usd(p.wasted_usd), '$0.00')
    await shots(
      w.page,
      'overview-cache',
      () => overview.id('cache-totals').waitFor(),
      async (width) => {
        if (width === PHONE.width) await assertNoSideScroll(w.page, "the Overview's cache row")
      },
    )
  })
})
