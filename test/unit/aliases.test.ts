import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AliasTable } from '../../src/gateway/pipeline/aliases'

const table = (...pairs: Array<[string, string]>) => {
  const t = new AliasTable()
  t.reload(pairs.map(([pattern, target]) => ({ pattern, target, note: null, created_at: 0, updated_at: 0 })))
  return t
}
const targetOf = (t: AliasTable, model: string) => t.match(model)?.target ?? null

describe('alias table', () => {
  it('exact beats glob; among globs the longest literal prefix, then the pattern text', () => {
    const t = table(['claude-*', 'a'], ['claude-haiku-*', 'b'], ['claude-haiku-4-5', 'c'], ['*', 'd'], ['claude-h*x', 'e'], ['claude-h*', 'f'])
    assert.equal(targetOf(t, 'claude-haiku-4-5'), 'c')
    assert.equal(targetOf(t, 'claude-haiku-3'), 'b')
    assert.equal(targetOf(t, 'claude-hx'), 'f', 'same prefix length: claude-h* sorts before claude-h*x')
    assert.equal(targetOf(t, 'claude-opus'), 'a')
    assert.equal(targetOf(t, 'gpt-4o'), 'd')
  })

  it('* matches any run of characters, none included; nothing else is special', () => {
    const t = table(['gpt-4.1*', 'a'], ['x*y*z', 'b'])
    assert.equal(targetOf(t, 'gpt-4.1'), 'a')
    assert.equal(targetOf(t, 'gpt-4.1-mini'), 'a')
    assert.equal(targetOf(t, 'gpt-4x1'), null, '. is literal')
    assert.equal(targetOf(t, 'xyz'), 'b')
    assert.equal(targetOf(t, 'x/a/y:b@z'), 'b')
    assert.equal(targetOf(t, 'xyzz!'), null, 'anchored')
  })

  it('a reload replaces every alias', () => {
    const t = table(['a*', 'x'])
    t.reload([])
    assert.equal(t.match('abc'), null)
  })
})
