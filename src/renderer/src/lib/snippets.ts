/** The OpenAI-compatible base URL (ending in /v1) from the gateway's address. */
export function apiBase(baseUrl: string): string {
  const b = baseUrl.replace(/\/+$/, '')
  return /\/v1$/.test(b) ? b : `${b}/v1`
}

export interface SnippetInput {
  baseUrl: string
  model: string
  messages: Array<{ role: string; content: string }>
  params?: Record<string, number | undefined>
  /** The environment variable holding the gateway key. */
  keyVar?: string
}

const body = (s: SnippetInput) => {
  const b: Record<string, unknown> = { model: s.model, messages: s.messages }
  for (const [k, v] of Object.entries(s.params ?? {})) if (v !== undefined) b[k] = v
  return b
}

export function curlSnippet(s: SnippetInput): string {
  const json = JSON.stringify(body(s)).replace(/'/g, `'\\''`)
  return `curl ${apiBase(s.baseUrl)}/chat/completions \\
  -H "Authorization: Bearer $${s.keyVar ?? 'GW_KEY'}" \\
  -H "Content-Type: application/json" \\
  -d '${json}'`
}

const pyValue = (v: unknown): string => JSON.stringify(v, null, 4).replace(/\btrue\b/g, 'True').replace(/\bfalse\b/g, 'False').replace(/\bnull\b/g, 'None')

export function pythonSnippet(s: SnippetInput): string {
  const b = body(s)
  const args = Object.entries(b)
    .map(([k, v]) => `    ${k}=${pyValue(v).replace(/\n/g, '\n    ')},`)
    .join('\n')
  return `import os
from openai import OpenAI

client = OpenAI(base_url="${apiBase(s.baseUrl)}", api_key=os.environ["${s.keyVar ?? 'GW_KEY'}"])
res = client.chat.completions.create(
${args}
)
print(res.choices[0].message.content)
print("cost (USD):", res.model_extra["gw"]["cost"]["final_usd"])`
}

export function jsSnippet(s: SnippetInput): string {
  const b = JSON.stringify(body(s), null, 2).replace(/\n/g, '\n')
  return `import OpenAI from 'openai'

const client = new OpenAI({ baseURL: '${apiBase(s.baseUrl)}', apiKey: process.env.${s.keyVar ?? 'GW_KEY'} })
const res = await client.chat.completions.create(${b})
console.log(res.choices[0].message.content)
console.log('cost (USD):', res.gw.cost.final_usd)`
}
