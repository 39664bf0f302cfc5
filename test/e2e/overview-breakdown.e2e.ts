// Overview beyond the fixed top lists: a breakdown by any grouping (the model that answered,
// a dimension, …), custom date ranges, and the charts on one time axis.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { shots, signedIn } from './support/views'
import { OverviewPage } from './pages/overview'

const skip = skipReason()

const day = (t: number) => {
  const d = new Date(t)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

describe('Overview: breakdown by any grouping, custom ranges, one time axis', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let overview: OverviewPage

  before(async () => {
    buildApp()
    stack = await startStack()
    const gw = stack.running.gateway
    const key = await gw.store.keys.create('breakdown')
    await gw.configChanged()
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: key.secret, maxRetries: 0 })
    const hi = [{ role: 'user' as const, content: 'hi' }]
    // Asked for without a provider: served as openai/gpt-4o-mini.
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }, { headers: { 'X-Gw-Team': 'search' } })
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }, { headers: { 'X-Gw-Team': 'search' } })
    await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: hi }, { headers: { 'X-Gw-Team': 'billing' } })
    // Refused before any provider: nothing served it.
    await client.chat.completions.create({ model: 'nowhere/model', messages: hi }).catch(() => null)
    await gw.records.flushed()
    browser = await launch()
    w = await signedIn(stack, browser)
    overview = new OverviewPage(w.page)
    await overview.id('breakdown').locator('tbody tr').first().waitFor()
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('breaks spend down by the model that answered, apart from the name asked for', async () => {
    assert.deepEqual(await overview.breakdownRows(), [
      ['openai/gpt-4o-mini', '3'],
      ['(not sent to a provider)', '1'],
    ])
    await overview.breakdownBy('model')
    await overview.waitForText(overview.id('breakdown'), 'nowhere/model')
    assert.deepEqual(await overview.breakdownRows(), [
      ['gpt-4o-mini', '2'],
      // Equal counts: the costlier first.
      ['openai/gpt-4o-mini', '1'],
      ['nowhere/model', '1'],
    ])
  })

  it('breaks down by a dimension named by its header, linking to its requests', async () => {
    await overview.breakdownBy('dimension', 'Team')
    await overview.waitForText(overview.id('breakdown').locator('tbody'), 'billing')
    assert.deepEqual(await overview.breakdownRows(), [
      ['search', '2'],
      ['billing', '1'],
    ])
    assert.match((await overview.id('breakdown').getByRole('link', { name: 'search' }).getAttribute('href'))!, /dim=team%3Dsearch/)
    await shots(w.page, 'overview-breakdown', () => overview.id('breakdown').locator('tbody tr').first().waitFor())
  })

  it('shows whole days of a custom range, and says when the range is backwards', async () => {
    const today = day(Date.now())
    await overview.customRange(today, today)
    await overview.waitForText(overview.id('total-requests-value'), '4')
    const long = new Date()
    long.setDate(long.getDate() - 40)
    await overview.customRange(day(long.getTime()), day(long.getTime() + 86_400_000))
    await overview.waitForText(overview.id('total-requests-value'), '0')
    await overview.id('custom-from').fill(today)
    await overview.id('custom-to').fill(day(long.getTime()))
    await overview.id('custom-apply').click()
    await overview.waitForText(overview.id('custom-error'), 'The last day comes before the first.')
  })

  it('draws every chart on one time axis, spend as bars', async () => {
    await overview.range('24h')
    // Where each chart's time axis starts and ends within its own box (the charts sit in a grid).
    const spans = await Promise.all(
      ['requests', 'spend', 'tokens', 'latency'].map(async (c) => {
        const chart = (await overview.id(`chart-${c}`).boundingBox())!
        const axis = (await overview.id(`chart-${c}`).locator('.recharts-xAxis').boundingBox())!
        return [Math.round(axis.x - chart.x), Math.round(axis.width)]
      }),
    )
    assert.ok(
      spans.every(([x, width]) => x === spans[0][0] && width === spans[0][1]),
      `the time axes span ${JSON.stringify(spans)} px`,
    )
    assert.ok((await overview.id('chart-spend').locator('.recharts-bar-rectangle').count()) > 0, 'spend is drawn as bars')
  })
})
