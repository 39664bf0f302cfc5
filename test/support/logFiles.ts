import assert from 'node:assert/strict'
import fs from 'node:fs'

/** A rotated log's files, oldest first: `<file>.N` … `<file>.1`, then `<file>` itself; the numbers must have no gap. */
export function logFiles(file: string): string[] {
  const rotated: string[] = []
  for (let n = 1; fs.existsSync(`${file}.${n}`); n++) rotated.unshift(`${file}.${n}`)
  return [...rotated, file]
}

/**
 * The lines of each of a rotated log's files, oldest first, each parsed: every file ends with
 * its last line whole, so a line split between two files fails here, as does a line not JSON.
 */
export function logLinesByFile(file: string): Array<{ file: string; bytes: number; lines: Array<Record<string, any>> }> {
  return logFiles(file).map((f) => {
    const text = fs.readFileSync(f, 'utf8')
    assert.ok(text === '' || text.endsWith('\n'), `${f} ends with a whole line`)
    const lines = text
      .split('\n')
      .slice(0, -1)
      .map((l, i) => {
        try {
          return JSON.parse(l) as Record<string, any>
        } catch {
          return assert.fail(`${f}, line ${i + 1} is not JSON: ${l.slice(0, 200)}`)
        }
      })
    return { file: f, bytes: Buffer.byteLength(text), lines }
  })
}
