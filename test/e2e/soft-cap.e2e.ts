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
import { KeyDetailPage, KeysPage } from './pages/keys'
import { SessionDetailPage, SessionsPage } from './pages/sessions'
import { RequestsPage } from './pages/requests'
import { PresetsPage } from './pages/presets'

const skip = skipReason()
const SESSION = 'sess-soft-cap'

describe('the soft cap in the dashboard', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, keys: KeysPage, keyDetail: KeyDetailPage, sessions: SessionsPage, detail: SessionDetailPage, requests: RequestsPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await signedIn(stack, browser)
    const p = w.page
    ;[shell, keys, keyDetail, sessions, detail, requests] = [
      new Shell(p),
      new KeysPage(p),
      new KeyDetailPage(p),
      new SessionsPage(p),
      new SessionDetailPage(p),
      new RequestsPage(p),
    ]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('set on the key’s policy (refused until the key has a limit to be near); a session’s timeline marks where it switched', async () => {
    await shell.nav('keys')
    const key = await keys.create('agent')
    await keys.closeSecret()
    await keys.open('agent')

    w.allowHttpError(400, 'keys.update')
    await keyDetail.setSoftCap('openai/gpt-4o-mini', '1')
    await keyDetail.waitForText(keyDetail.id('key-policy'), 'needs a spend limit to be near')
    await keyDetail.setDailyLimit('1')
    await keyDetail.waitForToast('Spend limits saved')
    await keyDetail.setSoftCap('openai/gpt-4o-mini', '1')
    await keyDetail.waitForToast('Policy saved')
    const stored = (await stack.running.gateway.store.keys.all()).find((k) => k.name === 'agent')!
    assert.deepEqual(JSON.parse(stored.policy), { soft_cap: { model: 'openai/gpt-4o-mini', at_percent: 1 } })
    await shots(w.page, 'soft-cap-key-policy', () => keyDetail.id('policy-soft-cap').waitFor())

    // The first answer, 2,000 output tokens on gpt-4o ($0.02), passes 1 % of the $1 daily limit: the next two go to gpt-4o-mini.
    const agent = new OpenAI({ baseURL: stack.baseURL, apiKey: key.secret, maxRetries: 0, defaultHeaders: { 'x-gw-session-id': SESSION } })
    stack.fake.script({ kind: 'reply', usage: { prompt_tokens: 10, completion_tokens: 2000 } })
    for (let i = 0; i < 3; i++) {
      const { response } = await agent.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: `step ${i}` }] }).withResponse()
      await waitForRecord(stack.running.gateway, response.headers.get('x-request-id'))
    }

    await w.page.setViewportSize({ width: 1280, height: PHONE.height })
    await shell.nav('sessions')
    await sessions.waitForLoaded()
    await sessions.open(SESSION)
    await detail.waitForCount('timeline-row', 3)
    await detail.waitForCount('timeline-soft-cap', 1)
    // The marker stands right before the second step, the first the soft cap sent to gpt-4o-mini.
    assert.deepEqual(await detail.rowKinds(), ['timeline-row', 'timeline-soft-cap', 'timeline-row', 'timeline-row'])
    assert.match(await detail.softCapMarker().innerText(), /Soft cap: the key's daily spend limit was near; from here requests went to gpt-4o-mini/)
    assert.equal(await detail.steps().nth(0).getByTestId('soft-cap-badge').count(), 0)
    assert.equal(await detail.steps().nth(2).getByTestId('soft-cap-badge').innerText(), 'soft cap → gpt-4o-mini')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, "a session's page with a soft cap switch")
    await shots(w.page, 'soft-cap-session', () => detail.softCapMarker().waitFor())

    // The request says why.
    await w.page.setViewportSize({ width: 1280, height: PHONE.height })
    await detail.steps().nth(1).getByTestId('timeline-link').click()
    await requests.waitForText(requests.id('detail-soft-cap'), "soft cap: the key's daily spend limit of $1.00 is near")

    // The Requests list badges the two switched requests.
    await shell.nav('requests')
    await requests.waitForLoaded()
    await requests.waitForCount('soft-cap-badge', 2)
    await shots(w.page, 'soft-cap-requests', () => requests.id('soft-cap-badge').first().waitFor())
  })

  it('a preset’s soft cap is set in its editor, checked on save, and kept with its version', async () => {
    const presets = new PresetsPage(w.page)
    await shell.nav('presets')
    await presets.openNew()
    w.allowHttpError(400, 'presets.save')
    await presets.fill({ name: 'coding', model: 'openai/gpt-4o', softCapModel: 'openai/gpt-unpriced-9', softCapAt: '80' })
    await presets.save()
    await presets.waitForText(presets.id('preset-form'), 'openai/gpt-unpriced-9 has no known price')
    await presets.fill({ softCapModel: 'openai/gpt-4o-mini' })
    await presets.save()
    await presets.waitForToast('Preset “coding” created')
    assert.deepEqual((await stack.running.gateway.store.presets.get('coding'))!.soft_cap, { model: 'openai/gpt-4o-mini', at_percent: 80 })
    await shots(w.page, 'soft-cap-preset-editor', () => presets.id('preset-soft-cap-model').waitFor())
  })
})
