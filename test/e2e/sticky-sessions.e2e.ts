/**
 * Sticky sessions on the dashboard: a preset's equal candidates set in its editor (refused
 * without a fallback), and a session moved off its provider when that one fails, marked on the
 * session's timeline and said on the request page, at 1280 and 390 px in both themes. Two fake
 * Anthropic providers serve the same model, each playing its own prompt cache.
 */
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic'
import { waitForRecord } from '../support/harness'
import { cacheTurn } from '../support/cacheTurns'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { SessionDetailPage, SessionsPage } from './pages/sessions'
import { RequestDetailPage } from './pages/requests'
import { PresetsPage } from './pages/presets'

const skip = skipReason()
const MODEL = 'claude-sonnet-4-5'
const SESSION = 'keep-the-cache-warm'

describe('sticky sessions on the dashboard', { skip: skip ?? false }, () => {
  let stack: Stack
  let anthropic: FakeAnthropic
  let mirror: FakeAnthropic
  let browser: Browser
  let w: WatchedPage
  let shell: Shell

  before(async () => {
    buildApp()
    stack = await startStack()
    anthropic = await startFakeAnthropic({ promptCache: true })
    mirror = await startFakeAnthropic({ promptCache: true })
    const gw = stack.running.gateway
    await gw.secrets.set('anthropic', anthropic.apiKey)
    await gw.secrets.set('mirror', mirror.apiKey)
    await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
    await gw.store.providers.upsert('mirror', 'anthropic', mirror.url)
    await gw.store.prices.set({
      model: `mirror/${MODEL}`,
      row: { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6 },
      as_of: '2026-11-20',
      note: null,
    })
    await gw.configChanged()
    browser = await launch()
    w = await signedIn(stack, browser)
    shell = new Shell(w.page)
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
    await anthropic?.close()
    await mirror?.close()
    await stack?.running.gateway.secrets.delete('anthropic').catch(() => false)
    await stack?.running.gateway.secrets.delete('mirror').catch(() => false)
  })

  it('a preset’s equal candidates are set in its editor, need a fallback, and are kept with its version', async () => {
    const presets = new PresetsPage(w.page)
    await shell.nav('presets')
    await presets.openNew()
    w.allowHttpError(400, 'presets.save')
    // The draft with equal candidates and no fallback yet is one the server refuses: the live
    // preview, if its debounce fires before the fallback is typed (a slow machine), asks and shows
    // the refusal, which the browser logs as a failed request.
    w.allowHttpError(400, 'presets.preview')
    await presets.fill({ name: 'pair', model: `anthropic/${MODEL}`, equalCandidates: true })
    await presets.save()
    await presets.waitForText(presets.id('preset-form'), 'needs at least one fallback')
    await presets.fill({ fallbacks: `mirror/${MODEL}` })
    await presets.save()
    await presets.waitForToast('Preset “pair” created')
    const saved = (await stack.running.gateway.store.presets.get('pair'))!
    assert.equal(saved.equal_candidates, true)
    assert.deepEqual(saved.fallbacks, [`mirror/${MODEL}`])
    await shots(w.page, 'sticky-preset-editor', () => presets.id('preset-equal-candidates').waitFor())
  })

  it('a session moved off its failing provider: the timeline marks the move, the request page says from where, why and what it re-wrote', async () => {
    const gw = stack.running.gateway
    const secret = (await gw.store.keys.create('agent')).secret
    const asks: string[] = []
    const turn = async () => {
      asks.push(`step ${asks.length + 1}`)
      const { id } = await cacheTurn(stack.url, secret, SESSION, { asks: [...asks] }, 'policy/pair')
      return waitForRecord(gw, id)
    }
    const first = await turn()
    const held = first.provider!
    assert.equal((await turn()).provider, held)
    // The held provider fails every try (the first and both retries): the turn moves.
    ;(held === 'anthropic' ? anthropic : mirror).script(...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 500 })))
    const moved = await turn()
    assert.equal(moved.moved?.reason, 'failed')
    assert.equal((await turn()).provider, moved.provider)

    const sessions = new SessionsPage(w.page)
    const detail = new SessionDetailPage(w.page)
    await shell.nav('sessions')
    await sessions.row(SESSION).waitFor()
    await sessions.open(SESSION)
    await detail.waitForCount('timeline-row', 4)
    await detail.waitForCount('timeline-moved', 1)
    // The marker stands right before the third step, the one that moved.
    assert.deepEqual(await detail.rowKinds(), ['timeline-row', 'timeline-row', 'timeline-moved', 'timeline-row', 'timeline-row'])
    const to = moved.provider!
    const said = new RegExp(
      `^↪ Moved from ${held}/${MODEL} to ${to}/${MODEL} because it failed: ${moved.usage!.cache_write_tokens.toLocaleString('en-US')} tokens of cache re-written \\(\\$`,
    )
    assert.match(await detail.moveMarker().innerText(), said)
    // The doctor names the move as why the turn missed.
    await detail.waitForCount('cache-miss', 1)
    assert.equal(await detail.id('cache-miss').getAttribute('data-kind'), 'moved')
    await shots(
      w.page,
      'sticky-session',
      () => detail.moveMarker().waitFor(),
      async (width) => {
        if (width === PHONE.width) await assertNoSideScroll(w.page, "a session's page with a move")
      },
    )

    await detail.steps().nth(2).getByTestId('timeline-link').click()
    const request = new RequestDetailPage(w.page)
    await request.moved().waitFor()
    assert.match(await request.moved().innerText(), new RegExp(said.source.slice(3)))
    await shots(w.page, 'sticky-request', () => request.moved().waitFor())
    // Another turn's page says nothing of moves.
    await w.page.goBack()
    await detail.steps().nth(1).getByTestId('timeline-link').click()
    await request.waitForLoaded()
    await request.id('detail-summary').waitFor()
    assert.equal(await request.moved().count(), 0)
  })
})
