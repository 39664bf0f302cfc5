import { useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import { MESSAGES_DEFAULT_MAX_TOKENS, playgroundWire, type PlaygroundEvent, type PlaygroundWire } from '../../../../contract/playground'
import { call, stream } from '../../api/client'
import { toApiError } from '../../api/errors'
import { useQuery } from '../../lib/useQuery'
import { href, useRoute } from '../../lib/router'
import { numOrUndef } from '../../lib/format'
import { Field } from '../../components/Field'
import { PageHeader, Section } from '../../components/Page'
import { Empty, ErrorState, Loading } from '../../components/States'
import { Snippets } from '../../components/Snippets'
import { Segmented } from '../../components/Segmented'
import { RunError, RunResult } from './RunResult'
import { SentRequest } from './SentRequest'
import { WIRES } from './wires'

type Role = 'user' | 'assistant'
interface Msg {
  role: Role
  content: string
}
type Done = Extract<PlaygroundEvent, { type: 'done' }>
type Failed = Extract<PlaygroundEvent, { type: 'error' }>
type Sent = Extract<PlaygroundEvent, { type: 'request' }>

export function PlaygroundScreen() {
  const route = useRoute()
  const keys = useQuery(() => call('keys.list', {}), [])
  const models = useQuery(() => call('models.list', {}), [])
  const presets = useQuery(() => call('presets.list', {}), [])
  const status = useQuery(() => call('gateway.status', {}), [])
  const active = (keys.data ?? []).filter((k) => !k.revoked_at)
  const [keyChoice, setKeyId] = useState(route.query.get('key') ?? '')
  const [modelChoice, setModel] = useState(route.query.get('model') ?? '')
  const [wire, setWire] = useState<PlaygroundWire>(playgroundWire.catch('chat').parse(route.query.get('wire')))
  const [system, setSystem] = useState('')
  const [messages, setMessages] = useState<Msg[]>([])
  const [draft, setDraft] = useState('')
  const [temperature, setTemperature] = useState('')
  const [topP, setTopP] = useState('')
  const [maxTokens, setMaxTokens] = useState('')
  const [streaming, setStreaming] = useState(false)
  const [reply, setReply] = useState<string | null>(null)
  const [done, setDone] = useState<Done | null>(null)
  const [failure, setFailure] = useState<Failed | null>(null)
  const [sent, setSent] = useState<Sent | null>(null)
  const [stopped, setStopped] = useState(false)
  const stopRef = useRef<AbortController | null>(null)
  const [paramError, setParamError] = useState<Record<string, string>>({})
  const replyRef = useRef<HTMLDivElement>(null)

  // Until the user chooses: the first active key, and an available chat model.
  const keyId = keyChoice || (active[0]?.id ?? '')
  const chatModels = useMemo(() => (models.data ?? []).filter((m) => m.kind !== 'embedding'), [models.data])
  const preferred =
    chatModels.find((m) => m.id === 'openai/gpt-4o-mini' && m.availability.available) ?? chatModels.find((m) => m.availability.available) ?? chatModels[0]
  const model = modelChoice || (preferred?.id ?? '')

  const key = active.find((k) => k.id === keyId)
  const params = { temperature: numOrUndef(temperature), top_p: numOrUndef(topP), max_tokens: numOrUndef(maxTokens) }
  const allMessages = (extra: Msg[] = []) => [...(system.trim() ? [{ role: 'system' as const, content: system }] : []), ...messages, ...extra]

  const checkParams = () => {
    const e: Record<string, string> = {}
    const t = params.temperature
    const maxT = WIRES[wire].maxTemperature
    if (t !== undefined && (Number.isNaN(t) || t < 0 || t > maxT)) e.temperature = `must be between 0 and ${maxT}`
    const p = params.top_p
    if (p !== undefined && (Number.isNaN(p) || p < 0 || p > 1)) e.top_p = 'must be between 0 and 1'
    const m = params.max_tokens
    if (m !== undefined && (!Number.isInteger(m) || m <= 0)) e.max_tokens = 'must be a positive whole number'
    if (!keyId) e.key_id = 'choose a key'
    if (!model) e.model = 'choose a model or preset'
    setParamError(e)
    return Object.keys(e).length === 0
  }

  const send = async (e?: FormEvent) => {
    e?.preventDefault()
    if (streaming) return
    const extra: Msg[] = draft.trim() ? [{ role: 'user', content: draft }] : []
    const msgs = allMessages(extra)
    if (!msgs.some((m) => m.role !== 'system')) {
      setParamError({ draft: 'type a message first' })
      return
    }
    if (!checkParams()) return
    setMessages((m) => [...m, ...extra])
    setDraft('')
    setReply('')
    setDone(null)
    setFailure(null)
    setSent(null)
    setStopped(false)
    setStreaming(true)
    const stop = new AbortController()
    stopRef.current = stop
    let text = ''
    let ended = false
    try {
      await stream(
        {
          key_id: keyId,
          wire,
          model,
          messages: msgs,
          ...(params.temperature !== undefined && { temperature: params.temperature }),
          ...(params.top_p !== undefined && { top_p: params.top_p }),
          ...(params.max_tokens !== undefined && { max_tokens: params.max_tokens }),
        },
        (ev) => {
          if (ev.type === 'request') setSent(ev)
          else if (ev.type === 'delta') {
            text += ev.content
            setReply(text)
          } else if (ev.type === 'done') {
            ended = true
            setDone(ev)
          } else {
            ended = true
            setFailure(ev)
          }
        },
        stop.signal,
      )
      if (stop.signal.aborted) setStopped(true)
      else if (!ended)
        setFailure({
          type: 'error',
          request_id: null,
          status: 502,
          error: { message: 'The gateway ended the stream without a result. See Requests for what happened.', type: 'stream_ended', code: null },
        })
    } catch (err) {
      const ae = toApiError(err)
      if (stop.signal.aborted) setStopped(true)
      else setFailure({ type: 'error', request_id: null, status: ae.status, error: { message: ae.message, type: ae.code, code: ae.code } })
    } finally {
      stopRef.current = null
      setStreaming(false)
      setReply(null)
      if (text) setMessages((m) => [...m, { role: 'assistant', content: text }])
    }
  }

  const pending = allMessages(draft.trim() ? [{ role: 'user', content: draft }] : [])
  const snippetMessages = pending.some((m) => m.role !== 'system') ? pending : [...pending, { role: 'user' as const, content: 'Hello' }]

  const onComposerKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void send()
    }
  }

  const header = (
    <PageHeader
      title="Playground"
      subtitle="Send a chat request with one of your keys through the same pipeline as API calls: same presets, policies, balance and records."
    />
  )
  if (keys.error)
    return (
      <>
        {header}
        <ErrorState error={keys.error} onRetry={keys.reload} />
      </>
    )
  if (!keys.data)
    return (
      <>
        {header}
        <Loading label="Loading your keys…" />
      </>
    )
  if (active.length === 0)
    return (
      <>
        {header}
        <Empty title="You need a key to use the Playground" testId="playground-no-keys">
          <p>The Playground sends requests as one of your keys, so its policy, balance and default preset apply.</p>
          <a className="btn btn-primary" href="#/keys">
            Create a key
          </a>
        </Empty>
      </>
    )

  return (
    <>
      {header}
      <div className="playground">
        <Section title="Setup" testId="playground-setup">
          <Field label="Key" error={paramError.key_id}>
            <select value={keyId} onChange={(e) => setKeyId(e.target.value)} data-testid="pg-key">
              {active.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.masked})
                </option>
              ))}
            </select>
          </Field>
          {key?.default_preset && (
            <p className="callout small" data-testid="pg-default-preset-note">
              This key’s default preset <strong>{key.default_preset}</strong> applies unless you pick a preset below.
            </p>
          )}
          <div className="field">
            <span className="field-label" aria-hidden="true">
              Wire
            </span>
            <Segmented<PlaygroundWire>
              label="Wire"
              value={wire}
              onChange={setWire}
              testId="pg-wire"
              fill
              options={[
                { value: 'chat', label: WIRES.chat.name },
                { value: 'messages', label: WIRES.messages.name },
                { value: 'responses', label: WIRES.responses.name },
              ]}
            />
            <div className="field-hint" data-testid="pg-wire-hint">
              {WIRES[wire].hint}
            </div>
          </div>
          <Field label="Model or preset" error={paramError.model} hint={models.error ? `Models could not be loaded: ${models.error.message}` : undefined}>
            <select value={model} onChange={(e) => setModel(e.target.value)} data-testid="pg-model">
              {!model && <option value="">Choose…</option>}
              {(presets.data ?? []).length > 0 && (
                <optgroup label="Presets">
                  {presets.data!.map((p) => (
                    <option key={p.name} value={`@preset/${p.name}`}>
                      @preset/{p.name} — {p.model}
                    </option>
                  ))}
                </optgroup>
              )}
              <optgroup label="Models">
                {chatModels.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.id}
                    {m.availability.available ? '' : ' (unavailable)'}
                  </option>
                ))}
              </optgroup>
            </select>
          </Field>
          <div className="form-grid form-grid-3">
            <Field label="Temperature" error={paramError.temperature}>
              <input
                inputMode="decimal"
                value={temperature}
                onChange={(e) => setTemperature(e.target.value)}
                placeholder="default"
                data-testid="pg-temperature"
              />
            </Field>
            <Field label="top_p" error={paramError.top_p}>
              <input inputMode="decimal" value={topP} onChange={(e) => setTopP(e.target.value)} placeholder="default" data-testid="pg-top-p" />
            </Field>
            <Field label="Max tokens" error={paramError.max_tokens}>
              <input
                inputMode="numeric"
                value={maxTokens}
                onChange={(e) => setMaxTokens(e.target.value)}
                placeholder={wire === 'messages' ? String(MESSAGES_DEFAULT_MAX_TOKENS) : 'default'}
                data-testid="pg-max-tokens"
              />
            </Field>
          </div>
          <Field label="System message" hint="Optional. A preset’s own system prompt is inserted before it.">
            <textarea rows={3} value={system} onChange={(e) => setSystem(e.target.value)} data-testid="pg-system" />
          </Field>
        </Section>

        <Section
          title="Conversation"
          testId="playground-chat"
          actions={
            messages.length > 0 && (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  setMessages([])
                  setDone(null)
                  setFailure(null)
                  setSent(null)
                  setStopped(false)
                }}
                disabled={streaming}
                data-testid="pg-clear"
              >
                Clear
              </button>
            )
          }
        >
          <ol className="messages" data-testid="pg-messages" aria-label="Messages">
            {messages.length === 0 && reply === null && <li className="muted message-empty">No messages yet. Write one below and press Enter.</li>}
            {messages.map((m, i) => (
              <li key={i} className={`message message-${m.role}`} data-testid={`pg-message-${m.role}`}>
                <div className="message-head">
                  <label htmlFor={`msg-role-${i}`} className="sr-only">
                    Role of message {i + 1}
                  </label>
                  <select
                    id={`msg-role-${i}`}
                    value={m.role}
                    onChange={(e) => setMessages((ms) => ms.map((x, j) => (j === i ? { ...x, role: e.target.value as Role } : x)))}
                    disabled={streaming}
                    className="select-small"
                  >
                    <option value="user">user</option>
                    <option value="assistant">assistant</option>
                  </select>
                  <button
                    type="button"
                    className="btn-icon"
                    aria-label={`Remove message ${i + 1}`}
                    onClick={() => setMessages((ms) => ms.filter((_, j) => j !== i))}
                    disabled={streaming}
                  >
                    ×
                  </button>
                </div>
                <label htmlFor={`msg-${i}`} className="sr-only">
                  Message {i + 1}
                </label>
                <textarea
                  id={`msg-${i}`}
                  className="message-text"
                  rows={Math.min(8, Math.max(1, m.content.split('\n').length))}
                  value={m.content}
                  onChange={(e) => setMessages((ms) => ms.map((x, j) => (j === i ? { ...x, content: e.target.value } : x)))}
                  disabled={streaming}
                />
              </li>
            ))}
            {reply !== null && (
              <li className="message message-assistant message-streaming" data-testid="pg-reply">
                <div className="message-head">
                  <span>assistant</span>
                  {streaming && <span className="spinner" aria-label="Streaming" />}
                </div>
                <div className="message-body" ref={replyRef} aria-live="polite" data-testid="pg-reply-text">
                  {reply || (streaming ? '…' : '')}
                </div>
              </li>
            )}
          </ol>
          {failure && <RunError error={failure} keyId={keyId} />}
          {stopped && (
            <p className="callout small" data-testid="pg-stopped">
              Stopped: the gateway ended the provider call and recorded the request as aborted.{' '}
              {sent && (
                <a href={href('requests', sent.request_id)} data-testid="pg-stopped-link">
                  See the request record
                </a>
              )}
            </p>
          )}
          {done && <RunResult done={done} wire={sent?.wire ?? wire} />}
          {sent && <SentRequest sent={sent} />}
          <form className="composer" onSubmit={send} data-testid="pg-form">
            <Field label="Your message" error={paramError.draft} hint="Enter sends, Shift+Enter adds a line.">
              <textarea rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onComposerKey} data-testid="pg-input" />
            </Field>
            <div className="form-actions">
              {streaming && (
                <button type="button" className="btn" onClick={() => stopRef.current?.abort()} data-testid="pg-stop">
                  Stop
                </button>
              )}
              <button className="btn btn-primary" disabled={streaming} data-testid="pg-send">
                {streaming ? 'Streaming…' : 'Send'}
              </button>
            </div>
          </form>
        </Section>
      </div>
      {status.data && (
        <Section
          title="Copy as code"
          testId="pg-code"
          description={`The same request from your own code, to ${WIRES[wire].path}. Put your key in GW_KEY (the gateway never shows it again).`}
        >
          <Snippets input={{ baseUrl: status.data.base_url, wire, model: model || 'gpt-4o-mini', messages: snippetMessages, params }} testId="pg-snippet" />
        </Section>
      )}
    </>
  )
}
