import { useState } from 'react'
import type { Preset } from '../../../../contract/presets'
import { call } from '../../api/client'
import { ConfirmDialog } from '../../components/Dialog'
import { Section } from '../../components/Page'
import { useToast } from '../../components/Toasts'
import { dateTime } from '../../lib/format'
import { diffLines } from '../../lib/diff'
import { TableHead } from '../../components/Table'

const FIELDS: Array<[keyof Preset, string]> = [
  ['model', 'Model'],
  ['system_prompt', 'System prompt'],
  ['temperature', 'Temperature'],
  ['top_p', 'top_p'],
  ['max_tokens', 'Max tokens'],
  ['fallbacks', 'Fallbacks'],
  ['equal_candidates', 'Equal candidates'],
  ['description', 'Description'],
  ['soft_cap', 'Soft cap'],
]

const show = (v: unknown): string => {
  if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) return '—'
  if (Array.isArray(v)) return v.join(', ')
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  // A soft cap, the one object among a preset's fields.
  if (typeof v === 'object' && 'model' in v && 'at_percent' in v) return `${String(v.model)} from ${String(v.at_percent)} %`
  return String(v)
}

function Diff({ a, b }: { a: Preset; b: Preset }) {
  const changed = FIELDS.filter(([f]) => JSON.stringify(a[f]) !== JSON.stringify(b[f]))
  if (!changed.length)
    return (
      <p className="muted" data-testid="diff-none">
        v{a.version} and v{b.version} are the same.
      </p>
    )
  return (
    <table className="table table-compact diff-table" data-testid="preset-diff">
      <TableHead cols={['Field', `v${a.version}`, `v${b.version}`]} />
      <tbody>
        {changed.map(([f, label]) =>
          f === 'system_prompt' ? (
            <tr key={f} data-testid={`diff-${f}`}>
              <th scope="row">{label}</th>
              <td colSpan={2}>
                <pre className="diff-lines">
                  {diffLines(a.system_prompt ?? '', b.system_prompt ?? '').map((l, i) => (
                    <div key={i} className={`diff-${l.kind}`}>
                      <span aria-hidden="true">{l.kind === 'add' ? '+ ' : l.kind === 'del' ? '− ' : '  '}</span>
                      <span className="sr-only">{l.kind === 'add' ? 'added: ' : l.kind === 'del' ? 'removed: ' : ''}</span>
                      {l.text || ' '}
                    </div>
                  ))}
                </pre>
              </td>
            </tr>
          ) : (
            <tr key={f} data-testid={`diff-${f}`}>
              <th scope="row">{label}</th>
              <td className="diff-del">{show(a[f])}</td>
              <td className="diff-add">{show(b[f])}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  )
}

function VersionSelect(props: { id: string; label: string; versions: Preset[]; value: number; onChange: (v: number) => void }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(Number(e.target.value))} data-testid={props.id}>
        {props.versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
          </option>
        ))}
      </select>
    </div>
  )
}

/** Every version, newest first, with a diff between any two and restore of an older one. */
export function PresetHistory({ versions, isAdmin, onRestored }: { versions: Preset[]; isAdmin: boolean; onRestored: (p: Preset) => void }) {
  const toast = useToast()
  const newest = versions[0]
  const [from, setFrom] = useState(versions[1]?.version ?? newest.version)
  const [to, setTo] = useState(newest.version)
  const [restoring, setRestoring] = useState<Preset | null>(null)
  const a = versions.find((v) => v.version === from) ?? newest
  const b = versions.find((v) => v.version === to) ?? newest
  return (
    <Section title="Version history" testId="preset-history" description="Every save is a new version; requests record the version that served them.">
      <div className="table-wrap">
        <table className="table table-compact" data-testid="versions-table">
          <TableHead cols={['Version', 'Saved', 'By', 'Model']} actions />
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} data-testid="version-row" data-version={v.version}>
                <td>
                  v{v.version} {v.version === newest.version && <span className="badge badge-accent">current</span>}
                </td>
                <td>{dateTime(v.created_at)}</td>
                <td>{v.created_by ?? '—'}</td>
                <td>
                  <code>{v.model}</code>
                </td>
                <td className="row-actions">
                  {isAdmin && v.version !== newest.version && (
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => setRestoring(v)}
                      data-testid="version-restore"
                      aria-label={`Restore version ${v.version}`}
                    >
                      Restore
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {versions.length > 1 ? (
        <>
          <div className="inline-form">
            <VersionSelect id="diff-from" label="Compare" versions={versions} value={from} onChange={setFrom} />
            <VersionSelect id="diff-to" label="with" versions={versions} value={to} onChange={setTo} />
          </div>
          <Diff a={a} b={b} />
        </>
      ) : (
        <p className="muted">Only one version so far. Save a change to compare versions.</p>
      )}
      {restoring && (
        <ConfirmDialog
          title={`Restore v${restoring.version}?`}
          message={`Saves v${restoring.version}'s settings again as a new version (v${newest.version + 1}). Keys with this preset as default use it from their next request.`}
          confirmLabel="Restore"
          showBusy
          onClose={() => setRestoring(null)}
          onConfirm={async () => {
            const p = await call('presets.restore', { name: restoring.name, version: restoring.version })
            toast(`Restored v${restoring.version} as v${p.version}`)
            setRestoring(null)
            onRestored(p)
          }}
        />
      )}
    </Section>
  )
}
