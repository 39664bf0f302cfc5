import type { Db } from './db'
import { bumpConfigRev } from './configRev'
import type { Preset } from '../../contract/presets'

/** A stored version: the preset with its fallbacks as JSON text. */
type VersionRow = Omit<Preset, 'fallbacks'> & { fallbacks: string }

const toPreset = (r: VersionRow): Preset => ({ ...r, fallbacks: JSON.parse(r.fallbacks) as string[] })

export type PresetFields = Omit<Preset, 'version' | 'created_at' | 'created_by'>

/** Every save is a new version; the preset row points at the current one. Old versions stay for history and records. */
export class PresetsRepo {
  constructor(private readonly db: Db) {}

  save(p: PresetFields, actor: string, now = Date.now()): Preset {
    return this.db.transaction(() => {
      const last = this.db.prepare(`SELECT MAX(version) FROM preset_versions WHERE name = ?`).pluck().get(p.name) as number | null
      const version = (last ?? 0) + 1
      const row: VersionRow = {
        name: p.name,
        version,
        model: p.model,
        system_prompt: p.system_prompt,
        temperature: p.temperature,
        max_tokens: p.max_tokens,
        top_p: p.top_p,
        fallbacks: JSON.stringify(p.fallbacks),
        description: p.description,
        created_at: now,
        created_by: actor,
      }
      this.db
        .prepare(
          `INSERT INTO preset_versions (name, version, model, system_prompt, temperature, max_tokens, top_p, fallbacks, description, created_at, created_by)
           VALUES (@name, @version, @model, @system_prompt, @temperature, @max_tokens, @top_p, @fallbacks, @description, @created_at, @created_by)`,
        )
        .run(row)
      this.db
        .prepare(
          `INSERT INTO presets (name, version, created_at, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at, deleted_at = NULL`,
        )
        .run(p.name, version, now, now)
      bumpConfigRev(this.db)
      return toPreset(row)
    })()
  }

  /** Current versions of presets that are not deleted. */
  all(): Preset[] {
    const rows = this.db
      .prepare(
        `SELECT v.* FROM presets p JOIN preset_versions v ON v.name = p.name AND v.version = p.version
         WHERE p.deleted_at IS NULL ORDER BY p.name`,
      )
      .all() as VersionRow[]
    return rows.map(toPreset)
  }

  get(name: string): Preset | undefined {
    return this.all().find((p) => p.name === name)
  }

  versions(name: string): Preset[] {
    const rows = this.db.prepare(`SELECT * FROM preset_versions WHERE name = ? ORDER BY version DESC`).all(name) as VersionRow[]
    return rows.map(toPreset)
  }

  /** Keys whose default is this preset; deleting it would silently change what they do. */
  keysUsing(name: string): Array<{ id: string; name: string }> {
    return this.db.prepare(`SELECT id, name FROM keys WHERE default_preset = ? AND revoked_at IS NULL ORDER BY name`).all(name) as Array<{
      id: string
      name: string
    }>
  }

  delete(name: string, now = Date.now()): void {
    this.db.transaction(() => {
      const users = this.keysUsing(name)
      if (users.length > 0) {
        throw new Error(`preset ${name} is the default preset of ${users.map((k) => `${k.name} (${k.id})`).join(', ')}; change those keys first`)
      }
      const aliases = this.db
        .prepare(`SELECT pattern FROM aliases WHERE target IN (?, ?) ORDER BY pattern`)
        .pluck()
        .all(`policy/${name}`, `@preset/${name}`) as string[]
      if (aliases.length > 0) throw new Error(`preset ${name} is the target of alias ${aliases.join(', ')}; change those aliases first`)
      const changed = this.db.prepare(`UPDATE presets SET deleted_at = ? WHERE name = ? AND deleted_at IS NULL`).run(now, name).changes
      if (changed === 0) throw new Error(`no preset named ${name}`)
      bumpConfigRev(this.db)
    })()
  }
}
