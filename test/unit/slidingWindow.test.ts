import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SlidingWindow } from '../../src/gateway/slidingWindow'

describe('a sliding window of events per key', () => {
  it('allows `limit` events per key within the window and says how long the next must wait', () => {
    const w = new SlidingWindow(1000)
    assert.equal(w.take(['a'], 2, 0), 0)
    assert.equal(w.take(['a'], 2, 100), 0)
    assert.equal(w.take(['a'], 2, 200), 800, 'until the first ages out')
    assert.equal(w.take(['a', 'b'], 2, 300), 700, 'a full key holds back the others')
    assert.equal(w.take(['b'], 2, 300), 0, 'and counted nothing for them')
    assert.equal(w.take(['a'], 2, 1000), 0)
  })

  it('forgets keys whose events have all aged out, so made-up names do not grow it for ever', () => {
    const w = new SlidingWindow(1000)
    for (let i = 0; i < 500; i++) w.take([`guess-${i}`], 5, i)
    assert.equal(w.size, 500)
    w.take(['late'], 5, 1400)
    assert.equal(w.size, 100, 'names tried within the last second stay (401–499), and the new one')
    w.take(['later'], 5, 2500)
    assert.equal(w.size, 1)
  })

  it('over a long run (its queue dropped from the front and compacted many times) admits exactly while fewer than `limit` are in the window', () => {
    const w = new SlidingWindow(1000)
    const admitted: number[] = []
    for (let t = 0; t < 20_000; t += 3) {
      const inWindow = admitted.filter((a) => a > t - 1000)
      const wait = w.take(['busy'], 100, t)
      if (inWindow.length < 100) {
        assert.equal(wait, 0, `at ${t}: ${inWindow.length} in the window, admitted`)
        admitted.push(t)
      } else {
        assert.equal(wait, inWindow[0] + 1000 - t, `at ${t}: refused until the oldest ages out`)
      }
    }
    assert.equal(admitted.length, 2000, '100 a second for 20 s')
  })
})
