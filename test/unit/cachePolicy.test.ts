import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatDuration, parseDuration } from '../../src/contract/duration'
import { cacheScope, cacheTtl, deterministic } from '../../src/gateway/pipeline/cachePolicy'
import type { Preset } from '../../src/contract/presets'
import { resolveAttribution } from '../../src/gateway/pipeline/attribution'
import { keyRow } from '../support/keyRow'

describe('the response cache: who asks for it and for how long', () => {
  it('reads durations as people write them', () => {
    assert.equal(parseDuration('90s'), 90)
    assert.equal(parseDuration('30m'), 1800)
    assert.equal(parseDuration(' 1H '), 3600)
    assert.equal(parseDuration('7d'), 604_800)
    assert.equal(parseDuration('600'), 600)
    for (const bad of ['', '1.5h', '-1h', 'h', '1w', 'forever']) assert.equal(parseDuration(bad), null, bad)
    assert.equal(formatDuration(3600), '1h')
    assert.equal(formatDuration(90), '90s')
    assert.equal(formatDuration(172_800), '2d')
  })

  it('a deterministic request is temperature 0 with one choice, on every wire', () => {
    assert.equal(deterministic({ temperature: 0 }), true)
    assert.equal(deterministic({ temperature: 0, n: 1 }), true)
    assert.equal(deterministic({ temperature: 0, n: 2 }), false)
    assert.equal(deterministic({}), false)
    assert.equal(deterministic({ temperature: 0.2 }), false)
    assert.equal(deterministic({ generationConfig: { temperature: 0 } }), true)
    assert.equal(deterministic({ generationConfig: { temperature: 0, candidateCount: 2 } }), false)
  })

  it("the request's word wins; a preset's TTL, else the key's, covers deterministic requests only; a shared preset scopes answers to itself", () => {
    const plain = keyRow('k')
    const caching = keyRow('c', { response_cache_ttl_s: 600 })
    const preset = (ttl: number | null, shared = false): Preset => ({
      name: 'evals',
      version: 1,
      model: 'openai/gpt-4o-mini',
      system_prompt: null,
      temperature: 0,
      max_tokens: null,
      top_p: null,
      fallbacks: [],
      description: null,
      response_cache_ttl_s: ttl,
      response_cache_shared: shared,
      soft_cap: null,
      equal_candidates: false,
      created_at: 0,
      created_by: null,
    })
    assert.equal(cacheTtl(null, plain, null, { temperature: 0 }), null)
    assert.equal(cacheTtl(3600, plain, null, { temperature: 1 }), 3600)
    assert.equal(cacheTtl(null, caching, null, { temperature: 0 }), 600)
    assert.equal(cacheTtl(null, caching, null, { temperature: 0.5 }), null)
    assert.equal(cacheTtl(0, caching, null, { temperature: 0 }), null)
    assert.equal(cacheTtl(60, caching, null, { temperature: 0 }), 60)
    assert.equal(cacheTtl(null, plain, preset(120), { temperature: 0 }), 120)
    assert.equal(cacheTtl(null, caching, preset(120), { temperature: 0 }), 120)
    assert.equal(cacheTtl(null, caching, preset(null), { temperature: 0 }), 600)
    assert.equal(cacheTtl(null, plain, preset(120), { temperature: 0.7 }), null)
    assert.equal(cacheScope(plain, null), 'k')
    assert.equal(cacheScope(plain, preset(120)), 'k')
    assert.equal(cacheScope(plain, preset(120, true)), 'preset:evals')
  })

  it('X-Gw-Cache asks, is no dimension, and a bad value is ignored and listed; gw.cache wins and a bad one is a 400', () => {
    const h = (...pairs: string[]) => pairs
    assert.equal(resolveAttribution(undefined, h('X-Gw-Cache', '1h')).cache, 3600)
    assert.equal(resolveAttribution(undefined, h('x-gw-cache', 'off')).cache, 0)
    const bad = resolveAttribution(undefined, h('X-Gw-Cache', 'forever', 'X-Gw-Team', 'a'))
    assert.equal(bad.cache, null)
    assert.deepEqual(bad.dimensions, { team: 'a' })
    assert.equal(bad.ignored[0].name, 'x-gw-cache')
    assert.equal(resolveAttribution(undefined, h('X-Gw-Cache', '31d')).cache, null, 'over 30 days')
    const both = resolveAttribution({ cache: '5m' }, h('X-Gw-Cache', '1h'))
    assert.equal(both.cache, 300)
    assert.equal(both.ignored[0].reason, 'gw.cache in the body wins')
    assert.equal(resolveAttribution({ cache: false }, []).cache, 0)
    assert.equal(resolveAttribution({ cache: 120 }, []).cache, 120)
    assert.throws(
      () => resolveAttribution({ cache: 'soon' }, []),
      (e: any) => e.param === 'gw.cache' && e.status === 400,
    )
    assert.equal(resolveAttribution(undefined, []).cache, null)
  })
})
