import type { Locator } from 'playwright-core'
import { BasePage } from './base'

export interface PresetFields {
  name?: string
  model?: string
  system?: string
  temperature?: string
  maxTokens?: string
  topP?: string
  fallbacks?: string
  description?: string
  /** The response cache's TTL, as typed (`1h`). */
  cacheTtl?: string
  softCapModel?: string
  softCapAt?: string
  /** The model and its fallbacks are equal candidates. */
  equalCandidates?: boolean
}

export class PresetsPage extends BasePage {
  row(name: string): Locator {
    return this.page.locator(`[data-testid="preset-row"][data-preset-name="${name}"]`)
  }
  async openNew(): Promise<void> {
    await this.id('new-preset').click()
    await this.id('preset-form').waitFor()
  }
  async fill(f: PresetFields): Promise<void> {
    const set: Array<[Exclude<keyof PresetFields, 'equalCandidates'>, string]> = [
      ['name', 'preset-name'],
      ['model', 'preset-model'],
      ['system', 'preset-system'],
      ['temperature', 'preset-temperature'],
      ['maxTokens', 'preset-max-tokens'],
      ['topP', 'preset-top-p'],
      ['fallbacks', 'preset-fallbacks'],
      ['description', 'preset-description'],
      ['cacheTtl', 'preset-cache-ttl'],
      ['softCapModel', 'preset-soft-cap-model'],
      ['softCapAt', 'preset-soft-cap-at'],
    ]
    for (const [k, id] of set) if (f[k] !== undefined) await this.id(id).fill(f[k]!)
    if (f.equalCandidates !== undefined) await this.id('preset-equal-candidates').setChecked(f.equalCandidates)
  }
  async save(): Promise<void> {
    await this.answerOf('presets.save', () => this.id('preset-save').click())
  }
  /** The preview once it shows the upstream body for the current draft. */
  async previewBody(contains: string): Promise<string> {
    await this.waitForText(this.id('preview-body'), contains)
    return this.id('preview-body').innerText()
  }
  versions(): Locator {
    return this.id('version-row')
  }
  async restore(version: number): Promise<void> {
    await this.page.locator(`[data-testid="version-row"][data-version="${version}"]`).getByTestId('version-restore').click()
    await this.answerOf('presets.restore', () => this.id('confirm-ok').click())
  }
}
