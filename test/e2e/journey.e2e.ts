import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { launch, openPage, screenshot, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { AuthPage } from './pages/auth'
import { Shell } from './pages/shell'
import { OverviewPage } from './pages/overview'
import { ProvidersPage } from './pages/providers'
import { PresetsPage } from './pages/presets'
import { KeyDetailPage, KeysPage } from './pages/keys'
import { PlaygroundPage } from './pages/playground'
import { RequestDetailPage, RequestsPage } from './pages/requests'
import { SettingsPage } from './pages/settings'

const skip = skipReason()

describe('a new user’s whole path through the dashboard', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let auth: AuthPage, shell: Shell, overview: OverviewPage, providers: ProvidersPage, presets: PresetsPage
  let keys: KeysPage, keyDetail: KeyDetailPage, playground: PlaygroundPage, requests: RequestsPage, detail: RequestDetailPage
  let laptop: { id: string; secret: string }

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await openPage(browser, stack.url)
    const p = w.page
    ;[auth, shell, overview, providers, presets] = [new AuthPage(p), new Shell(p), new OverviewPage(p), new ProvidersPage(p), new PresetsPage(p)]
    ;[keys, keyDetail, playground, requests, detail] = [
      new KeysPage(p),
      new KeyDetailPage(p),
      new PlaygroundPage(p),
      new RequestsPage(p),
      new RequestDetailPage(p),
    ]
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('first run: creates the owner account, with inline errors first', async () => {
    await auth.open()
    await auth.setupOwner('owner', 'short', 'short')
    await auth.waitForText(auth.fieldError('setup-password'), 'at least 10 characters')
    await auth.setupOwner('owner', 'correct-horse-battery', 'correct-horse-battery-x')
    await auth.waitForText(auth.fieldError('setup-confirm'), 'does not match')
    await auth.setupOwner('owner', 'correct-horse-battery')
    await shell.waitForSignedIn('owner')
    await overview.waitForLoaded()
    await overview.id('quickstart').waitFor()
    assert.equal(await overview.baseUrl(), stack.baseURL)
    assert.match(await overview.id('quickstart-snippet').innerText(), new RegExp(`curl ${stack.baseURL}/chat/completions`))
    assert.deepEqual(await shell.navItems(), ['overview', 'playground', 'requests', 'sessions', 'keys', 'presets', 'models', 'providers', 'users', 'settings'])
  })

  it('adds a provider key: it goes to the secret store, the input clears, only the last four show', async () => {
    await shell.nav('providers')
    await providers.waitForLoaded()
    await providers.setKey('groq', 'gsk_e2e_secret_value_9876')
    await providers.waitForText(providers.credential('groq'), '9876')
    assert.equal(await providers.keyInput('groq').inputValue(), '')
    assert.ok(!(await w.page.content()).includes('gsk_e2e_secret_value'), 'the provider key is never shown again')
    assert.equal(await stack.running.gateway.secrets.get('groq'), 'gsk_e2e_secret_value_9876', `saved to ${stack.secretsDescription}`)
    const openai = await providers.test('openai')
    assert.equal(openai.ok, true, openai.text)
    assert.match(openai.text, /Connected in .* lists 2 models/)
    // Without a key, the page says how to give one here, not which command to run.
    const mistral = await providers.test('mistral')
    assert.equal(mistral.ok, false)
    assert.match(
      mistral.text,
      /no API key for mistral: none is stored, and MISTRAL_API_KEY is not set where the gateway runs\. Enter the key in API key above and save it/,
    )
    assert.doesNotMatch(mistral.text, /gw providers|--api-key-stdin/)
  })

  it('creates a preset with inline validation, a live preview, then a version history with diff and restore', async () => {
    await shell.nav('presets')
    await presets.id('presets-empty').waitFor()
    await presets.openNew()
    await presets.fill({ name: 'Bad Name' })
    await presets.id('preset-name').blur()
    await presets.waitForText(presets.fieldError('preset-name'), 'must be a slug')
    await presets.fill({ name: 'support', model: 'openai/gpt-4o-mini', system: 'You are a support agent. Answer briefly.', temperature: '3' })
    await presets.id('preset-temperature').blur()
    await presets.waitForText(presets.fieldError('preset-temperature'), 'between 0 and 2')
    await presets.id('preview-invalid').waitFor()
    await presets.fill({ temperature: '0.3' })
    const body = await presets.previewBody('You are a support agent')
    assert.match(body, /"temperature": 0.3/)
    assert.equal(await presets.id('preview-provider').innerText(), 'openai')
    await presets.save()
    await presets.waitForToast('Preset “support” created')
    await presets.waitForTitle('support')
    await presets.waitForCount('version-row', 1)

    await presets.fill({ temperature: '0.5' })
    await presets.save()
    await presets.waitForToast('as v2')
    await presets.waitForText(presets.id('versions-table'), 'v2')
    await presets.waitForCount('version-row', 2)
    await presets.id('diff-temperature').waitFor()
    assert.match(await presets.id('diff-temperature').innerText(), /0\.3[\s\S]*0\.5/)
    await presets.restore(1)
    await presets.waitForToast('Restored v1 as v3')
    await presets.waitForText(presets.id('versions-table'), 'v3')
    assert.equal(await presets.id('preset-temperature').inputValue(), '0.3')
  })

  it('creates a key (secret shown once) and makes the preset its default', async () => {
    await shell.nav('keys')
    await keys.id('keys-empty').waitFor()
    laptop = await keys.create('laptop')
    assert.match(laptop.secret, /^gw-/)
    await keys.id('key-secret-dialog').getByText('you will not see it again').waitFor()
    await keys.closeSecret()
    await keys.row('laptop').waitFor()
    assert.ok(!(await w.page.content()).includes(laptop.secret), 'the secret is not shown after the dialog closes')
    await keys.open('laptop')
    await keyDetail.setDefaultPreset('support')
    await keyDetail.waitForToast('Default preset saved')
    await shell.nav('presets')
    await presets.waitForText(presets.row('support'), 'laptop')
  })

  it('sends a Playground message: the reply streams in, then routing and cost', async () => {
    await shell.nav('playground')
    await playground.waitForReady()
    await playground.id('pg-default-preset-note').waitFor()
    await playground.choose(laptop.id, 'openai/gpt-4o-mini')
    await playground.send('Hello there')
    assert.equal(await playground.reply(), 'Hello from the fake provider.')
    assert.match(await playground.cost(), /^\$0\.0000\d+$/)
    assert.equal(await playground.id('run-provider').innerText(), 'openai')
    assert.match(await playground.id('run-routing').innerText(), /support v3/)
    const upstream = stack.fake.received.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!
    assert.equal(upstream.body.messages[0].content, 'You are a support agent. Answer briefly.', 'the default preset applied')
    await playground.id('pg-snippet').waitFor()
    assert.match(await playground.id('pg-snippet').innerText(), /Hello there/)
  })

  it('finds an SDK request by its tag, opens its detail with its logged bodies and follows its session', async () => {
    await stack.running.gateway.store.settings.write({ log_bodies: true })
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: laptop.secret, maxRetries: 0 })
    // One the provider refuses first: no usage, so its cost is unknown, and the table says why.
    stack.fake.script({ kind: 'status', status: 400 })
    const refused: any = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'refused' }], gw: { tags: ['e2e-journey'] } } as never)
      .catch((e) => e)
    assert.equal(refused.status, 400)
    const unknown: any = await client.chat.completions
      .create({ model: 'policy/no-such-preset', messages: [{ role: 'user', content: 'nowhere' }], gw: { tags: ['e2e-journey'] } } as never)
      .catch((e) => e)
    assert.equal(unknown.status, 404)
    const res = await client.chat.completions.create(
      {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'tagged hello' }],
        gw: { tags: ['e2e-journey'], session_id: 'sess-42', trace_id: 'trace-7' },
      } as never,
      { headers: { 'X-Gw-Team': 'support-desk' } },
    )
    assert.equal(res.choices[0].message.content, 'Hello from the fake provider.')
    await stack.running.gateway.records.flushed()

    await shell.nav('requests')
    await requests.waitForLoaded()
    await requests.filter({ tag: 'e2e-journey' })
    await requests.waitForCount('request-row', 3)
    await requests.id('chip-tag').waitFor()
    // Newest first: answered (priced), sent nowhere (no cost), refused by the provider (unknown cost).
    assert.equal(await requests.rows().nth(0).getByTestId('cost-unpriced').count(), 0, 'the answered request is priced')
    assert.match((await requests.rows().nth(1).getByTestId('cost-none').getAttribute('title'))!, /before reaching any provider/)
    assert.match((await requests.rows().nth(2).getByTestId('cost-unpriced').getAttribute('title'))!, /No usage reported/)
    // Its detail gives the same reason.
    await requests.rows().nth(2).getByTestId('request-link').click()
    await detail.waitForText(detail.id('detail-no-cost'), 'No usage reported')
    await screenshot(w.page, 'request-detail-no-cost')
    await w.page.goBack()
    await requests.waitForCount('request-row', 3)
    await requests.openFirst()
    await detail.waitForText(detail.tags(), 'e2e-journey')
    await detail.waitForText(detail.id('detail-dimensions'), 'support-desk')
    await detail.waitForText(detail.id('detail-cost'), 'Total')
    assert.equal((await detail.id('attempt-row').count()) >= 1, true)
    await detail.waitForText(detail.id('detail-request-body'), 'tagged hello')
    // The answer as the client got it: the gw block is stored once, with the record, and shown here.
    await detail.waitForText(detail.id('detail-response-body'), 'Hello from the fake provider.')
    const shown = await detail.id('detail-response-body').innerText()
    assert.match(shown, /"gw"[\s\S]*"request_id": "req_[\s\S]*"final_usd"/)
    await screenshot(w.page, 'request-detail-bodies')
    await stack.running.gateway.store.settings.write({ log_bodies: false })
    await detail.followSession()
    await requests.waitForText(requests.id('chip-session_id'), 'sess-42')
    await requests.waitForCount('request-row', 1)
  })

  it('hits a 402 in the Playground with a clear message, then a top-up fixes it', async () => {
    await shell.nav('keys')
    const prepaid = await keys.create('prepaid', { balance: '0' })
    await keys.closeSecret()
    await shell.nav('playground')
    await playground.waitForReady()
    await playground.choose(prepaid.id, 'openai/gpt-4o-mini')
    await playground.send('Are you there?')
    const err = await playground.error()
    assert.match(err.status, /^402/)
    assert.match(err.message, /balance/i)
    await playground.id('run-error').getByText('Top up the balance').waitFor()

    await playground.id('run-error-key-link').click()
    await keyDetail.id('key-detail').waitFor()
    await keyDetail.topUp('5', 'first budget')
    await keyDetail.waitForText(keyDetail.balance(), '$5.00')
    await keyDetail.waitForText(keyDetail.id('ledger-table'), 'first budget')

    await shell.nav('playground')
    await playground.waitForReady()
    await playground.choose(prepaid.id, 'openai/gpt-4o-mini')
    await playground.send('Are you there now?')
    assert.match(await playground.cost(), /^\$0\.0000\d+$/)
  })

  it('revokes a key: the dashboard says so and its next request is refused', async () => {
    await shell.nav('keys')
    await keys.revoke('laptop')
    await keys.waitForToast('revoked')
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: laptop.secret, maxRetries: 0 })
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      (e: { status?: number }) => e.status === 401,
    )
  })

  it('dialogs trap focus, close on Escape and give focus back', async () => {
    await shell.nav('keys')
    await keys.id('create-key').focus()
    await w.page.keyboard.press('Enter')
    await keys.id('create-key-form').waitFor()
    for (let i = 0; i < 8; i++) {
      await w.page.keyboard.press('Tab')
      assert.equal(await w.page.evaluate('!!document.activeElement.closest("dialog")'), true, `focus left the dialog after ${i + 1} Tab presses`)
    }
    await w.page.keyboard.press('Shift+Tab')
    assert.equal(await w.page.evaluate('!!document.activeElement.closest("dialog")'), true)
    await w.page.keyboard.press('Escape')
    await keys.id('create-key-dialog').waitFor({ state: 'detached' })
    assert.equal(await w.page.evaluate('document.activeElement.getAttribute("data-testid")'), 'create-key')
  })

  it('Settings shows where the log is and how it rotates (a browser gets the path, not a button it could not honour), and that metrics and tracing are off', async () => {
    const settings = new SettingsPage(w.page)
    await shell.nav('settings')
    await settings.waitForLoaded()
    assert.deepEqual(await settings.logFile(), {
      path: stack.running.config.logFile,
      rotation: 'rotates at 10 MB, keeps 5 rotated files',
      showButton: false,
    })
    assert.equal(await settings.metrics(), 'Off (start with --metrics or GW_METRICS=1)')
    assert.deepEqual(await settings.tracing(), { text: 'Off (set OTEL_EXPORTER_OTLP_ENDPOINT where the gateway starts)', endpoint: null, detail: null })
  })

  it('signs out', async () => {
    await shell.signOut()
    await auth.id('signin-form').waitFor()
  })
})
