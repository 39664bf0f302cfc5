import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, skipReason, type WatchedPage } from './support/browser'
import { assertAccessible, assertNoSideScroll, PHONE, shots, signedIn } from './support/views'
import { startStack, type Stack } from './support/stack'
import { Shell } from './pages/shell'
import { KeyDetailPage, KeysPage } from './pages/keys'
import { SettingsPage } from './pages/settings'
import { RequestDetailPage, RequestsPage } from './pages/requests'
import { PresetsPage } from './pages/presets'

const skip = skipReason()

describe('the response cache in the dashboard: a key turns it on, a request shows its hit, Settings clears it', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let shell: Shell, keys: KeysPage, keyDetail: KeyDetailPage, settings: SettingsPage, requests: RequestsPage, detail: RequestDetailPage

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await signedIn(stack, browser)
    const p = w.page
    ;[shell, keys, keyDetail, settings, requests, detail] = [
      new Shell(p),
      new KeysPage(p),
      new KeyDetailPage(p),
      new SettingsPage(p),
      new RequestsPage(p),
      new RequestDetailPage(p),
    ]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('a key’s TTL caches its deterministic requests; the hit’s page names the first request; Settings counts the hit and clears the cache', async () => {
    await shell.nav('keys')
    const key = await keys.create('evals')
    const secret = key.secret
    await keys.closeSecret()
    await keys.open('evals')
    await keyDetail.setCacheTtl('2h')
    await keyDetail.waitForToast('Response cache saved')
    assert.equal((await stack.running.gateway.store.keys.byId(key.id))!.response_cache_ttl_s, 7200)
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the key page')
    await shots(w.page, 'key-response-cache', () => keyDetail.id('key-cache-ttl').waitFor())

    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: secret, maxRetries: 0 })
    const ask = () => client.chat.completions.create({ model: 'gpt-4o-mini', temperature: 0, messages: [{ role: 'user', content: 'cached?' }] })
    const first = (await ask()) as any
    const hit = (await ask()) as any
    assert.equal(hit.gw.cache.hit, true)

    await shell.nav('requests')
    await requests.waitForLoaded()
    await requests.find(hit.gw.request_id)
    await detail.waitForLoaded()
    await detail.waitForText(detail.cache(), `hit: the answer of ${first.gw.request_id}`)
    assert.match(await detail.id('detail-attempts').innerText(), /the response cache answered/)
    await shots(w.page, 'request-cache-hit', () => detail.cache().waitFor())

    await shell.nav('settings')
    await settings.waitForLoaded()
    await settings.waitForText(settings.id('settings-cache-hits'), '1')
    assert.equal(await settings.id('settings-cache-entries').innerText(), '1')
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the settings page')
    await assertAccessible(w.page, 'the settings page')
    await shots(w.page, 'settings-response-cache', () => settings.id('settings-cache-clear').waitFor())
    await settings.clearResponseCache()
    await settings.waitForToast('Deleted 1 cached answer')
    await settings.waitForText(settings.id('settings-cache-entries'), '0')
    assert.equal(await settings.id('settings-cache-hits').innerText(), '1', 'the records keep their hits')
    const calls = stack.fake.received.length
    await ask()
    assert.equal(stack.fake.received.length, calls + 1, 'a cleared answer is asked of the provider again')
  })

  it('a preset turns the cache on and shares it between keys; a TTL that is no duration is refused beside its field', async () => {
    const presets = new PresetsPage(w.page)
    await shell.nav('presets')
    await presets.openNew()
    await presets.fill({ name: 'team-evals', model: 'openai/gpt-4o-mini', temperature: '0', cacheTtl: 'forever' })
    await presets.id('preset-save').click()
    await presets.waitForText(presets.fieldError('preset-cache-ttl'), 'must be a duration such as 30m, 1h or 7d')
    await presets.fill({ cacheTtl: '1d' })
    await presets.id('preset-cache-shared').check()
    await presets.save()
    await presets.waitForToast('Preset “team-evals” created')
    const saved = (await stack.running.gateway.store.presets.get('team-evals'))!
    assert.equal(saved.response_cache_ttl_s, 86_400)
    assert.equal(saved.response_cache_shared, true)
    await w.page.setViewportSize(PHONE)
    await assertNoSideScroll(w.page, 'the preset page')
    await shots(w.page, 'preset-response-cache', () => presets.id('preset-cache-ttl').waitFor())
  })
})
