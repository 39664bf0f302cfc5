import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import type { Browser, Page } from 'playwright-core'
import { buildApp } from '../support/build'
import { DESKTOP, axe, describeViolations, launch, openPage, screenshot, serious, skipReason, type Theme, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { AuthPage } from './pages/auth'
import { Shell } from './pages/shell'
import { PlaygroundPage } from './pages/playground'
import { assertNoSideScroll, PHONE } from './support/views'

const skip = skipReason()

interface ScreenSpec {
  name: string
  hash: string
  /** Test ids that show the screen has its data (any one). */
  ready: string[]
  prepare?: (page: Page) => Promise<void>
}

/** Every screen, screenshotted and scanned with axe in the light and the dark theme, and checked to fit a phone. */
describe('every screen: axe finds nothing serious, light and dark; screenshots', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  const ids: { key?: string; prepaid?: string; request?: string } = {}
  const findings: string[] = []

  const check = async (name: string, theme: Theme) => {
    await screenshot(w.page, `${name}-${theme}`)
    const bad = serious(await axe(w.page))
    if (bad.length) findings.push(`${name} (${theme}):\n${describeViolations(bad)}`)
  }

  const api = async (op: string, body: unknown) => {
    const res = await w.page.request.post(`/api/${op}`, { data: body, headers: { origin: stack.url } })
    assert.equal(res.status(), 200, `${op}: ${await res.text()}`)
    return res.json()
  }

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    w = await openPage(browser, stack.url)
  })
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('first-run setup screen', async () => {
    const auth = new AuthPage(w.page)
    await auth.open()
    for (const theme of ['light', 'dark'] as const) {
      await w.page.emulateMedia({ colorScheme: theme })
      await auth.id('setup-form').waitFor()
      await check('setup', theme)
    }
    await w.page.emulateMedia({ colorScheme: 'light' })
    await auth.setupOwner('owner', 'owner-password-123')
    await new Shell(w.page).waitForSignedIn('owner')
    w.assertNoConsoleErrors()
  })

  it('empty screens a new owner sees first', async () => {
    const empty: Array<[string, string, string]> = [
      ['overview-empty', '#/overview', 'overview-empty'],
      ['keys-empty', '#/keys', 'keys-empty'],
      ['presets-empty', '#/presets', 'presets-empty'],
      ['requests-empty', '#/requests', 'requests-empty'],
      ['playground-empty', '#/playground', 'playground-no-keys'],
    ]
    for (const theme of ['light', 'dark'] as const) {
      await w.page.emulateMedia({ colorScheme: theme })
      for (const [name, hash, ready] of empty) {
        await w.page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`)
        await w.page.getByTestId(ready).waitFor()
        if (name === 'overview-empty') await w.page.getByTestId('quickstart').waitFor()
        await check(name, theme)
      }
    }
    w.assertNoConsoleErrors()
  })

  it('signed-in screens, with data', async () => {
    // Data through the same API the dashboard uses, and traffic through the official SDK.
    await api('presets.save', {
      name: 'support',
      model: 'openai/gpt-4o-mini',
      system_prompt: 'You are a support agent.\nAnswer briefly.',
      temperature: 0.3,
      fallbacks: [],
    })
    await api('presets.save', {
      name: 'support',
      model: 'openai/gpt-4o-mini',
      system_prompt: 'You are a support agent.\nAnswer in one sentence.',
      temperature: 0.2,
      fallbacks: [],
    })
    const created = await api('keys.create', { name: 'laptop', default_preset: 'support' })
    ids.key = created.key.id
    const prepaid = await api('keys.create', { name: 'ci-bot', balance_usd: 10, policy: { rpm: 60, max_tokens: 2000 } })
    ids.prepaid = prepaid.key.id
    await api('users.create', { username: 'mia', password: 'mia-password-123', role: 'member' })
    await api('prices.set', { model: 'openai/gpt-4o', row: { input: 2, output: 8 } })
    const client = new OpenAI({ baseURL: stack.baseURL, apiKey: created.secret, maxRetries: 0 })
    for (const [i, tag] of ['search', 'search', 'billing'].entries()) {
      const res = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `hello ${i}` }],
        gw: { tags: [tag], session_id: 'sess-1', user_id: `user-${i}` },
      } as never)
      ids.request ??= (res as unknown as { gw: { request_id: string } }).gw.request_id
    }
    const ci = new OpenAI({ baseURL: stack.baseURL, apiKey: prepaid.secret, maxRetries: 0 })
    await ci.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'from ci' }] })
    await assert.rejects(ci.chat.completions.create({ model: 'nope/unknown-model', messages: [{ role: 'user', content: 'x' }] }))
    await stack.running.gateway.records.flushed()

    const screens: ScreenSpec[] = [
      {
        name: 'overview',
        hash: '#/overview',
        ready: ['chart-requests'],
        prepare: async (p) => void (await p.locator('[data-testid="chart-requests"] .recharts-surface').first().waitFor()),
      },
      {
        name: 'playground',
        hash: '#/playground',
        ready: ['pg-form'],
        prepare: async (p) => {
          const pg = new PlaygroundPage(p)
          await pg.choose(ids.key!, 'openai/gpt-4o-mini')
          await pg.send('What can you do?')
        },
      },
      { name: 'requests', hash: '#/requests', ready: ['requests-table'] },
      { name: 'request-detail', hash: `#/requests/${ids.request}`, ready: ['request-detail'] },
      { name: 'keys', hash: '#/keys', ready: ['keys-table'] },
      {
        name: 'key-detail',
        hash: `#/keys/${ids.prepaid}`,
        ready: ['key-usage-totals'],
        prepare: async (p) => void (await p.locator('[data-testid="key-usage"] .recharts-surface').first().waitFor()),
      },
      { name: 'presets', hash: '#/presets', ready: ['presets-table'] },
      { name: 'preset-editor', hash: '#/presets/support', ready: ['preview-result', 'preset-diff'] },
      { name: 'models', hash: '#/models', ready: ['models-table'] },
      { name: 'providers', hash: '#/providers', ready: ['providers-list'] },
      { name: 'users', hash: '#/users', ready: ['users-table'] },
      { name: 'settings', hash: '#/settings', ready: ['settings-form', 'settings-status'] },
      {
        name: 'key-created',
        hash: '#/keys',
        ready: ['keys-table'],
        prepare: async (p) => {
          await p.getByTestId('create-key').click()
          await p.getByTestId('key-name').fill(`tmp-${Date.now()}`)
          await p.getByTestId('key-name').press('Enter')
          await p.getByTestId('key-secret').waitFor()
        },
      },
    ]
    for (const theme of ['light', 'dark'] as const) {
      await w.page.emulateMedia({ colorScheme: theme })
      for (const s of screens) {
        await w.page.evaluate(`window.location.hash = ${JSON.stringify(s.hash)}`)
        for (const r of s.ready) await w.page.getByTestId(r).first().waitFor()
        await s.prepare?.(w.page)
        await check(s.name, theme)
        // Each screen fits a phone too: a wide table scrolls in its card, never the page.
        if (theme === 'light' && s.name !== 'key-created') {
          await w.page.setViewportSize(PHONE)
          await assertNoSideScroll(w.page, s.name)
          await w.page.setViewportSize(DESKTOP)
        }
        if (s.name === 'key-created') {
          await w.page.keyboard.press('Escape')
          await w.page.getByTestId('key-secret-dialog').waitFor({ state: 'detached' })
        }
      }
    }
    w.assertNoConsoleErrors()
  })

  it('sign-in screen', async () => {
    await w.page.emulateMedia({ colorScheme: 'light' })
    await new Shell(w.page).signOut()
    for (const theme of ['light', 'dark'] as const) {
      await w.page.emulateMedia({ colorScheme: theme })
      await w.page.getByTestId('signin-form').waitFor()
      await check('signin', theme)
    }
    w.assertNoConsoleErrors()
  })

  it('has no serious or critical axe violations', () => {
    assert.equal(findings.length, 0, `axe found:\n${findings.join('\n\n')}`)
  })
})
