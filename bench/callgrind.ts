/**
 * Reads what callgrind counted (its output file format: https://valgrind.org/docs/manual/cl-format.html):
 * the instructions each function executed in its own code. The JavaScript that V8
 * compiled has no symbols, so its functions are named from node's `--perf-basic-prof` map
 * (`/tmp/perf-PID.map`: start address, size and name of each piece of code, one a line).
 */
import fs from 'node:fs'

/**
 * The instructions each function executed in its own code, from a callgrind output file (a call's
 * cost lines, what the callee executed, are not added to the caller).
 */
export function readCallgrind(file: string, perfMap: string | null): Map<string, number> {
  const name = namer(perfMap)
  const names = new Map<string, string>()
  /** `(id) name` defines a compressed name, `(id)` refers to it. */
  const nameOf = (token: string) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(token)
    if (!m) return name(token)
    if (m[2] !== undefined) names.set(m[1], name(m[2]))
    return names.get(m[1]) ?? token
  }
  const self = new Map<string, number>()
  let fn = ''
  let call = false
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      fn = nameOf(line.slice(3))
      call = false
    } else if (line.startsWith('cfn=')) nameOf(line.slice(4))
    else if (line.startsWith('calls=')) call = true
    else if (fn && /^[+\-*\d]/.test(line)) {
      if (call) call = false
      else self.set(fn, (self.get(fn) ?? 0) + Number(line.split(/\s+/)[1] ?? 0))
    }
  }
  return self
}

/** The total instructions of a callgrind output file (its `summary:` or `totals:` line). */
export function totalOf(file: string): number {
  const m = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(file, 'utf8'))
  return m ? Number(m[1]) : 0
}

/**
 * A function's name as reports show it: compiled JavaScript named from the perf map (`JS name
 * file:line`, the bundle's hashed name and columns dropped, so two builds' names compare), a native
 * symbol without its parameters, a recursion level (`'2`) dropped.
 */
function namer(perfMap: string | null): (raw: string) => string {
  const code = perfMap && fs.existsSync(perfMap) ? readPerfMap(perfMap) : []
  const jit = (address: number): string | null => {
    let lo = 0
    let hi = code.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (code[mid].start <= address) lo = mid + 1
      else hi = mid - 1
    }
    const found = code[hi]
    return found && address < found.start + found.size ? found.name : null
  }
  return (raw) => {
    const bare = raw.replace(/'\d+$/, '')
    const address = /^0x([0-9a-f]+)$/.exec(bare)
    if (!address) return bare.replace(/\(.*$/s, '')
    const js = jit(parseInt(address[1], 16))
    if (!js) return 'JIT code (unnamed)'
    return (
      'JS ' +
      js
        .replace(/^JS:[*^~+]?/, '')
        .replace(/file:\/\/\/\S*?\/out\/main\/(\w+)-[\w-]+\.js/, 'gateway:$1')
        .replace(/\/\S*?\/node_modules\//, '')
        .replace(/:\d+:\d+$/, '')
    )
  }
}

function readPerfMap(file: string): Array<{ start: number; size: number; name: string }> {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ')
      return { start: parseInt(start, 16), size: parseInt(size, 16), name: name.join(' ') }
    })
    .sort((a, b) => a.start - b.start)
}
