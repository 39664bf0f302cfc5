/**
 * Reads what callgrind counted (its output file format: https://valgrind.org/docs/manual/cl-format.html):
 * the instructions each function executed itself and with what it called. The JavaScript that V8
 * compiled has no symbols, so its functions are named from node's `--perf-basic-prof` map
 * (`/tmp/perf-PID.map`: start address, size and name of each piece of code, one a line).
 */
import fs from 'node:fs'

export interface FunctionCosts {
  /** Instructions executed in each function's own code. */
  self: Map<string, number>
  /** The same, with what each function called (a recursive call counted once). */
  inclusive: Map<string, number>
  total: number
}

/** The instructions a callgrind output file counted, by function. */
export function readCallgrind(file: string, perfMap: string | null): FunctionCosts {
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
  const inclusive = new Map<string, number>()
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  let fn = ''
  let callee = ''
  let call = false
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) {
      fn = nameOf(line.slice(3))
      call = false
    } else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4))
    else if (line.startsWith('calls=')) call = true
    else if (fn && /^[+\-*\d]/.test(line)) {
      const cost = Number(line.split(/\s+/)[1] ?? 0)
      if (call) {
        if (callee !== fn) add(inclusive, fn, cost)
        call = false
      } else {
        add(self, fn, cost)
        add(inclusive, fn, cost)
      }
    }
  }
  return { self, inclusive, total: [...self.values()].reduce((a, b) => a + b, 0) }
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
