import { ClientText } from '../../src/gateway/core/clientText'
import type { SentText } from '../../src/gateway/pipeline/estimate'

/**
 * A request body's text as the core reads it (core/clientText.ts): its parsed value, and a
 * `sentText` look-up that counts the values it found in the text, so a test can tell the text was
 * used and not only that the answer came out the same.
 */
export function sentTextOf(text: string): { json: any; sentText: SentText; reads: () => number } {
  const json = JSON.parse(text)
  const client = ClientText.of({ text, json })
  if (!client) throw new Error(`a body of ${text.length} characters is not read (core/clientText.ts)`)
  let reads = 0
  const sentText: SentText = (value) => {
    const found = client.textOf(value)
    if (found !== null) reads++
    return found
  }
  return { json, sentText, reads: () => reads }
}
