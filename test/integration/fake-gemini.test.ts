/**
 * The fake Gemini server driven by Google's own SDK (`@google/genai`), so the fake is proven to
 * speak what the SDK reads before gateway tests rely on it: answers, streams, function calls,
 * usage, grounding, errors, token counts, embeddings and the model list; and raw HTTP for what
 * the SDK never sends (the JSON-array stream, `?key=`, an encoded colon, refused bodies).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError, GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { fakeEmbedding } from '../support/fake-openai'
import { json } from '../support/harness'
import { fakeGeminiTokenCount, geminiSignatureOf, startFakeGemini, SKIP_SIGNATURE, type FakeGemini } from '../support/fake-gemini'
import { collect, refusal } from '../support/genai'

const MODEL = 'gemini-2.5-flash'

describe('fake Gemini server, through @google/genai', () => {
  let fake: FakeGemini
  let ai: GoogleGenAI

  before(async () => {
    fake = await startFakeGemini({ thoughtSignatures: true })
    ai = new GoogleGenAI({ apiKey: fake.apiKey, httpOptions: { baseUrl: fake.url } })
  })
  after(() => fake.close())

  it('answers generateContent with text and usage, the key in x-goog-api-key, the model in the path', async () => {
    const usage = { promptTokenCount: 1000, cachedContentTokenCount: 600, candidatesTokenCount: 40, thoughtsTokenCount: 25, toolUsePromptTokenCount: 7 }
    fake.script({ kind: 'reply', text: 'Plain answer.', usage })
    const res = await ai.models.generateContent({ model: MODEL, contents: 'Hi', config: { systemInstruction: 'Be brief.', temperature: 0.2 } })
    assert.equal(res.text, 'Plain answer.')
    assert.equal(res.candidates?.[0].finishReason, 'STOP')
    assert.equal(res.modelVersion, MODEL)
    const u = res.usageMetadata!
    assert.deepEqual(
      [u.promptTokenCount, u.cachedContentTokenCount, u.candidatesTokenCount, u.thoughtsTokenCount, u.toolUsePromptTokenCount],
      [1000, 600, 40, 25, 7],
    )
    assert.equal(u.totalTokenCount, 1000 + 40 + 25 + 7, 'total: prompt (cache included), answer, thoughts and tool-use prompt')
    const sent = fake.received.at(-1)!
    assert.equal(sent.path, `/v1beta/models/${MODEL}:generateContent`)
    assert.equal(sent.headers['x-goog-api-key'], fake.apiKey)
    assert.deepEqual(sent.body.systemInstruction, { parts: [{ text: 'Be brief.' }], role: 'user' })
    assert.equal(sent.body.generationConfig.temperature, 0.2)
  })

  it('streams over SSE: text in pieces, finish reason and usage on the last chunk only (or running on each when scripted)', async () => {
    fake.script({ kind: 'reply', text: 'One two three four.', usage: { candidatesTokenCount: 8 } })
    const chunks = await collect(await ai.models.generateContentStream({ model: MODEL, contents: 'Count' }))
    assert.ok(chunks.length >= 3, `several chunks, got ${chunks.length}`)
    assert.equal(chunks.map((c) => c.text).join(''), 'One two three four.')
    assert.deepEqual(
      chunks.map((c) => [c.candidates?.[0].finishReason ?? null, c.usageMetadata?.candidatesTokenCount ?? null]),
      [...chunks.slice(1).map(() => [null, null]), ['STOP', 8]],
    )
    assert.match(fake.received.at(-1)!.path, /:streamGenerateContent\?alt=sse$/)

    fake.script({ kind: 'reply', text: 'One two three four.', usage: { candidatesTokenCount: 8 }, runningUsage: true })
    const running = await collect(await ai.models.generateContentStream({ model: MODEL, contents: 'Count' }))
    const counts = running.map((c) => c.usageMetadata?.candidatesTokenCount)
    assert.ok(
      counts.every((n) => typeof n === 'number'),
      'usage on every chunk',
    )
    assert.equal(counts.at(-1), 8, 'the last usage is the whole')
  })

  it('answers function calls (id when scripted, the first signed) after a thought, a finish reason and grounding as scripted', async () => {
    fake.script({
      kind: 'reply',
      thought: 'Which tool?',
      functionCalls: [
        { name: 'read_file', args: { path: 'a.txt' }, id: 'call-1' },
        { name: 'glob', args: { pattern: '*.ts' } },
      ],
      finishReason: 'MAX_TOKENS',
      webSearchQueries: ['weather paris'],
    })
    const chunks = await collect(await ai.models.generateContentStream({ model: MODEL, contents: 'Read it' }))
    const parts = chunks.flatMap((c) => c.candidates?.[0].content?.parts ?? [])
    assert.equal(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(''),
      'Which tool?',
    )
    const calls = parts.filter((p) => p.functionCall)
    assert.deepEqual(
      calls.map((p) => p.functionCall),
      [
        { id: 'call-1', name: 'read_file', args: { path: 'a.txt' } },
        { name: 'glob', args: { pattern: '*.ts' } },
      ],
    )
    assert.match(calls[0].thoughtSignature ?? '', /^[A-Za-z0-9+/]+=*$/, 'the first call is signed (base64)')
    assert.equal(calls[1].thoughtSignature, undefined)
    const last = chunks.at(-1)!.candidates![0]
    assert.equal(last.finishReason, 'MAX_TOKENS')
    assert.deepEqual(last.groundingMetadata?.webSearchQueries, ['weather paris'])
    assert.deepEqual(
      chunks.at(-1)!.functionCalls?.map((c) => c.name),
      ['glob'],
    )
  })

  it('takes a signed function call turn answered by as many responses, and refuses an unsigned or unanswered one as Gemini 3 does', async () => {
    fake.script({ kind: 'reply', functionCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] })
    const first = await ai.models.generateContent({ model: MODEL, contents: 'Read a.txt' })
    const call = first.candidates![0].content!.parts![0]
    const history = (callPart: object, responses: object[]) => [
      { role: 'user', parts: [{ text: 'Read a.txt' }] },
      { role: 'model', parts: [callPart] },
      { role: 'user', parts: responses },
    ]
    const response = { functionResponse: { name: 'read_file', response: { output: 'contents' } } }
    fake.script({ kind: 'reply', text: 'It says contents.' })
    const second = await ai.models.generateContent({ model: MODEL, contents: history(call, [response]) })
    assert.equal(second.text, 'It says contents.')

    const unsigned = await refusal(ai.models.generateContent({ model: MODEL, contents: history({ functionCall: call.functionCall }, [response]) }))
    assert.equal(unsigned.status, 400)
    assert.match(unsigned.error.message, /^Function call is missing a thought_signature in functionCall parts\..*`default_api:read_file` , position 2\./)
    const forged = await refusal(
      ai.models.generateContent({ model: MODEL, contents: history({ ...call, thoughtSignature: geminiSignatureOf('forged') }, [response]) }),
    )
    assert.equal(forged.status, 400)
    fake.script({ kind: 'reply' })
    await ai.models.generateContent({ model: MODEL, contents: history({ ...call, thoughtSignature: SKIP_SIGNATURE }, [response]) })

    const short = await refusal(ai.models.generateContent({ model: MODEL, contents: history(call, [{ text: 'no answer' }]) }))
    assert.deepEqual(short, {
      status: 400,
      error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Please ensure that function response turn comes immediately after a function call turn.' },
    })
    const uneven = await refusal(ai.models.generateContent({ model: MODEL, contents: history(call, [response, response]) }))
    assert.match(uneven.error.message, /number of function response parts is equal to the number of function call parts/)
    const role = await refusal(ai.models.generateContent({ model: MODEL, contents: [{ role: 'assistant', parts: [{ text: 'Hi' }] }] }))
    assert.deepEqual([role.status, role.error.message], [400, 'Please use a valid role: user, model.'])
  })

  it('blocks a prompt as scripted: no candidates, the reason in promptFeedback; answers late when told to', async () => {
    fake.script({ kind: 'reply', blockReason: 'SAFETY' }, { kind: 'reply', blockReason: 'PROHIBITED_CONTENT' })
    const blocked = await ai.models.generateContent({ model: MODEL, contents: 'Something bad' })
    assert.deepEqual([blocked.candidates, blocked.promptFeedback?.blockReason, blocked.usageMetadata?.candidatesTokenCount], [undefined, 'SAFETY', 0])
    const chunks = await collect(await ai.models.generateContentStream({ model: MODEL, contents: 'Something bad' }))
    assert.deepEqual(
      chunks.map((c) => c.promptFeedback?.blockReason),
      ['PROHIBITED_CONTENT'],
    )

    fake.script({ kind: 'delay', ms: 150, then: { kind: 'reply', text: 'Late.' } })
    const started = Date.now()
    assert.equal((await ai.models.generateContent({ model: MODEL, contents: 'Hi' })).text, 'Late.')
    assert.ok(Date.now() - started >= 150, 'answered after the delay')
  })

  it("answers a JSON answer's schema with an instance of it, as structured output does", async () => {
    const res = await ai.models.generateContent({
      model: MODEL,
      contents: 'Rate it',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: 'OBJECT',
          properties: { reasoning: { type: 'STRING' }, score: { type: 'INTEGER', minimum: 1 }, mode: { type: 'STRING', enum: ['fast', 'slow'] } },
        },
      },
    })
    assert.deepEqual(JSON.parse(res.text!), { reasoning: 'fake', score: 1, mode: 'fast' })
  })

  it("fails as Google does: each status's body, a 429 with its retry delay, a wrong key, an unknown model", async () => {
    for (const [status, name] of [
      [400, 'INVALID_ARGUMENT'],
      [403, 'PERMISSION_DENIED'],
      [500, 'INTERNAL'],
      [503, 'UNAVAILABLE'],
    ] as const) {
      fake.script({ kind: 'status', status })
      const r = await refusal(ai.models.generateContent({ model: MODEL, contents: 'Hi' }))
      assert.deepEqual([r.status, r.error.code, r.error.status], [status, status, name])
    }
    fake.script({ kind: 'status', status: 429, retryDelay: '2s' })
    const limited = await refusal(ai.models.generateContent({ model: MODEL, contents: 'Hi' }))
    assert.deepEqual([limited.status, limited.error.status], [429, 'RESOURCE_EXHAUSTED'])
    assert.equal(limited.error.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo').retryDelay, '2s')

    const wrong = new GoogleGenAI({ apiKey: 'AIza-wrong', httpOptions: { baseUrl: fake.url } })
    const refused = await refusal(wrong.models.generateContent({ model: MODEL, contents: 'Hi' }))
    assert.equal(refused.status, 400)
    assert.equal(refused.error.details[0].reason, 'API_KEY_INVALID')

    const missing = await refusal(ai.models.generateContent({ model: 'gemini-0-nonesuch', contents: 'Hi' }))
    assert.equal(missing.status, 404)
    assert.match(missing.error.message, /^models\/gemini-0-nonesuch is not found for API version v1beta, or is not supported for generateContent\./)
  })

  it('a scripted behaviour waits for the model and method it names', async () => {
    fake.script({ kind: 'status', status: 503, model: 'gemini-2.5-pro' }, { kind: 'status', status: 429, method: 'countTokens' })
    assert.equal((await ai.models.generateContent({ model: MODEL, contents: 'Hi' })).text, 'Hello from the fake Gemini.')
    assert.equal((await refusal(ai.models.countTokens({ model: MODEL, contents: 'Hi' }))).status, 429)
    assert.equal((await refusal(ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'Hi' }))).status, 503)
  })

  it('breaks a stream after some chunks: an error chunk the SDK throws on, or a cut connection', async () => {
    fake.script({ kind: 'fail-mid-stream', afterChunks: 2, mode: 'error-event', status: 503 })
    const seen: string[] = []
    await assert.rejects(
      (async () => {
        for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: 'Hi' })) seen.push(c.text ?? '')
      })(),
      (err: unknown) => err instanceof ApiError && err.status === 503,
    )
    assert.equal(seen.length, 2)

    fake.script({ kind: 'fail-mid-stream', afterChunks: 1, mode: 'drop' })
    const cut: string[] = []
    await assert.rejects(
      async () => {
        for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: 'Hi' })) cut.push(c.text ?? '')
      },
      (err: unknown) => err instanceof Error && !(err instanceof ApiError),
      'a broken connection, not an answer',
    )
    assert.equal(cut.length, 1)
  })

  it('counts tokens, embeds (the SDK batches even one), lists models page by page and gets one', async () => {
    const counted = await ai.models.countTokens({ model: MODEL, contents: 'How many tokens?' })
    assert.equal(counted.totalTokens, fakeGeminiTokenCount({ contents: fake.received.at(-1)!.body.contents }))
    assert.match(fake.received.at(-1)!.path, /:countTokens$/)

    const embedded = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['one', 'two'], config: { outputDimensionality: 4 } })
    assert.deepEqual(
      embedded.embeddings?.map((e) => e.values),
      [fakeEmbedding('one', 4), fakeEmbedding('two', 4)],
    )
    assert.match(fake.received.at(-1)!.path, /gemini-embedding-001:batchEmbedContents$/)
    const wrongMethod = await refusal(ai.models.embedContent({ model: MODEL, contents: 'x' }))
    assert.equal(wrongMethod.status, 404)

    const names: string[] = []
    for await (const m of await ai.models.list({ config: { pageSize: 3 } })) names.push(m.name!)
    assert.ok(names.includes(`models/${MODEL}`) && names.includes('models/gemini-embedding-001'))
    assert.equal(fake.received.filter((r) => r.path.startsWith('/v1beta/models?')).length, Math.ceil(names.length / 3), 'one request per page')
    const one = await ai.models.get({ model: MODEL })
    assert.equal(one.name, `models/${MODEL}`)
    assert.ok(one.inputTokenLimit! > 0)
  })
})

describe('fake Gemini server, over raw HTTP', () => {
  let fake: FakeGemini

  before(async () => {
    fake = await startFakeGemini()
  })
  after(() => fake.close())

  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': fake.apiKey }) =>
    fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const hi = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }

  it('streams one JSON array without alt=sse, under v1 too, with the key in ?key= and the colon encoded', async () => {
    fake.script({ kind: 'reply', text: 'Array of chunks here.' })
    const res = await post(`/v1/models/${MODEL}%3AstreamGenerateContent?key=${fake.apiKey}`, hi, {})
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
    const chunks = JSON.parse(await res.text())
    assert.ok(Array.isArray(chunks) && chunks.length >= 3)
    assert.equal(chunks.map((c: any) => c.candidates[0].content.parts[0].text).join(''), 'Array of chunks here.')
    assert.ok(chunks.at(-1).usageMetadata && !chunks[0].usageMetadata)
  })

  it('counts the tokens of a whole generateContent request, as the API takes it besides bare contents', async () => {
    const request = { model: `models/${MODEL}`, ...hi, systemInstruction: { parts: [{ text: 'Be brief.' }] } }
    const res = await post(`/v1beta/models/${MODEL}:countTokens`, { generateContentRequest: request })
    assert.equal(res.status, 200)
    assert.equal((await json(res)).totalTokens, fakeGeminiTokenCount(request))
    const both = await post(`/v1beta/models/${MODEL}:countTokens`, { ...hi, maxOutputTokens: 5 })
    assert.match((await json(both)).error.message, /Unknown name "maxOutputTokens"/)
  })

  it('embeds one content with embedContent, and cuts a non-streamed answer halfway when scripted', async () => {
    const res = await post('/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'one' }] }, outputDimensionality: 3 })
    assert.deepEqual(await json(res), { embedding: { values: fakeEmbedding('one', 3) } })

    fake.script({ kind: 'fail-mid-stream', afterChunks: 0, mode: 'drop' })
    const cut = await post(`/v1beta/models/${MODEL}:generateContent`, hi)
    assert.equal(cut.status, 200)
    await assert.rejects(cut.text(), 'the body never completes')
  })

  it('refuses what Google refuses, by name: unknown fields, no contents, empty parts, parts of two kinds; a missing key, a bearer token', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...hi, temperature: 1 }, /^Invalid JSON payload received\. Unknown name "temperature": Cannot find field\.$/],
      [{ ...hi, generationConfig: { max_tokens: 5 } }, /Unknown name "max_tokens" at 'generation_config'/],
      [{ generationConfig: {} }, /GenerateContentRequest\.contents: contents is not specified/],
      [{ contents: [{ role: 'user', parts: [] }] }, /contents\[0\]\.parts: contents\.parts must not be empty/],
      [{ contents: [{ role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'AA==' } }] }] }, /required oneof field 'data'/],
      [
        { ...hi, tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', additionalProperties: false } }] }] },
        /Unknown name "additionalProperties" at 'tools\[0\]\.function_declarations\[0\]\.parameters'/,
      ],
    ]
    for (const [body, message] of cases) {
      const res = await post(`/v1beta/models/${MODEL}:generateContent`, body)
      const { error } = await json(res)
      assert.deepEqual([res.status, error.status], [400, 'INVALID_ARGUMENT'], JSON.stringify(body))
      assert.match(error.message, message)
    }
    const anonymous = await post(`/v1beta/models/${MODEL}:generateContent`, hi, {})
    assert.equal(anonymous.status, 403)
    assert.equal((await json(anonymous)).error.status, 'PERMISSION_DENIED')
    const bearer = await post(`/v1beta/models/${MODEL}:generateContent`, hi, { authorization: `Bearer ${fake.apiKey}` })
    assert.equal(bearer.status, 401, 'a key as a bearer token is taken for an OAuth token')
    assert.equal((await json(bearer)).error.details[0].reason, 'ACCESS_TOKEN_TYPE_UNSUPPORTED')
  })

  it("serves Google's OpenAI layer under /v1beta/openai, Gemini's quirks on, with the same key", async () => {
    const client = new OpenAI({ apiKey: fake.apiKey, baseURL: fake.openaiUrl, maxRetries: 0 })
    fake.openai.script({ kind: 'reply', content: 'Hello over the OpenAI layer.' })
    const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] })
    assert.equal(res.choices[0].message.content, 'Hello over the OpenAI layer.')
    assert.equal(fake.received.at(-1)!.path, '/v1beta/openai/chat/completions')
    assert.equal(fake.received.at(-1)!.headers.authorization, `Bearer ${fake.apiKey}`)

    const wrong = await fetch(`${fake.openaiUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer AIza-wrong', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }),
    })
    assert.equal(wrong.status, 400)
    assert.equal((await json(wrong))[0].error.details[0].reason, 'API_KEY_INVALID', "Gemini's error array")
  })
})
