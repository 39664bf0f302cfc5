import type { Output } from '../../../../contract'

/** One option per preset, after the caller's own "none" option. */
export function PresetOptions({ presets }: { presets: Output<'presets.list'> | undefined }) {
  return (
    <>
      {presets?.map((p) => (
        <option key={p.name} value={p.name}>
          {p.name} ({p.model})
        </option>
      ))}
    </>
  )
}
