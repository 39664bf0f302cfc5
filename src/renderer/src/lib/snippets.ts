import { playgroundBody, playgroundPath, type PlaygroundRequest, type PlaygroundWire } from '../../../contract/playground'

/** The OpenAI-compatible base URL (ending in /v1) from the gateway's address. */
export function apiBase(baseUrl: string): string {
  const b = baseUrl.replace(/\/+$/, '')
  return /\/v1$/.test(b) ? b : `${b}/v1`
}

/** The gateway's address without /v1: the Anthropic and Google SDKs add their API's version themselves (/v1/messages, /v1beta/models/…). */
const sdkRoot = (baseUrl: string) => apiBase(baseUrl).slice(0, -'/v1'.length)

export interface SnippetInput {
  baseUrl: string
  /** The API the code calls: chat completions (the default), Anthropic's Messages, OpenAI's Responses or Google's generateContent. */
  wire?: PlaygroundWire
  model: string
  messages: PlaygroundRequest['messages']
  params?: Pick<PlaygroundRequest, 'temperature' | 'top_p' | 'max_tokens'>
  /** The environment variable holding the gateway key. */
  keyVar?: string
}

const wireOf = (s: SnippetInput) => s.wire ?? 'chat'
const body = (s: SnippetInput) => playgroundBody(wireOf(s), { model: s.model, messages: s.messages, ...s.params })
const keyVar = (s: SnippetInput) => s.keyVar ?? 'GW_KEY'

/** How each API takes the key (and Anthropic's version), as curl's headers. */
function keyHeaders(wire: PlaygroundWire, key: string): string[] {
  if (wire === 'messages') return [`x-api-key: $${key}`, 'anthropic-version: 2023-06-01']
  if (wire === 'gemini') return [`x-goog-api-key: $${key}`]
  return [`Authorization: Bearer $${key}`]
}

export function curlSnippet(s: SnippetInput): string {
  const wire = wireOf(s)
  const json = JSON.stringify(body(s)).replace(/'/g, `'\\''`)
  const url = `${sdkRoot(s.baseUrl)}${playgroundPath(wire, s.model)}`
  // Google's path ends in ?alt=sse: quoted for the shell, and -N shows its events as they come.
  const head = wire === 'gemini' ? `curl -N "${url}"` : `curl ${url}`
  return [head, ...keyHeaders(wire, keyVar(s)).map((h) => `  -H "${h}"`), '  -H "Content-Type: application/json"', `  -d '${json}'`].join(' \\\n')
}

/**
 * The generateContent body as Google's SDKs take it: the model and contents apart, the system
 * instruction (as text) and generationConfig's fields together in `config`.
 */
function genaiRequest(s: SnippetInput) {
  const b = body(s) as { contents: unknown[]; systemInstruction?: { parts: Array<{ text: string }> }; generationConfig?: Record<string, number> }
  const system = b.systemInstruction?.parts.map((p) => p.text).join('')
  const config = { ...(system !== undefined && { systemInstruction: system }), ...b.generationConfig }
  return { contents: b.contents, config: Object.keys(config).length > 0 ? config : undefined }
}

const pyValue = (v: unknown): string =>
  JSON.stringify(v, null, 4)
    .replace(/\btrue\b/g, 'True')
    .replace(/\bfalse\b/g, 'False')
    .replace(/\bnull\b/g, 'None')

/** A Python keyword argument in a call's indented list. */
const pyArg = (name: string, v: unknown) => `    ${name}=${pyValue(v).replace(/\n/g, '\n    ')},`

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** google-genai drops the fields it does not know, the gateway's `gw` among them: the last chunk's usage is what it shows. */
function genaiPython(s: SnippetInput): string {
  const { contents, config } = genaiRequest(s)
  const configArgs = config ? Object.entries(config).map(([k, v]) => `    ${pyArg(snakeCase(k), v)}`) : []
  return `import os
from google import genai
from google.genai import types

client = genai.Client(api_key=os.environ["${keyVar(s)}"], http_options=types.HttpOptions(base_url="${sdkRoot(s.baseUrl)}"))
last = None
for chunk in client.models.generate_content_stream(
${pyArg('model', s.model)}
${pyArg('contents', contents)}${configArgs.length ? `\n    config=types.GenerateContentConfig(\n${configArgs.join('\n')}\n    ),` : ''}
):
    print(chunk.text or "", end="", flush=True)
    last = chunk
print()
print("tokens:", last.usage_metadata.total_token_count)`
}

export function pythonSnippet(s: SnippetInput): string {
  if (s.wire === 'gemini') return genaiPython(s)
  const args = Object.entries(body(s))
    .map(([k, v]) => pyArg(k, v))
    .join('\n')
  // The Anthropic SDK keeps no unknown body field: the cost comes from the gateway's header.
  if (s.wire === 'messages')
    return `import os
from anthropic import Anthropic

client = Anthropic(base_url="${sdkRoot(s.baseUrl)}", api_key=os.environ["${keyVar(s)}"])
raw = client.messages.with_raw_response.create(
${args}
)
print(raw.parse().content[0].text)
print("cost (USD):", raw.headers["x-gw-cost-usd"])`
  const responses = s.wire === 'responses'
  return `import os
from openai import OpenAI

client = OpenAI(base_url="${apiBase(s.baseUrl)}", api_key=os.environ["${keyVar(s)}"])
res = client.${responses ? 'responses' : 'chat.completions'}.create(
${args}
)
print(${responses ? 'res.output_text' : 'res.choices[0].message.content'})
print("cost (USD):", res.model_extra["gw"]["cost"]["final_usd"])`
}

/** @google/genai drops the fields it does not know, the gateway's `gw` among them: the last chunk's usage is what it shows. */
function genaiJs(s: SnippetInput): string {
  const { contents, config } = genaiRequest(s)
  const params = JSON.stringify({ model: s.model, contents, config }, null, 2)
  return `import { GoogleGenAI } from '@google/genai'

const ai = new GoogleGenAI({ apiKey: process.env.${keyVar(s)}, httpOptions: { baseUrl: '${sdkRoot(s.baseUrl)}' } })
const stream = await ai.models.generateContentStream(${params})
let last
for await (const chunk of stream) {
  process.stdout.write(chunk.text ?? '')
  last = chunk
}
console.log('\\ntokens:', last.usageMetadata.totalTokenCount)`
}

export function jsSnippet(s: SnippetInput): string {
  if (s.wire === 'gemini') return genaiJs(s)
  const b = JSON.stringify(body(s), null, 2)
  if (s.wire === 'messages')
    return `import Anthropic from '@anthropic-ai/sdk'

const client = new Anthropic({ baseURL: '${sdkRoot(s.baseUrl)}', apiKey: process.env.${keyVar(s)} })
const { data, response } = await client.messages.create(${b}).withResponse()
console.log(data.content[0].text)
console.log('cost (USD):', response.headers.get('x-gw-cost-usd'))`
  const responses = s.wire === 'responses'
  return `import OpenAI from 'openai'

const client = new OpenAI({ baseURL: '${apiBase(s.baseUrl)}', apiKey: process.env.${keyVar(s)} })
const res = await client.${responses ? 'responses' : 'chat.completions'}.create(${b})
console.log(${responses ? 'res.output_text' : 'res.choices[0].message.content'})
console.log('cost (USD):', res.gw.cost.final_usd)`
}
