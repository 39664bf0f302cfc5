import { MESSAGES_DEFAULT_MAX_TOKENS, playgroundWire, type PlaygroundWire } from '../../../../contract/playground'
import type { Output } from '../../../../contract'
import type { ApiError } from '../../api/errors'
import { Field } from '../../components/Field'
import { Section } from '../../components/Page'
import { Segmented } from '../../components/Segmented'
import type { RequestForm } from './useRequestForm'
import { WIRES } from './wires'

type Key = Output<'keys.list'>[number]
type Model = Output<'models.list'>[number]
type Preset = Output<'presets.list'>[number]

/** Who sends, through which wire, to which model or preset, with which parameters and system message. */
export function SetupPanel(props: {
  form: RequestForm
  keys: Key[]
  keyId: string
  model: string
  chatModels: Model[]
  modelsError: ApiError | null
  presets: Preset[] | undefined
}) {
  const { v, set, setWire, errors } = props.form
  const key = props.keys.find((k) => k.id === props.keyId)
  return (
    <Section title="Setup" testId="playground-setup">
      <Field label="Key" error={errors.key_id}>
        <select value={props.keyId} onChange={set('key_id')} data-testid="pg-key">
          {props.keys.map((k) => (
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
          value={v.wire}
          onChange={setWire}
          testId="pg-wire"
          columns={2}
          options={playgroundWire.options.map((w) => ({ value: w, label: WIRES[w].name }))}
        />
        <div className="field-hint" data-testid="pg-wire-hint">
          {WIRES[v.wire].hint}
        </div>
      </div>
      <Field label="Model or preset" error={errors.model} hint={props.modelsError ? `Models could not be loaded: ${props.modelsError.message}` : undefined}>
        <select value={props.model} onChange={set('model')} data-testid="pg-model">
          {!props.model && <option value="">Choose…</option>}
          {(props.presets ?? []).length > 0 && (
            <optgroup label="Presets">
              {props.presets!.map((p) => (
                <option key={p.name} value={`@preset/${p.name}`}>
                  @preset/{p.name} — {p.model}
                </option>
              ))}
            </optgroup>
          )}
          <optgroup label="Models">
            {props.chatModels.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
                {m.availability.available ? '' : ' (unavailable)'}
              </option>
            ))}
          </optgroup>
        </select>
      </Field>
      <div className="form-grid form-grid-3">
        <Field label="Temperature" error={errors.temperature}>
          <input inputMode="decimal" value={v.temperature} onChange={set('temperature')} placeholder="default" data-testid="pg-temperature" />
        </Field>
        <Field label="top_p" error={errors.top_p}>
          <input inputMode="decimal" value={v.top_p} onChange={set('top_p')} placeholder="default" data-testid="pg-top-p" />
        </Field>
        <Field label="Max tokens" error={errors.max_tokens}>
          <input
            inputMode="numeric"
            value={v.max_tokens}
            onChange={set('max_tokens')}
            placeholder={v.wire === 'messages' ? String(MESSAGES_DEFAULT_MAX_TOKENS) : 'default'}
            data-testid="pg-max-tokens"
          />
        </Field>
      </div>
      <Field label="System message" hint="Optional. A preset’s own system prompt is inserted before it.">
        <textarea rows={3} value={v.system} onChange={set('system')} data-testid="pg-system" />
      </Field>
    </Section>
  )
}
