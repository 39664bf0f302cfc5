import { useState } from 'react'
import type { PresetInput } from '../../../../contract/presets'
import { call } from '../../api/client'
import { useDebounced, useQuery } from '../../lib/useQuery'
import { Section } from '../../components/Page'
import { Field } from '../../components/Field'
import { CodeBlock } from '../../components/Copy'
import { fieldMessage } from '../../api/errors'

/** What a caller's message becomes upstream under the draft, updated as the draft changes. */
export function PresetPreview({ input, valid }: { input: PresetInput; valid: boolean }) {
  const [message, setMessage] = useState('Summarize the attached meeting notes.')
  const key = useDebounced(JSON.stringify({ input, message, valid }), 350)
  const q = useQuery(async () => {
    const { input: i, message: m, valid: v } = JSON.parse(key) as { input: PresetInput; message: string; valid: boolean }
    if (!v || !m.trim()) return null
    return call('presets.preview', { preset: i, request: { messages: [{ role: 'user', content: m }] } })
  }, [key])
  return (
    <Section title="Live preview" testId="preset-preview" description="The upstream request a caller’s message turns into under this preset, as you edit it.">
      <Field label="A caller sends">
        <textarea rows={2} value={message} onChange={(e) => setMessage(e.target.value)} data-testid="preview-message" />
      </Field>
      {!valid ? (
        <p className="muted" data-testid="preview-invalid">
          Fix the highlighted fields to see the preview.
        </p>
      ) : q.error ? (
        <div className="callout callout-danger" role="alert" data-testid="preview-error">
          {q.error.field ? `${q.error.field}: ${fieldMessage(q.error)}` : q.error.message}
        </div>
      ) : !q.data ? (
        <p className="muted" role="status">
          {q.loading ? 'Building the preview…' : 'Type a message to preview.'}
        </p>
      ) : (
        <div data-testid="preview-result" aria-busy={q.loading}>
          <p>
            Goes to <strong data-testid="preview-provider">{q.data.provider}</strong> as <code data-testid="preview-model">{q.data.upstream_model}</code>
          </p>
          <CodeBlock code={JSON.stringify(q.data.body, null, 2)} testId="preview-body" label="Upstream request body" />
        </div>
      )}
    </Section>
  )
}
