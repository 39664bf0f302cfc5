import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import { newRequestId, RequestContext } from '../../src/gateway/pipeline/requestContext'
import type { NormalizedUsage } from '../../src/gateway/pricing/types'
import { ZERO_USAGE } from '../../src/gateway/pricing/usage'
import { GeminiEvents } from '../../src/gateway/wires/gemini/chatStreamToGemini'
import { chatToGemini, usageMetadataOf } from '../../src/gateway/wires/gemini/chatToGemini'
import { validateGeminiBody } from '../../src/gateway/wires/gemini/geminiBody'
import { geminiToChat } from '../../src/gateway/wires/gemini/geminiToChat'
import { translatedGemini } from '../../src/gateway/wires/gemini/geminiTranslated'
import type { ChatTarget } from '../../src/gateway/wires/translatedChat'
import { translatedChatRequest } from '../../src/gateway/wires/translatedChat'
import { FakeDelivery, fakeTarget, RecordingSink } from '../support/fakeDelivery'
import { keyRow } from '../support/keyRow'

type Body = Record<string, any>

const user = (...parts: Body[]) => ({ role: 'user', parts })
const model = (...parts: Body[]) => ({ role: 'model', parts })

const translate = (body: Body, target: ChatTarget = {}, stream = false) =>
  geminiToChat(validateGeminiBody({ contents: [user({ text: 'hi' })], ...body }), 'gemini-2.5-pro', target, stream)
const chat = (body: Body, target?: ChatTarget) => translate(body, target).chat as Body
const dropped = (body: Body, target?: ChatTarget) => Object.fromEntries(translate(body, target).dropped.map((d) => [d.name, d.reason]))

/** Asserts a 400 invalid_request_error naming `param`. */
const refuses = (body: Body, param: string, message?: RegExp, target?: ChatTarget) =>
  assert.throws(
    () => translate(body, target),
    (e: unknown) => e instanceof ApiError && e.status === 400 && e.param === param && (!message || message.test(e.message)),
  )

const usage = (u: Partial<NormalizedUsage>): NormalizedUsage => ({ ...ZERO_USAGE, ...u })

const GEMINI: ChatTarget = { geminiLayer: true }

describe('generateContent → chat completions (request)', () => {
  it('the system instruction first, turns in order, text parts of a user turn joined, a model turn as one assistant message; the model is the caller’s', () => {
    const out = chat({
      systemInstruction: { parts: [{ text: 'A' }, { text: 'B' }] },
      contents: [user({ text: 'x' }, { text: 'y' }), model({ text: 'ok ' }, { text: 'then' }), { parts: [{ text: 'no role is the user' }] }],
    })
    assert.deepEqual(out.messages, [
      { role: 'system', content: 'A\n\nB' },
      { role: 'user', content: 'x\n\ny' },
      { role: 'assistant', content: 'ok then' },
      { role: 'user', content: 'no role is the user' },
    ])
    assert.equal(out.model, 'gemini-2.5-pro')
    assert.equal(out.stream, undefined)
    assert.equal(chat({ systemInstruction: 'as a string' }).messages[0].content, 'as a string')
    refuses({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'contents[0].role')
    refuses({ systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } }, 'systemInstruction.parts[0].text')
  })

  it('streams when the method does; the chat path then asks the usage of the provider', () => {
    const { chat: body } = translate({}, {}, true)
    assert.equal(body.stream, true)
    const ctx = new RequestContext(newRequestId(), 'messages', keyRow('k'))
    ctx.stream = true
    const request = translatedChatRequest(ctx, fakeTarget(), () => ({ chat: body as any, dropped: [] }))
    assert.deepEqual((request.body as Body).stream_options, { include_usage: true })
  })

  it('the provider’s dialect says whether it is Gemini’s OpenAI layer: only there do the thinking config and a call’s signature go on', () => {
    const body = validateGeminiBody({
      contents: [
        model({ functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 'sig1' }),
        user({ functionResponse: { id: 'c1', name: 'f', response: {} } }),
      ],
      generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } },
    })
    const sent = (dialect: 'gemini' | 'openai') => {
      const ctx = new RequestContext(newRequestId(), 'messages', keyRow('k'))
      const target = fakeTarget({ dialect }, 'gemini-3-pro-preview')
      const request = translatedChatRequest(ctx, target, (t) => geminiToChat(body, 'gemini-3-pro-preview', t))
      return { body: request.body as Body, ignored: ctx.attribution.ignored.map((d) => d.name) }
    }
    const gemini = sent('gemini')
    assert.equal(gemini.body.reasoning_effort, 'high')
    assert.deepEqual(gemini.body.messages[0].tool_calls[0].extra_content, { google: { thought_signature: 'sig1' } })
    assert.deepEqual(gemini.ignored, [])
    const openai = sent('openai')
    assert.equal(openai.body.reasoning_effort, undefined)
    assert.equal(openai.body.messages[0].tool_calls[0].extra_content, undefined)
    assert.deepEqual(openai.ignored.sort(), ['generationConfig.thinkingConfig', 'thoughtSignature'])
  })

  it("leaves Google's no-signature sentinel (Gemini CLI's on calls it replays unsigned) out without naming it", () => {
    const body = validateGeminiBody({
      contents: [
        model({ functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }),
        user({ functionResponse: { id: 'c1', name: 'f', response: {} } }),
      ],
    })
    const { chat, dropped } = geminiToChat(body, 'gpt-4o-mini', {})
    assert.equal((chat.messages[0] as Body).tool_calls[0].extra_content, undefined)
    assert.deepEqual(dropped, [])
  })

  it('inline images as data URLs and inline text as text; a PDF or a file by URI is refused naming the part', () => {
    const out = chat({
      contents: [
        user(
          { text: 'look' },
          { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
          { inlineData: { mimeType: 'text/plain', data: Buffer.from('plain text').toString('base64') } },
        ),
      ],
    })
    assert.deepEqual(out.messages[0].content, [
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'text', text: 'plain text' },
    ])
    refuses(
      { contents: [user({ text: 'read' }, { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } })] },
      'contents[0].parts[1].inlineData.mimeType',
      /application\/pdf/,
    )
    refuses(
      { contents: [user({ fileData: { mimeType: 'image/png', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } })] },
      'contents[0].parts[0].fileData',
    )
  })

  it('function calls as tool calls (ids made from where they stand when absent) and responses as tool messages, paired by id, else by name in order', () => {
    const body = {
      contents: [
        user({ text: 'list both dirs' }),
        model(
          { text: 'Listing.' },
          { functionCall: { name: 'ls', args: { path: 'a' } } },
          { functionCall: { id: 'fc_9', name: 'read', args: {} } },
          { functionCall: { name: 'grep', args: { q: 'x' } } },
          { functionCall: { name: 'ls', args: { path: 'b' } } },
        ),
        user(
          { functionResponse: { id: 'fc_9', name: 'read', response: { error: 'no such file' } } },
          { functionResponse: { name: 'ls', response: { output: 'a.txt' } } },
          { functionResponse: { name: 'ls', response: { files: ['b.txt'] } } },
          { functionResponse: { name: 'grep', response: { output: '' } } },
          { text: 'and now?' },
        ),
      ],
    }
    const out = chat(body)
    assert.deepEqual(out.messages.slice(1), [
      {
        role: 'assistant',
        content: 'Listing.',
        tool_calls: [
          { id: 'call_1_1', type: 'function', function: { name: 'ls', arguments: '{"path":"a"}' } },
          { id: 'fc_9', type: 'function', function: { name: 'read', arguments: '{}' } },
          { id: 'call_1_3', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } },
          { id: 'call_1_4', type: 'function', function: { name: 'ls', arguments: '{"path":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'fc_9', content: 'Error: no such file' },
      { role: 'tool', tool_call_id: 'call_1_1', content: 'a.txt' },
      { role: 'tool', tool_call_id: 'call_1_4', content: '{"files":["b.txt"]}' },
      { role: 'tool', tool_call_id: 'call_1_3', content: '' },
      { role: 'user', content: 'and now?' },
    ])
    // The same history gives the same ids on the next turn.
    assert.deepEqual(chat(body).messages, out.messages)
    refuses(
      { contents: [user({ functionResponse: { name: 'ls', response: {} } })] },
      'contents[0].parts[0].functionResponse',
      /no earlier functionCall of "ls"/,
    )
    refuses({ contents: [model({ functionCall: { args: {} } })] }, 'contents[0].parts[0].functionCall.name')
  })

  it('images in a function response follow the tool messages, labelled', () => {
    const out = chat({
      contents: [
        model({ functionCall: { id: 'c1', name: 'shot', args: {} } }),
        user({ functionResponse: { id: 'c1', name: 'shot', response: { output: 'taken' }, parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } }),
      ],
    })
    assert.deepEqual(out.messages.slice(1), [
      { role: 'tool', tool_call_id: 'c1', content: 'taken' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '(from the result of function call c1)' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ])
  })

  it('a function call’s thought signature rides on its tool call to Gemini’s OpenAI layer; elsewhere, and on other parts, it is dropped and counted', () => {
    const body = {
      contents: [
        user({ text: 'go' }),
        model(
          { text: 'ok', thoughtSignature: 'sigT' },
          { functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 'sig1' },
          { functionCall: { id: 'c2', name: 'g', args: {} } },
        ),
        user({ functionResponse: { id: 'c1', name: 'f', response: {} } }, { functionResponse: { id: 'c2', name: 'g', response: {} } }),
      ],
    }
    const calls = (target: ChatTarget) => chat(body, target).messages[1].tool_calls
    assert.deepEqual(calls(GEMINI)[0].extra_content, { google: { thought_signature: 'sig1' } })
    assert.equal(calls(GEMINI)[1].extra_content, undefined)
    assert.match(dropped(body, GEMINI).thoughtSignature, /^1 \(first contents\[1\]\.parts\[0\]\)/)
    assert.equal(calls({})[0].extra_content, undefined)
    assert.match(dropped(body).thoughtSignature, /^2 \(first contents\[1\]\.parts\[0\]\)/)
  })

  it('thought parts are never replayed, and are counted; a model turn of thoughts alone sends nothing', () => {
    const body = {
      contents: [user({ text: 'q' }), model({ thought: true, text: 'hmm' }), model({ thought: true, text: 'so' }, { text: 'A.' }), user({ text: 'q2' })],
    }
    assert.deepEqual(chat(body).messages, [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'A.' },
      { role: 'user', content: 'q2' },
    ])
    assert.match(dropped(body)['thought parts'], /^2 \(first contents\[1\]\.parts\[0\]\): thought summaries are not replayed/)
  })

  it('function declarations as function tools: Google’s schema as JSON Schema, a JSON schema as sent; built-in tools are dropped, each named', () => {
    const out = translate({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'search',
              description: 'Find',
              parameters: {
                type: 'OBJECT',
                properties: { q: { type: 'STRING' }, n: { type: 'INTEGER', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' } } },
                required: ['q'],
                propertyOrdering: ['q', 'n', 'tags'],
              },
              behavior: 'NON_BLOCKING',
            },
            { name: 'read_file', parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false } },
            { name: 'now' },
          ],
        },
        { googleSearch: {} },
        { codeExecution: {} },
      ],
    })
    assert.deepEqual(out.chat.tools, [
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Find',
          parameters: {
            type: 'object',
            properties: { q: { type: 'string' }, n: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
            required: ['q'],
          },
        },
      },
      {
        type: 'function',
        function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false } },
      },
      { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
    ])
    assert.deepEqual(out.dropped.map((d) => d.name).sort(), ['tools[1].googleSearch', 'tools[2].codeExecution', 'tools[].functionDeclarations[].behavior'])
  })

  it('functionCallingConfig as tool_choice: AUTO, ANY (one allowed name: that function; several: the tools narrowed), NONE, VALIDATED (named)', () => {
    const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }]
    const choice = (functionCallingConfig: Body) => {
      const out = chat({ tools, toolConfig: { functionCallingConfig } })
      return [out.tool_choice, out.tools.map((t: Body) => t.function.name).join()]
    }
    assert.deepEqual(choice({ mode: 'AUTO' }), ['auto', 'a,b,c'])
    assert.deepEqual(choice({ mode: 'ANY' }), ['required', 'a,b,c'])
    assert.deepEqual(choice({ mode: 'ANY', allowedFunctionNames: ['b'] }), [{ type: 'function', function: { name: 'b' } }, 'b'])
    assert.deepEqual(choice({ mode: 'ANY', allowedFunctionNames: ['a', 'c'] }), ['required', 'a,c'])
    assert.deepEqual(choice({ mode: 'NONE' }), ['none', 'a,b,c'])
    assert.deepEqual(choice({ mode: 'VALIDATED' }), ['auto', 'a,b,c'])
    assert.deepEqual(choice({}), [undefined, 'a,b,c'])
    assert.match(dropped({ tools, toolConfig: { functionCallingConfig: { mode: 'VALIDATED' } } })['toolConfig.functionCallingConfig.mode'], /VALIDATED/)
    refuses({ tools, toolConfig: { functionCallingConfig: { mode: 'any' } } }, 'toolConfig.functionCallingConfig.mode')
    assert.match(dropped({ tools: [{ googleSearch: {} }], toolConfig: { functionCallingConfig: { mode: 'ANY' } } }).toolConfig, /no tool left/)
    assert.equal(chat({ tools: [{ googleSearch: {} }], toolConfig: { functionCallingConfig: { mode: 'ANY' } } }).tool_choice, undefined)
  })

  it('generationConfig as chat’s sampling, limit, stop and format fields', () => {
    const out = chat({
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 500,
        stopSequences: ['END'],
        candidateCount: 1,
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        seed: 7,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
    })
    const { messages: _m, model: _model, ...fields } = out
    assert.deepEqual(fields, {
      max_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      seed: 7,
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
    })
    // The limit within the model's, in the field the provider takes it in.
    assert.deepEqual(
      chat({ generationConfig: { maxOutputTokens: 64000 } }, { maxOutputTokens: 16384, limitField: 'max_completion_tokens' }).max_completion_tokens,
      16384,
    )
    assert.match(dropped({ generationConfig: { maxOutputTokens: 64000 } }, { maxOutputTokens: 16384 })['generationConfig.maxOutputTokens'], /16384/)
    assert.deepEqual(
      chat({ generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { n: { type: 'NUMBER' } } } } })
        .response_format,
      {
        type: 'json_schema',
        json_schema: { name: 'output', schema: { type: 'object', properties: { n: { type: 'number' } } } },
      },
    )
    // Gemini CLI's router asks in responseJsonSchema with Google's upper-case types, which Google takes and chat providers refuse.
    assert.deepEqual(
      chat({
        generationConfig: {
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'OBJECT', properties: { score: { type: 'INTEGER' } }, required: ['score'] },
        },
      }).response_format,
      { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object', properties: { score: { type: 'integer' } }, required: ['score'] } } },
    )
    assert.deepEqual(chat({ generationConfig: { responseMimeType: 'application/json' } }).response_format, { type: 'json_object' })
    assert.equal(chat({ generationConfig: { responseMimeType: 'text/plain' } }).response_format, undefined)
    refuses({ generationConfig: { candidateCount: 2 } }, 'generationConfig.candidateCount')
    refuses({ generationConfig: { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: ['a'] } } }, 'generationConfig.responseMimeType')
    refuses({ generationConfig: { stopSequences: 'END' } }, 'generationConfig.stopSequences')
  })

  it('a thinking config as reasoning_effort for Gemini’s OpenAI layer: a level as is, a budget to the nearest of Google’s three, 0 off, -1 the default', () => {
    const effort = (thinkingConfig: Body) => chat({ generationConfig: { thinkingConfig } }, GEMINI).reasoning_effort
    assert.equal(effort({ thinkingLevel: 'HIGH' }), 'high')
    assert.equal(effort({ thinkingLevel: 'low' }), 'low')
    assert.equal(effort({ thinkingLevel: 'MINIMAL' }), 'minimal')
    assert.equal(effort({ thinkingBudget: 0 }), 'none')
    assert.equal(effort({ thinkingBudget: -1, includeThoughts: true }), undefined)
    assert.equal(effort({ thinkingBudget: 1024 }), 'low')
    assert.equal(effort({ thinkingBudget: 8192 }), 'medium')
    assert.equal(effort({ thinkingBudget: 24576 }), 'high')
    assert.equal(effort({ includeThoughts: true }), undefined)
    refuses({ generationConfig: { thinkingConfig: { thinkingLevel: 'extreme' } } }, 'generationConfig.thinkingConfig.thinkingLevel', undefined, GEMINI)
  })

  it('to any other provider the thinking config is dropped and named (models that do not reason refuse reasoning_effort); includeThoughts alone drops nothing', () => {
    const body = { generationConfig: { thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } } }
    assert.equal(chat(body).reasoning_effort, undefined)
    assert.match(dropped(body)['generationConfig.thinkingConfig'], /reasoning_effort/)
    assert.deepEqual(dropped({ generationConfig: { thinkingConfig: { includeThoughts: true } } }), {})
  })

  it('every field without a counterpart is dropped and named; a cached prompt is refused', () => {
    const out = translate({
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      labels: { team: 'x' },
      somethingNew: true,
      generationConfig: { topK: 40, responseLogprobs: true, responseModalities: ['TEXT'], speechConfig: {}, responseSchema: { type: 'STRING' } },
      toolConfig: { retrievalConfig: {}, functionCallingConfig: { mode: 'AUTO', streamFunctionCallArguments: true } },
      tools: [{ functionDeclarations: [{ name: 'f' }] }, { urlContext: {} }],
      contents: [
        user({ text: 'run it' }),
        model({ executableCode: { language: 'PYTHON', code: 'print(1)' } }, { text: 'ran' }),
        user({ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } }, { text: 'and?', partMetadata: { a: 1 } }),
      ],
    })
    assert.deepEqual(out.dropped.map((d) => d.name).sort(), [
      'codeExecutionResult parts',
      'executableCode parts',
      'generationConfig.responseLogprobs',
      'generationConfig.responseModalities',
      'generationConfig.responseSchema',
      'generationConfig.speechConfig',
      'generationConfig.topK',
      'labels',
      'parts[].partMetadata',
      'safetySettings',
      'somethingNew',
      'toolConfig.functionCallingConfig.streamFunctionCallArguments',
      'toolConfig.retrievalConfig',
      'tools[1].urlContext',
    ])
    assert.ok(
      out.dropped.every((d) => d.reason.length > 10),
      'each with its reason',
    )
    assert.deepEqual(
      (out.chat.messages as Body[]).map((m) => m.content),
      ['run it', 'ran', 'and?'],
    )
    refuses({ cachedContent: 'cachedContents/abc' }, 'cachedContent', /cached at Google/)
  })
})

describe('chat completion → GenerateContentResponse (whole)', () => {
  const completion = (message: Body, finish: string | null = 'stop') => ({ id: 'chatcmpl-1', choices: [{ index: 0, message, finish_reason: finish }] })
  const shape = { model: 'gemini-2.5-pro', includeThoughts: false }
  const answer = (c: Body, u: NormalizedUsage | null, s = shape) => chatToGemini(c, u, s).response as Body

  it('text, then each tool call as a functionCall part with its id, args and thought signature; tool calls finish as STOP', () => {
    const { response, badArguments } = chatToGemini(
      completion(
        {
          role: 'assistant',
          content: 'Let me look.',
          reasoning_content: 'thinking…',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' }, extra_content: { google: { thought_signature: 'sig' } } },
            { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":' } },
          ],
        },
        'tool_calls',
      ),
      usage({ prompt_tokens: 100, cached_tokens: 40, completion_tokens: 30, reasoning_tokens: 10, total_tokens: 130 }),
      shape,
    )
    assert.deepEqual(response, {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Let me look.' },
              { functionCall: { id: 'c1', name: 'ls', args: { path: '.' } }, thoughtSignature: 'sig' },
              { functionCall: { id: 'c2', name: 'read', args: {} } },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 40, candidatesTokenCount: 20, thoughtsTokenCount: 10, totalTokenCount: 130 },
      modelVersion: 'gemini-2.5-pro',
      responseId: 'chatcmpl-1',
    })
    assert.deepEqual(badArguments, [1])
  })

  it('the reasoning as a thought part first, only when the caller asked for thoughts', () => {
    const m = { role: 'assistant', content: 'A.', reasoning: 'because' }
    assert.deepEqual(answer(completion(m), null, { ...shape, includeThoughts: true }).candidates[0].content.parts, [
      { thought: true, text: 'because' },
      { text: 'A.' },
    ])
    assert.deepEqual(answer(completion(m), null).candidates[0].content.parts, [{ text: 'A.' }])
  })

  it('finish reasons as Google’s; usage in Google’s convention, absent when none was reported', () => {
    const finish = (f: string | null) => answer(completion({ content: 'x' }, f), null).candidates[0].finishReason
    assert.deepEqual(['stop', 'length', 'content_filter', 'tool_calls', 'function_call', 'weird', null].map(finish), [
      'STOP',
      'MAX_TOKENS',
      'SAFETY',
      'STOP',
      'STOP',
      'OTHER',
      'OTHER',
    ])
    assert.equal(chatToGemini(completion({ content: 'x' }), null, shape).response.usageMetadata, undefined)
    assert.deepEqual(usageMetadataOf(usage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })), {
      promptTokenCount: 10,
      candidatesTokenCount: 5,
      totalTokenCount: 15,
    })
    assert.equal(usageMetadataOf(null), undefined)
    assert.match(chatToGemini({ choices: [] }, null, shape).response.responseId as string, /^[\w-]{20,}$/)
  })

  it('the translated grammar reads a provider’s whole answer through its adapter and names arguments that are not an object', () => {
    const out = new FakeDelivery(new RecordingSink(), fakeTarget(), false)
    const json = completion(
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: 'not json' } }] },
      'tool_calls',
    )
    const whole = translatedGemini(validateGeminiBody({ contents: [user({ text: 'hi' })] }), 'gemini-2.5-flash').whole(
      { json: { ...json, usage: { prompt_tokens: 3, completion_tokens: 2 } }, text: '' },
      out,
    )
    assert.deepEqual((whole.body as Body).candidates[0].content.parts, [{ functionCall: { id: 'c1', name: 'f', args: {} } }])
    assert.equal((whole.body as Body).modelVersion, 'gemini-2.5-flash')
    assert.equal(whole.usage?.prompt_tokens, 3)
    assert.deepEqual(
      out.ignored.map((d) => d.name),
      ['tool_calls[0].function.arguments'],
    )
  })
})

describe('chat stream → streamGenerateContent chunks', () => {
  const delta = (d: Body, finish: string | null = null) => ({ id: 'chatcmpl-9', choices: [{ index: 0, delta: d, finish_reason: finish }] })
  const stream = (includeThoughts = false) => {
    const sink = new RecordingSink()
    const out = new FakeDelivery(sink)
    return { sink, out, enc: new GeminiEvents(out, { model: 'gemini-2.5-pro', includeThoughts }) }
  }
  const partsOf = (chunk: Body) => chunk.candidates[0].content.parts

  it('one chunk per chat chunk with text; a call goes out whole once its arguments are an object; the last chunk carries the finish, the usage and gw', () => {
    const { sink, out, enc } = stream()
    enc.chunk(delta({ role: 'assistant', content: '' }))
    enc.chunk(delta({ content: 'Hel' }))
    enc.chunk(delta({ content: 'lo' }))
    enc.chunk(delta({ tool_calls: [{ index: 0, id: 'c0', type: 'function', function: { name: 'ls', arguments: '{"pa' } }] }))
    enc.chunk(delta({ tool_calls: [{ index: 0, function: { arguments: 'th":"."}' } }] }))
    enc.chunk(delta({ tool_calls: [{ index: 1, id: 'c1', type: 'function', function: { name: 'now', arguments: '' } }] }))
    assert.equal(enc.complete, false)
    enc.chunk(delta({}, 'tool_calls'))
    assert.equal(enc.complete, true)
    assert.deepEqual(sink.data.map(partsOf), [
      [{ text: 'Hel' }],
      [{ text: 'lo' }],
      [{ functionCall: { id: 'c0', name: 'ls', args: { path: '.' } } }],
      [{ functionCall: { id: 'c1', name: 'now', args: {} } }],
    ])
    for (const chunk of sink.data) {
      assert.equal(chunk.candidates[0].finishReason, undefined)
      assert.equal(chunk.usageMetadata, undefined)
      assert.equal(chunk.modelVersion, 'gemini-2.5-pro')
      assert.equal(chunk.responseId, 'chatcmpl-9')
    }
    const last = enc.last(FakeDelivery.gw, usage({ prompt_tokens: 12, completion_tokens: 8, reasoning_tokens: 3, total_tokens: 20 })) as Body[]
    assert.deepEqual(last, [
      {
        candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 20 },
        modelVersion: 'gemini-2.5-pro',
        responseId: 'chatcmpl-9',
        gw: FakeDelivery.gw,
      },
    ])
    assert.equal(out.firstBytes, 1)
    assert.deepEqual(out.ignored, [])
    assert.deepEqual(enc.owed(), [])
    assert.deepEqual(JSON.parse(enc.logged('Hello')), { content: 'Hello', finishReason: 'STOP' })
  })

  it('a call whose arguments never make an object goes out at the finish with {}, named; its thought signature rides along', () => {
    const { sink, out, enc } = stream()
    enc.chunk(delta({ tool_calls: [{ index: 0, id: 'c0', function: { name: 'f', arguments: '{"a":' } }] }))
    enc.chunk(
      delta({ tool_calls: [{ index: 1, id: 'c1', function: { name: 'g', arguments: '{}' }, extra_content: { google: { thought_signature: 'sig' } } }] }),
    )
    enc.chunk(delta({ content: 'done' }, 'stop'))
    assert.deepEqual(sink.data.map(partsOf), [
      [{ functionCall: { id: 'c1', name: 'g', args: {} }, thoughtSignature: 'sig' }],
      [{ text: 'done' }, { functionCall: { id: 'c0', name: 'f', args: {} } }],
    ])
    assert.deepEqual(
      out.ignored.map((d) => d.name),
      ['tool_calls[0].function.arguments'],
    )
    assert.equal((enc.last(FakeDelivery.gw, null)[0] as Body).usageMetadata, undefined)
  })

  it('reasoning deltas as thought parts only when the caller asked for thoughts; nothing after the finish', () => {
    const run = (includeThoughts: boolean) => {
      const { sink, enc } = stream(includeThoughts)
      enc.chunk(delta({ reasoning_content: 'hmm' }))
      enc.chunk(delta({ content: 'A' }, 'length'))
      enc.chunk(delta({ content: 'late' }))
      return { parts: sink.data.map(partsOf), finish: (enc.last(FakeDelivery.gw, null)[0] as Body).candidates[0].finishReason }
    }
    assert.deepEqual(run(true), { parts: [[{ thought: true, text: 'hmm' }], [{ text: 'A' }]], finish: 'MAX_TOKENS' })
    assert.deepEqual(run(false), { parts: [[{ text: 'A' }]], finish: 'MAX_TOKENS' })
  })
})
