/** Reading `@google/genai`'s answers in tests: a refusal's status and Google's error, a stream's chunks. */
import assert from 'node:assert/strict'
import { ApiError, type GenerateContentResponse } from '@google/genai'

/** What a call refused with: its status and Google's error object (the SDK puts the body in its message). */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; error: Record<string, any> }> {
  try {
    await call
  } catch (err) {
    assert.ok(err instanceof ApiError, `an ApiError, not ${String(err)}`)
    return { status: err.status, error: JSON.parse(err.message).error }
  }
  assert.fail('the call succeeded')
}

export async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}
