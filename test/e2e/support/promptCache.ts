// The fake Anthropic playing the prompt cache behind an e2e stack, and a session whose cache misses once.
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fake-anthropic'
import { waitForRecord } from '../../support/harness'
import { LONG_INSTRUCTIONS, sendCacheTurn } from '../../support/cacheTurns'
import type { Stack } from './stack'

export interface CachingAnthropic {
  anthropic: FakeAnthropic
  /** Ends the fake and forgets its key (before the stack closes: on PostgreSQL the key is in the store). */
  close(): Promise<void>
}

/** Points the stack's `anthropic` provider at a fake Anthropic that plays the prompt cache. */
export async function cachingAnthropic(stack: Stack): Promise<CachingAnthropic> {
  const anthropic = await startFakeAnthropic({ promptCache: true })
  const gw = stack.running.gateway
  await gw.secrets.set('anthropic', anthropic.apiKey)
  await gw.store.providers.upsert('anthropic', 'anthropic', anthropic.url)
  await gw.configChanged()
  return {
    anthropic,
    async close() {
      await anthropic.close()
      await gw.secrets.delete('anthropic').catch(() => false)
    },
  }
}

/**
 * Three turns of `session` as Claude Code sends them: two that share their prefix (the second
 * reads what the first wrote), then one whose system prompt carries a new timestamp (a miss).
 */
export async function sessionMissingOnce(stack: Stack, secret: string, session: string): Promise<void> {
  const asks = ['Read the router', 'Split it into modules', 'Run the tests']
  for (const [i, system] of [LONG_INSTRUCTIONS, LONG_INSTRUCTIONS, `${LONG_INSTRUCTIONS} Now: 10:04.`].entries())
    await waitForRecord(stack.running.gateway, await sendCacheTurn(stack.url, secret, session, { system, asks: asks.slice(0, i + 1) }))
}
