import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveModel, type ModelSources } from '../../src/gateway/pipeline/resolveModel'
import { ProviderHealth } from '../../src/gateway/providers/health'
import { ProviderRegistry } from '../../src/gateway/providers/registry'
import { builtinCatalog } from '../../src/gateway/pricing/catalog'
import { PriceBook } from '../../src/gateway/pricing/priceBook'
import { createUpstreamAgent } from '../../src/gateway/upstream/client'
import { MemorySecretStore } from '../support/memorySecretStore'

/**
 * A bare model resolves without a promise once the credentials it asks about are known: the
 * request path pays for the lookup once, not on every request.
 */
describe('resolveModel', () => {
  const agent = createUpstreamAgent()
  after(() => agent.close())
  const sourcesWith = (env: NodeJS.ProcessEnv): ModelSources => {
    const registry = new ProviderRegistry(new MemorySecretStore(), env, agent)
    return { registry, priceBook: new PriceBook(builtinCatalog), health: new ProviderHealth(agent, registry) }
  }

  it('waits for a credential the first time, then answers at once, and waits again after a reload', async () => {
    const sources = sourcesWith({ OPENAI_API_KEY: 'sk-test' })
    const first = resolveModel(sources, 'gpt-4o-mini')
    assert.ok(first instanceof Promise, 'the first lookup of the credential is waited for')
    assert.equal((await first).provider.id, 'openai')
    const next = resolveModel(sources, 'gpt-4o-mini')
    assert.ok(!(next instanceof Promise), 'a known credential is read without a promise')
    assert.equal(next.provider.id, 'openai')
    assert.equal(next.upstreamModel, 'gpt-4o-mini')
    assert.equal(next.priced?.entry.model, 'gpt-4o-mini')
    // A reload may change any key: what was known is looked up again.
    sources.registry.reload([])
    assert.ok(resolveModel(sources, 'gpt-4o-mini') instanceof Promise)
  })

  it('a provider named in the model resolves at once, and an empty model after it is the caller’s error', () => {
    const sources = sourcesWith({})
    const target = resolveModel(sources, 'anthropic/claude-haiku-4-5')
    assert.ok(!(target instanceof Promise))
    assert.equal(target.provider.id, 'anthropic')
    assert.throws(() => resolveModel(sources, 'anthropic/'), /model names a provider but no model/)
  })

  it('with no credential known for a bare model, waits and routes to the catalog’s first provider so the error names it', async () => {
    const sources = sourcesWith({})
    assert.equal((await resolveModel(sources, 'gpt-4o-mini')).provider.id, 'openai')
    // Known now to have no key: still resolved the slow way (local servers may list the model).
    const again = resolveModel(sources, 'gpt-4o-mini')
    assert.ok(again instanceof Promise)
    assert.equal((await again).provider.id, 'openai')
  })
})
