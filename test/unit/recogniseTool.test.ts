import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sessionOfUserId, ToolHeaders, toolOf, toolSession } from '../../src/gateway/pipeline/recogniseTool'

const headers = (h: Partial<ToolHeaders>) => Object.assign(new ToolHeaders(), h)

describe('recognising the tool and its session', () => {
  it('names tools as their users know them, from the user agent, originator or their own headers', () => {
    const cases: Array<[Partial<ToolHeaders>, string | null]> = [
      [{ 'user-agent': 'claude-cli/2.1.330 (external, cli)' }, 'claude-code 2.1.330'],
      [{ 'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.169.0)', originator: 'codex_exec' }, 'codex_exec 0.169.0'],
      // An originator whose user agent does not carry its version.
      [{ 'user-agent': 'reqwest/0.12', originator: 'codex_cli_rs' }, 'codex_cli_rs'],
      [{ 'user-agent': 'OpenAI/JS 6.1.0' }, 'openai-js 6.1.0'],
      [{ 'user-agent': 'OpenAI/Python 1.99.1' }, 'openai-python 1.99.1'],
      [{ 'user-agent': 'Anthropic/JS 0.128.0' }, 'anthropic-js 0.128.0'],
      [{ 'user-agent': 'GeminiCLI/0.9.0 (linux; x64)' }, 'gemini-cli 0.9.0'],
      [{ 'user-agent': 'GeminiCLI-tui/0.61.0/gemini-3.8-flash (linux; x64; terminal)' }, 'gemini-cli 0.61.0'],
      [{ 'user-agent': 'ai-sdk/openai/2.0.30 ai-sdk/provider-utils/3.0.9 runtime/node.js/22' }, 'ai-sdk/openai 2.0.30'],
      [{ 'user-agent': 'curl/8.5.0' }, 'curl 8.5.0'],
      [{ 'user-agent': 'python-requests' }, 'python-requests'],
      // A browser cannot set its user agent; Claude Code's beta flag or the SDK's headers still say.
      [{ 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)', 'anthropic-beta': 'claude-code-20250219' }, 'claude-code'],
      [{ 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)', 'x-stainless-lang': 'js', 'x-stainless-package-version': '6.1.0' }, 'stainless-js 6.1.0'],
      [{ 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' }, 'browser'],
      [{}, null],
    ]
    for (const [h, tool] of cases) assert.equal(toolOf(headers(h)), tool, JSON.stringify(h))
    assert.equal(toolOf(null), null)
    assert.equal(toolOf(headers({ 'user-agent': `x${'y'.repeat(300)}/1.0` }))?.length, 128, 'bounded as attribution strings are')
  })

  it("reads the session from Claude Code's header, Codex's headers in order, or the body only when no header names one", () => {
    let asked = 0
    const body = () => (asked++, 'from-body')
    assert.equal(toolSession(headers({ 'x-claude-code-session-id': 'cc-1' }), body), 'cc-1')
    assert.equal(toolSession(headers({ 'session-id': 's-1', 'thread-id': 't-1' }), body), 's-1')
    assert.equal(toolSession(headers({ 'thread-id': 't-1' }), body), 't-1')
    assert.equal(toolSession(headers({ 'x-codex-turn-metadata': JSON.stringify({ session_id: 'm-1', turn_id: 'x' }) }), body), 'm-1')
    assert.equal(asked, 0, 'the body is not read when a header named the session')
    assert.equal(toolSession(headers({ 'x-codex-turn-metadata': '{not json' }), body), 'from-body')
    assert.equal(toolSession(null, body), 'from-body')
    assert.equal(toolSession(null, null), null)
    assert.equal(toolSession(headers({ 'session-id': 'x'.repeat(129) }), null), null, 'an over-long id is not taken')
  })

  it("reads Claude Code's metadata.user_id in both its forms, and nothing else", () => {
    assert.equal(
      sessionOfUserId(JSON.stringify({ device_id: 'd', account_uuid: '', session_id: 'bc072202-ff35-44a4-b47b-5720a1638024' })),
      'bc072202-ff35-44a4-b47b-5720a1638024',
    )
    assert.equal(
      sessionOfUserId(`user_${'a'.repeat(64)}_account_1f2e3d4c-0000-4000-8000-000000000001_session_5a8c1e52-1d2b-4c9e-9f4a-0b6d7e8f9a01`),
      '5a8c1e52-1d2b-4c9e-9f4a-0b6d7e8f9a01',
    )
    for (const other of ['alice', '{"device_id":"d"}', '{broken', 42, null, undefined, { session_id: 'x' }])
      assert.equal(sessionOfUserId(other), null, JSON.stringify(other))
  })
})
