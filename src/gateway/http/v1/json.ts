import { ApiError } from '../../errors'

/** What Fastify would send for an object; answers serialised by the gateway itself say the same. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/** Reads a provider's JSON answer; DeepSeek may send blank lines first, which JSON.parse tolerates. */
export async function readJson(providerId: string, body: { text(): Promise<string> }): Promise<Record<string, unknown>> {
  const text = await body.text()
  try {
    const json = JSON.parse(text)
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json
  } catch {
    // fall through
  }
  throw new ApiError(502, 'server_error', `${providerId} answered 200 with a body that is not a JSON object`, 'upstream_error')
}
