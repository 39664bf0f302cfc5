import type { Sql } from './sql'
import { bumpConfigRev } from './configRev'
import type { Preset } from '../../contract/presets'
import type { SoftCap } from '../../contract/keys'

/** A stored version: the preset with its fallbacks and soft cap as JSON text (versions saved before soft caps have none) and its flags as 0 or 1. */
type VersionRow = Omit<Preset, 'fallbacks' | 'soft_cap' | 'response_cache_shared' | 'equal_candidates'> & {
  fallbacks: string
  soft_cap: string | null
  response_cache_shared: number
  equal_candidates: number
}

const toPreset = (r: VersionRow): Preset => ({
  ...r,
  fallbacks: JSON.parse(r.fallbacks) as string[],
  soft_cap: r.soft_cap === null ? null : (JSON.parse(r.soft_cap) as SoftCap),
  response_cache_shared: r.response_cache_shared === 1,
  equal_candidates: r.equal_candidates === 1,
})

/** What a save gives; a preset that says nothing of the response cache, a soft cap or equal candidates turns none on. */
export type PresetFields = Omit<
  Preset,
  'version' | 'created_at' | 'created_by' | 'soft_cap' | 'response_cache_ttl_s' | 'response_cache_shared' | 'equal_candidates'
> & {
  soft_cap?: SoftCap | null
} & Partial<Pick<Preset, 'response_cache_ttl_s' | 'response_cache_shared' | 'equal_candidates'>>

/** Every save is a new version; the preset row points at the current one. Old versions stay for history and records. */
export class PresetsRepo {
  constructor(private readonly sql: Sql) {}

  save(p: PresetFields, actor: string, now = Date.now()): Promise<Preset> {
    return this.sql.write(async (tx) => {
      const last = await tx.get<{ v: number | null }>(`SELECT MAX(version) AS v FROM preset_versions WHERE name = ?`, [p.name])
      const version = (last?.v ?? 0) + 1
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
        soft_cap: p.soft_cap ? JSON.stringify(p.soft_cap) : null,
        response_cache_ttl_s: p.response_cache_ttl_s ?? null,
        response_cache_shared: p.response_cache_shared ? 1 : 0,
        equal_candidates: p.equal_candidates ? 1 : 0,
        created_at: now,
        created_by: actor,
      }
      await tx.run(
        `INSERT INTO preset_versions (name, version, model, system_prompt, temperature, max_tokens, top_p, fallbacks, description, soft_cap, created_at, created_by, response_cache_ttl_s, response_cache_shared, equal_candidates)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.name,
          row.version,
          row.model,
          row.system_prompt,
          row.temperature,
          row.max_tokens,
          row.top_p,
          row.fallbacks,
          row.description,
          row.soft_cap,
          row.created_at,
          row.created_by,
          row.response_cache_ttl_s,
          row.response_cache_shared,
          row.equal_candidates,
        ],
      )
      await tx.run(
        `INSERT INTO presets (name, version, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at, deleted_at = NULL`,
        [p.name, version, now, now],
      )
      await bumpConfigRev(tx)
      return toPreset(row)
    })
  }

  /** Current versions of presets that are not deleted. */
  async all(): Promise<Preset[]> {
    const rows = await this.sql.all<VersionRow>(
      `SELECT v.* FROM presets p JOIN preset_versions v ON v.name = p.name AND v.version = p.version
       WHERE p.deleted_at IS NULL ORDER BY p.name`,
    )
    return rows.map(toPreset)
  }

  async get(name: string): Promise<Preset | undefined> {
    return (await this.all()).find((p) => p.name === name)
  }

  async versions(name: string): Promise<Preset[]> {
    const rows = await this.sql.all<VersionRow>(`SELECT * FROM preset_versions WHERE name = ? ORDER BY version DESC`, [name])
    return rows.map(toPreset)
  }

  /** Keys whose default is this preset; deleting it would silently change what they do. */
  keysUsing(name: string, sql: Sql = this.sql): Promise<Array<{ id: string; name: string }>> {
    return sql.all<{ id: string; name: string }>(`SELECT id, name FROM keys WHERE default_preset = ? AND revoked_at IS NULL ORDER BY name`, [name])
  }

  delete(name: string, now = Date.now()): Promise<void> {
    return this.sql.write(async (tx) => {
      const users = await this.keysUsing(name, tx)
      if (users.length > 0) {
        throw new Error(`preset ${name} is the default preset of ${users.map((k) => `${k.name} (${k.id})`).join(', ')}; change those keys first`)
      }
      const aliases = await tx.all<{ pattern: string }>(`SELECT pattern FROM aliases WHERE target IN (?, ?) ORDER BY pattern`, [
        `policy/${name}`,
        `@preset/${name}`,
      ])
      if (aliases.length > 0) throw new Error(`preset ${name} is the target of alias ${aliases.map((a) => a.pattern).join(', ')}; change those aliases first`)
      const changed = await tx.run(`UPDATE presets SET deleted_at = ? WHERE name = ? AND deleted_at IS NULL`, [now, name])
      if (changed === 0) throw new Error(`no preset named ${name}`)
      await bumpConfigRev(tx)
    })
  }
}
