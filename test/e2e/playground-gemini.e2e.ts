import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { Browser } from 'playwright-core'
import { buildApp } from '../support/build'
import { waitForRecord } from '../support/harness'
import { axe, describeViolations, launch, serious, skipReason, type WatchedPage } from './support/browser'
import { startStack, type Stack } from './support/stack'
import { playgroundWithKey, shots } from './support/views'
import { PlaygroundPage } from './pages/playground'

const skip = skipReason()

describe("the Playground on Google's generateContent wire", { skip: skip ?? false }, () => {
  let stack: Stack
  let browser: Browser
  let w: WatchedPage
  let playground: PlaygroundPage
  let keyId: string

  before(async () => {
    buildApp()
    stack = await startStack()
    browser = await launch()
    ;({ w, playground, keyId } = await playgroundWithKey(stack, browser, 'gemini-cli'))
  })
  afterEach(() => w.assertNoConsoleErrors())
  after(async () => {
    await browser?.close()
    await stack?.close()
  })

  it('sends what Gemini CLI sends: the model in the path, the answer streams in, the finish reason and cost follow, the Request view shows the generateContent body', async () => {
    // Translated to the fake OpenAI's chat completions. gpt-4o-mini: 1000 × $0.15/M + 200 × $0.6/M
    stack.fake.script({ kind: 'reply', content: 'Bonjour ! Comment puis-je vous aider ?', usage: { prompt_tokens: 1000, completion_tokens: 200 } })
    await playground.choose(keyId, 'openai/gpt-4o-mini')
    await playground.wire('gemini')
    await playground.waitForText(playground.id('pg-wire-hint'), 'Gemini CLI')
    await playground.id('pg-system').fill('Answer in French.')
    await playground.id('pg-temperature').fill('0.4')
    await playground.send('Hello')
    assert.equal(await playground.reply(), 'Bonjour ! Comment puis-je vous aider ?')
    assert.equal(await playground.cost(), '$0.00027')
    assert.equal(await playground.id('run-provider').innerText(), 'openai')
    assert.equal(await playground.id('run-stop-reason').innerText(), 'STOP')
    assert.match(await playground.id('run-routing').innerText(), /Finish reason/)

    const body = JSON.parse(await playground.requestBody())
    assert.deepEqual(body, {
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
      systemInstruction: { parts: [{ text: 'Answer in French.' }] },
      generationConfig: { temperature: 0.4 },
    })
    const path = '/v1beta/models/openai/gpt-4o-mini:streamGenerateContent?alt=sse'
    assert.equal(await playground.id('pg-request').locator('summary').innerText(), `Request POST ${path}`)
    const sent = stack.fake.received.at(-1)!
    assert.deepEqual([sent.path, sent.body.messages[0], sent.body.temperature], ['/v1/chat/completions', { role: 'system', content: 'Answer in French.' }, 0.4])

    // The code for the next turn: the answer as Google's model role, the key as Google's header.
    assert.match(await playground.id('pg-code').innerText(), /to \/v1beta\/models\/openai\/gpt-4o-mini:streamGenerateContent\?alt=sse\./)
    const curl = await playground.id('pg-snippet').innerText()
    assert.match(curl, /curl -N "[^"]+\/v1beta\/models\/openai\/gpt-4o-mini:streamGenerateContent\?alt=sse"[\s\S]*x-goog-api-key: \$GW_KEY/)
    assert.match(curl, /\{"role":"model","parts":\[\{"text":"Bonjour ! Comment puis-je vous aider \?"\}\]\}/)
    await playground.id('pg-snippet-lang-javascript').check()
    await playground.waitForText(playground.id('pg-snippet'), 'generateContentStream')
    assert.match(await playground.id('pg-snippet').innerText(), /new GoogleGenAI\(\{ apiKey: process\.env\.GW_KEY, httpOptions: \{ baseUrl: '/)
    await playground.id('pg-snippet-lang-curl').check()
    await playground.waitForText(playground.id('pg-snippet'), 'curl -N')

    const requestId = (await playground.id('run-request-link').innerText()).trim()
    const record = await waitForRecord(stack.running.gateway, requestId)
    assert.deepEqual([record.endpoint, record.source, record.outcome, record.model], ['generateContent', 'playground', 'ok', 'openai/gpt-4o-mini'])

    await shots(
      w.page,
      'playground-gemini',
      async () => {
        await playground.id('run-result').waitFor()
        await playground.waitForText(playground.id('pg-snippet'), 'curl -N')
      },
      async (width, theme) => {
        const violations = serious(await axe(w.page))
        assert.deepEqual(violations, [], `${width} ${theme}: ${describeViolations(violations)}`)
        // The four wires' names, none cut off.
        const toggle = await playground.id('pg-wire').boundingBox()
        assert.ok(toggle && toggle.x >= 0 && toggle.x + toggle.width <= width, `the wire toggle fits at ${width} px`)
        type Label = { scrollWidth: number; clientWidth: number; textContent: string | null }
        const clipped = await playground
          .id('pg-wire')
          .locator('span')
          .evaluateAll((labels) => (labels as unknown as Label[]).filter((l) => l.scrollWidth > l.clientWidth).map((l) => l.textContent))
        assert.deepEqual(clipped, [], `no wire's name overflows its segment at ${width} px`)
      },
    )
  })
})
