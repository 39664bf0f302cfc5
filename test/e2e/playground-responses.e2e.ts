import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { waitForRecord } from '../support/harness'
import { axe, describeViolations, launch, screenshot, serious, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { playgroundWithKey } from './support/views'
import { PlaygroundPage } from './pages/playground'

const skip = skipReason()

describe('the Playground on the OpenAI Responses wire', { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let playground: PlaygroundPage
  let keyId: string

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    ;({ w, playground, keyId } = await playgroundWithKey(stack, browser, 'codex'))
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
    await stack?.running.gateway.secrets.delete('deepseek').catch(() => false)
  })

  it('sends what Codex sends: the answer streams in, the cost and status follow, the Request view shows the Responses body with instructions', async () => {
    // gpt-5.1: 600 × $1.25/M + 400 × $0.125/M + 200 × $10/M
    stack.fake.scriptResponses({
      kind: 'reply',
      content: 'Bonjour ! Comment puis-je vous aider ?',
      usage: { input_tokens: 1000, cached_tokens: 400, output_tokens: 200 },
    })
    await playground.choose(keyId, 'openai/gpt-5.1')
    await playground.wire('responses')
    await playground.waitForText(playground.id('pg-wire-hint'), 'Codex')
    await playground.id('pg-system').fill('Answer in French.')
    await playground.send('Hello')
    assert.equal(await playground.reply(), 'Bonjour ! Comment puis-je vous aider ?')
    assert.equal(await playground.cost(), '$0.0028')
    assert.equal(await playground.id('run-provider').innerText(), 'openai')
    assert.equal(await playground.id('run-stop-reason').innerText(), 'completed')
    assert.match(await playground.id('run-routing').innerText(), /Status/)

    const body = JSON.parse(await playground.requestBody())
    assert.deepEqual(body, {
      model: 'openai/gpt-5.1',
      instructions: 'Answer in French.',
      input: [{ type: 'message', role: 'user', content: 'Hello' }],
      store: false,
      stream: true,
    })
    assert.match(await playground.id('pg-request').locator('summary').innerText(), /POST \/v1\/responses/)
    assert.equal(stack.fake.received.at(-1)!.body.instructions, 'Answer in French.')
    const snippet = await playground.id('pg-snippet').innerText()
    assert.match(snippet, /\/v1\/responses[\s\S]*Authorization: Bearer \$GW_KEY[\s\S]*"instructions":"Answer in French\."/)

    const requestId = (await playground.id('run-request-link').innerText()).trim()
    const record = await waitForRecord(stack.running.gateway, requestId)
    assert.deepEqual([record.endpoint, record.source, record.outcome], ['responses', 'playground', 'ok'])

    for (const width of [1280, 390]) {
      await w.page.setViewportSize({ width, height: 900 })
      for (const theme of ['light', 'dark'] as const) {
        await w.page.emulateMedia({ colorScheme: theme })
        await screenshot(w.page, `playground-responses-${width}-${theme}`)
        const violations = serious(await axe(w.page))
        assert.deepEqual(violations, [], `${width} ${theme}: ${describeViolations(violations)}`)
      }
      // The wires side by side, none cut off.
      const toggle = await playground.id('pg-wire').boundingBox()
      assert.ok(toggle && toggle.x >= 0 && toggle.x + toggle.width <= width, `the wire toggle fits at ${width} px`)
    }
    await w.page.emulateMedia({ colorScheme: 'light' })
    await w.page.setViewportSize({ width: 1360, height: 900 })
  })

  it('a provider that serves chat completions only answers through the translation to chat completions', async () => {
    // DeepSeek serves chat completions only: the Responses request reaches it as chat completions.
    const gw = stack.running.gateway
    await gw.secrets.set('deepseek', stack.fake.apiKey)
    await gw.store.providers.upsert('deepseek', 'openai', stack.fake.url)
    await gw.configChanged()
    await playground.id('pg-clear').click()
    await playground.choose(keyId, 'deepseek/deepseek-flash')
    await playground.wire('responses')
    await playground.send('Hello')
    assert.equal(await playground.reply(), 'Hello from the fake provider.')
    assert.equal(await playground.id('run-provider').innerText(), 'deepseek')
    assert.equal(await playground.id('run-stop-reason').innerText(), 'completed')
    const sent = stack.fake.received.at(-1)!
    assert.equal(sent.path, '/v1/chat/completions')
    assert.deepEqual(sent.body.messages.at(-1), { role: 'user', content: 'Hello' })
    await w.page.setViewportSize({ width: 390, height: 900 })
    await screenshot(w.page, 'playground-responses-translated-390')
    await w.page.setViewportSize({ width: 1360, height: 900 })
  })
})
