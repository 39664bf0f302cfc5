import { useMemo } from 'react'
import type { Output } from '../../../../contract'
import { playgroundPath } from '../../../../contract/playground'
import { call } from '../../api/client'
import { useQuery, type Query } from '../../lib/useQuery'
import { useRoute } from '../../lib/router'
import { PageHeader, Section } from '../../components/Page'
import { Empty, ErrorState, Loading } from '../../components/States'
import { Snippets } from '../../components/Snippets'
import { checkRequest, chatInput, conversationOf, paramsOf, preferredModel } from './request'
import { useRequestForm } from './useRequestForm'
import { useConversation } from './useConversation'
import { useRun } from './useRun'
import { SetupPanel } from './SetupPanel'
import { MessageList } from './MessageList'
import { RunOutcome } from './RunOutcome'
import { Composer } from './Composer'

type Key = Output<'keys.list'>[number]

type Queries = { models: Query<Output<'models.list'>>; presets: Query<Output<'presets.list'>>; status: Query<Output<'gateway.status'>> }

export function PlaygroundScreen() {
  const keys = useQuery(() => call('keys.list', {}), [])
  // Asked at once with the keys, not once they are in.
  const models = useQuery(() => call('models.list', {}), [])
  const presets = useQuery(() => call('presets.list', {}), [])
  const status = useQuery(() => call('gateway.status', {}), [])
  const active = (keys.data ?? []).filter((k) => !k.revoked_at)
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
      <Playground keys={active} models={models} presets={presets} status={status} />
    </>
  )
}

/** The Playground itself, once there is a key to send with: setup, conversation and the same request as code. */
function Playground({ keys, models, presets, status }: { keys: Key[] } & Queries) {
  const route = useRoute()
  const form = useRequestForm(route.query)
  const conversation = useConversation()
  const run = useRun((text) => conversation.add([{ role: 'assistant', content: text }]))

  // Until the user chooses: the first active key, and an available chat model.
  const keyId = form.v.key_id || (keys[0]?.id ?? '')
  const chatModels = useMemo(() => (models.data ?? []).filter((m) => m.kind !== 'embedding'), [models.data])
  const model = form.v.model || (preferredModel(chatModels)?.id ?? '')
  const wire = form.v.wire
  const params = paramsOf(form.v)

  const send = () => {
    if (run.streaming) return
    const extra = conversation.drafted()
    const messages = conversationOf(form.v.system, conversation.messages, extra)
    if (!messages.some((m) => m.role !== 'system')) {
      form.setErrors({ draft: 'type a message first' })
      return
    }
    const errors = checkRequest(params, wire, keyId, model)
    form.setErrors(errors)
    if (Object.keys(errors).length) return
    conversation.add(extra)
    conversation.setDraft('')
    void run.start(chatInput(keyId, wire, model, messages, params))
  }

  // The code's model when none is chosen yet: an example, as the code is meant to be edited.
  const codeModel = model || 'gpt-4o-mini'
  const pending = conversationOf(form.v.system, conversation.messages, conversation.drafted())
  const snippetMessages = pending.some((m) => m.role !== 'system') ? pending : [...pending, { role: 'user' as const, content: 'Hello' }]

  return (
    <>
      <div className="playground">
        <SetupPanel form={form} keys={keys} keyId={keyId} model={model} chatModels={chatModels} modelsError={models.error} presets={presets.data} />
        <Section
          title="Conversation"
          testId="playground-chat"
          actions={
            conversation.messages.length > 0 && (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  conversation.clear()
                  run.clear()
                }}
                disabled={run.streaming}
                data-testid="pg-clear"
              >
                Clear
              </button>
            )
          }
        >
          <MessageList conversation={conversation} reply={run.reply} streaming={run.streaming} />
          <RunOutcome run={run} keyId={keyId} wire={wire} />
          <Composer
            draft={conversation.draft}
            setDraft={conversation.setDraft}
            error={form.errors.draft}
            streaming={run.streaming}
            onSend={send}
            onStop={run.stop}
          />
        </Section>
      </div>
      {status.data && (
        <Section
          title="Copy as code"
          testId="pg-code"
          description={`The same request from your own code, to ${playgroundPath(wire, codeModel)}. Put your key in GW_KEY (the gateway never shows it again).`}
        >
          <Snippets input={{ baseUrl: status.data.base_url, wire, model: codeModel, messages: snippetMessages, params }} testId="pg-snippet" />
        </Section>
      )}
    </>
  )
}
