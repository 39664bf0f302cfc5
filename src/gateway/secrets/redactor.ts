/**
 * Shortest run of a credential's characters treated as an echo of it. A provider that truncates
 * its message mid-key, or quotes only part of it, still loses what it quoted; runs this short
 * cannot be a key's public prefix alone (`sk-ant-api03-` is 13), and OpenAI's own masking
 * (`sk-…` and the last four) keeps fewer random characters than this, so it passes.
 */
const FRAGMENT = 16

const REDACTED = '[redacted]'

/**
 * Removes provider credentials from text a provider sent before it becomes the gateway's own
 * (an error message, a status reason). It knows every credential the gateway has loaded, from
 * the keychain or the environment, including ones replaced since: a request still running on the
 * old key may be answered with it.
 */
export class Redactor {
  /** Every FRAGMENT-long run of every credential, as it is and JSON-escaped. */
  private readonly runs = new Set<string>()
  /** Credentials no longer than FRAGMENT, whole, in both forms. */
  private readonly short = new Set<string>()

  remember(secret: string): void {
    if (secret === '') return
    for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
      if (form.length <= FRAGMENT) this.short.add(form)
      else for (let i = 0; i + FRAGMENT <= form.length; i++) this.runs.add(form.slice(i, i + FRAGMENT))
    }
  }

  /** The text with every echo of a credential replaced by `[redacted]`. */
  scrub(text: string): string {
    const spans: Array<[number, number]> = []
    if (this.runs.size > 0) {
      for (let i = 0; i + FRAGMENT <= text.length; i++) if (this.runs.has(text.slice(i, i + FRAGMENT))) spans.push([i, i + FRAGMENT])
    }
    for (const s of this.short) for (let at = text.indexOf(s); at !== -1; at = text.indexOf(s, at + 1)) spans.push([at, at + s.length])
    if (spans.length === 0) return text
    spans.sort((a, b) => a[0] - b[0])
    let out = ''
    let kept = 0
    let [from, to] = spans[0]
    for (const [s, e] of spans) {
      if (s <= to) {
        to = Math.max(to, e)
        continue
      }
      out += text.slice(kept, from) + REDACTED
      kept = to
      ;[from, to] = [s, e]
    }
    return out + text.slice(kept, from) + REDACTED + text.slice(to)
  }
}
