import { playgroundBody, type PlaygroundRequest, type PlaygroundWire } from '../../../contract/playground'

/** The OpenAI-compatible base URL (ending in /v1) from the gateway's address. */
export function apiBase(baseUrl: string): string {
  const b = baseUrl.replace(/\/+$/, '')
  return /\/v1$/.test(b) ? b : `${b}/v1`
}

/** The Anthropic SDKs' base URL: the gateway's address without /v1 (they add /v1/messages). */
const anthropicBase = (baseUrl: string) => apiBase(baseUrl).slice(0, -'/v1'.length)

export interface SnippetInput {
  baseUrl: string
  /** The API the code calls: chat completions (the default), Anthropic's Messages or OpenAI's Responses. */
  wire?: PlaygroundWire
  model: string
  messages: PlaygroundRequest['messages']
  params?: Pick<PlaygroundRequest, 'temperature' | 'top_p' | 'max_tokens'>
  /** The environment variable holding the gateway key. */
  keyVar?: string
}

const body = (s: SnippetInput) => playgroundBody(s.wire ?? 'chat', { model: s.model, messages: s.messages, ...s.params })
const keyVar = (s: SnippetInput) => s.keyVar ?? 'GW_KEY'

export function curlSnippet(s: SnippetInput): string {
  const json = JSON.stringify(body(s)).replace(/'/g, `'\\''`)
  const head =
    s.wire === 'messages'
      ? `curl ${apiBase(s.baseUrl)}/messages \\
  -H "x-api-key: $${keyVar(s)}" \\
  -H "anthropic-version: 2023-06-01" \\`
      : `curl ${apiBase(s.baseUrl)}/${s.wire === 'responses' ? 'responses' : 'chat/completions'} \\
  -H "Authorization: Bearer $${keyVar(s)}" \\`
  return `${head}
  -H "Content-Type: application/json" \\
  -d '${json}'`
}

const pyValue = (v: unknown): string =>
  JSON.stringify(v, null, 4)
    .replace(/\btrue\b/g, 'True')
    .replace(/\bfalse\b/g, 'False')
    .replace(/\bnull\b/g, 'None')

export function pythonSnippet(s: SnippetInput): string {
  const b = body(s)
  const args = Object.entries(b)
    .map(([k, v]) => `    ${k}=${pyValue(v).replace(/\n/g, '\n    ')},`)
    .join('\n')
  // The Anthropic SDK keeps no unknown body field: the cost comes from the gateway's header.
  if (s.wire === 'messages')
    return `import os
from anthropic import Anthropic

client = Anthropic(base_url="${anthropicBase(s.baseUrl)}", api_key=os.environ["${keyVar(s)}"])
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

export function jsSnippet(s: SnippetInput): string {
  const b = JSON.stringify(body(s), null, 2)
  if (s.wire === 'messages')
    return `import Anthropic from '@anthropic-ai/sdk'

const client = new Anthropic({ baseURL: '${anthropicBase(s.baseUrl)}', apiKey: process.env.${keyVar(s)} })
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
