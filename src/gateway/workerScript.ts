import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

/** Each entry's bundle, made once per process when running from source. */
const bundles = new Map<string, string>()

/**
 * The code of a worker thread whose entry is `entry` (its name without extension, beside the module
 * at `moduleUrl`), for `new Worker(script, { eval: true })`: the built .js beside that module, or,
 * when running from source (tests, `npx gw`), the .ts bundled once per process by esbuild (tsx's own
 * compiler), with the packages named in `external` required from node_modules instead. Not tsx's
 * loader in the thread: module customization hooks inside worker threads can deadlock on Node 20
 * (nodejs/node#50948), and a thread stuck in its loader held every flush for its whole timeout and
 * then kept the process from exiting.
 */
export function workerScript(moduleUrl: string, entry: string, external: string[]): string {
  if (!moduleUrl.endsWith('.ts')) return `import(${JSON.stringify(new URL(`./${entry}.js`, moduleUrl).href)})`
  const source = fileURLToPath(new URL(`./${entry}.ts`, moduleUrl))
  let bundled = bundles.get(source)
  if (bundled === undefined) {
    const requireHere = createRequire(moduleUrl)
    const esbuild = requireHere('esbuild') as typeof import('esbuild')
    const out = esbuild.buildSync({ entryPoints: [source], bundle: true, platform: 'node', format: 'cjs', target: 'node20', external, write: false })
    // Packages (native modules among them) resolve from here, not from the thread's working directory.
    bundled = `((require) => {\n${out.outputFiles[0].text}\n})(require('node:module').createRequire(${JSON.stringify(moduleUrl)}))`
    bundles.set(source, bundled)
  }
  return bundled
}
