import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { OverviewPage } from './pages/overview'
import { RequestsPage } from './pages/requests'
import { KeysPage } from './pages/keys'

const skip = skipReason()
describe('an empty Overview', { skip: skip ?? false }, () => {
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

  it('shows no error rate for no requests, and does not scroll sideways at 390 px', async () => {
    const overview = new OverviewPage(w.page)
    await overview.id('overview-empty').waitFor()
    assert.equal(await overview.id('total-error-rate-value').innerText(), '—', 'no requests, no rate: never "0.0%"')
    await w.page.setViewportSize(PHONE)
    await overview.id('top-model-empty').waitFor()
    await assertNoSideScroll(w.page, 'the empty Overview')
    await shots(w.page, 'overview-empty', () => overview.id('overview-empty').waitFor())
  })
})

describe('Overview, Requests and a key with traffic, at 1280 and 390 px', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let laptopId: string

  before(async () => {
    buildApp()
    stack = await startStack()
    const gw = stack.running.gateway
    const laptop = await gw.store.keys.create('laptop with a long descriptive name')
    laptopId = laptop.info.id
    await gw.configChanged()
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: laptop.secret, maxRetries: 0 })
    const hi = [{ role: 'user' as const, content: 'hi' }]
    // Priced at the catalog's price.
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, gw: { tags: ['narrow-e2e'] } } as never)
    // A model nobody priced: the provider reported usage, what it billed is unknown.
    await client.chat.completions.create({ model: 'openai/gpt-late-price-with-a-very-long-model-name', messages: hi, gw: { tags: ['narrow-e2e'] } } as never)
    await gw.records.flushed()
    browser = await launch()
    w = await signedIn(stack, browser)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('top lists say "unpriced" for a group of unpriced requests and "≥" for a partly priced one, never $0 for unknown', async () => {
    const overview = new OverviewPage(w.page)
    await overview.id('totals').waitFor()
    const unpricedModel = overview.id('top-model').locator('tr', { hasText: 'gpt-late-price' }).getByTestId('top-spend')
    assert.equal(await unpricedModel.innerText(), 'unpriced')
    assert.match((await unpricedModel.getAttribute('title'))!, /1 unpriced request not included/)
    const pricedModel = overview.id('top-model').locator('tr', { hasText: 'gpt-4o-mini' }).getByTestId('top-spend')
    assert.match(await pricedModel.innerText(), /^\$0\.0000\d+$/)
    const partlyPricedKey = overview.id('top-key').locator('tr', { hasText: 'laptop' }).getByTestId('top-spend')
    assert.match(await partlyPricedKey.innerText(), /^≥\s\$0\.0000\d+$/)
    // The totals agree: a lower bound, with what it leaves out.
    assert.match(await overview.id('total-spend-value').innerText(), /^≥\s\$0\.0000\d+$/)
    await overview.waitForText(overview.id('total-spend'), '1 unpriced request not included')
    assert.notEqual(await overview.id('total-error-rate-value').innerText(), '—')
  })

  it('Overview does not scroll sideways at 390 px', async () => {
    const overview = new OverviewPage(w.page)
    await w.page.setViewportSize(PHONE)
    await overview.id('top-model').locator('tr', { hasText: 'gpt-late-price' }).waitFor()
    await assertNoSideScroll(w.page, 'Overview')
    await shots(w.page, 'overview-data', () => overview.id('top-model').locator('tr', { hasText: 'gpt-late-price' }).waitFor())
  })

  it('Requests at 390 px: filters folded behind a toggle counting active ones, Cost and Latency on screen', async () => {
    const shell = new Shell(w.page)
    const requests = new RequestsPage(w.page)
    await w.page.setViewportSize({ width: 1280, height: PHONE.height })
    await shell.nav('requests')
    await requests.filter({ tag: 'narrow-e2e' })
    await requests.waitForCount('request-row', 2)
    await w.page.setViewportSize(PHONE)
    assert.equal(await requests.id('filter-tag').isVisible(), false, 'the filters are folded')
    assert.equal((await requests.id('filters-toggle').innerText()).trim(), 'Filters (1)')
    const row = requests.rows().first()
    const rowBox = (await row.boundingBox())!
    assert.ok(rowBox.y < PHONE.height, `the first row starts at ${rowBox.y} px, below the first screen`)
    for (const col of ['cost', 'latency']) {
      const box = (await row.getByTestId(`cell-${col}`).boundingBox())!
      assert.ok(box.width > 0 && box.x + box.width <= PHONE.width, `${col} is off-screen at ${box.x}+${box.width} px`)
    }
    await assertNoSideScroll(w.page, 'Requests')
    // Unfolded, the filters work as on a wide screen.
    await requests.id('filters-toggle').click()
    await requests.id('filter-tag').waitFor()
    await shots(w.page, 'requests', () => requests.rows().first().waitFor())
    // Wide, the toggle is gone and the filters are always there.
    assert.equal(await requests.id('filters-toggle').isVisible(), false)
    assert.equal(await requests.id('filter-tag').isVisible(), true)
    const latency = (await requests.rows().first().getByTestId('cell-latency').boundingBox())!
    assert.ok(latency.x + latency.width <= 1280, `at 1280 px the latency is cut off at ${latency.x}+${latency.width} px`)
  })

  it('the ledger of a key without a balance says it has none and how to give it one', async () => {
    const keys = new KeysPage(w.page)
    await keys.go(`#/keys/${laptopId}`)
    await keys.id('key-detail').waitFor()
    // Its usage, like Overview, is a lower bound when part of it is unpriced.
    await keys.waitForText(keys.id('key-usage-totals'), /≥\s\$0\.0000\d+ \(1 unpriced request not included\)/)
    // Beside its limits, what it spent: the priced request only, as the limits count.
    await keys.waitForText(keys.id('key-spent-today'), '$0.0000048, no limit')
    assert.equal(await keys.id('key-spent-month').innerText(), '$0.0000048, no limit')
    const empty = keys.id('ledger-empty')
    await keys.waitForText(empty, 'no balance')
    assert.doesNotMatch(await empty.innerText(), /cost of each priced request appear/)
    assert.match(await empty.innerText(), /top-up/i)
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the key page')
    await shots(w.page, 'key', () => keys.id('ledger-empty').waitFor())
  })

  it("a key's usage: Refresh asks up to now, so a request made after the page opened (in a later minute) is counted", async () => {
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
