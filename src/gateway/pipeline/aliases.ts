import type { Alias } from '../../contract/aliases'
import { globRegex } from './glob'

/** The alias a requested model matched, for the record. */
export interface AliasMatch {
  pattern: string
  target: string
}

interface Glob extends AliasMatch {
  regex: RegExp
  /** Characters before the first `*`: the longer, the more specific. */
  prefix: number
}

/**
 * Model aliases compiled once per configuration reload, so a request pays one map lookup and,
 * only when no exact pattern matches, a test of each glob in precedence order. An exact pattern
 * beats any glob; among globs the longest literal prefix wins, then the pattern text. `*` matches
 * any run of characters (also none); nothing else is special.
 */
export class AliasTable {
  private exact = new Map<string, AliasMatch>()
  private globs: Glob[] = []

  reload(aliases: Alias[]): void {
    this.exact = new Map()
    this.globs = []
    for (const { pattern, target } of aliases) {
      if (!pattern.includes('*')) {
        this.exact.set(pattern, { pattern, target })
        continue
      }
      const regex = globRegex(pattern)
      this.globs.push({ pattern, target, regex, prefix: pattern.indexOf('*') })
    }
    this.globs.sort((a, b) => b.prefix - a.prefix || (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0))
  }

  /** The alias for a requested model id, or null. Its target is used as is: aliases do not chain. */
  match(model: string): AliasMatch | null {
    const exact = this.exact.get(model)
    if (exact) return exact
    for (const g of this.globs) if (g.regex.test(model)) return g
    return null
  }
}
