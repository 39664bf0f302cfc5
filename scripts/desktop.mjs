#!/usr/bin/env node
// Starts the desktop app from source (`npm start`):
//   1. fetches the Electron binary if it is missing (`node node_modules/electron/install.js`);
//   2. rebuilds the native modules (better-sqlite3, keytar) for Electron's ABI in a folder of
//      their own, .electron-native/node_modules, leaving node_modules built for Node so `npm test`
//      and `npm run serve` keep working;
//   3. runs `electron-vite dev` with its output in .electron-native/out and .electron-native as the
//      app folder. Node resolves bare imports from the bundle's folder upwards, so the main bundle
//      (.electron-native/out/main/index.js) finds the Electron builds in .electron-native/node_modules
//      first and everything else in ./node_modules. No NODE_PATH (ignored by ESM), no require hook.
// `node scripts/desktop.mjs --prepare` does 1 and 2 and builds (no dev server): the Electron e2e test uses it.
import { spawnSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const nativeRoot = path.join(root, '.electron-native')
const nativeModules = path.join(nativeRoot, 'node_modules')
const NATIVE = ['better-sqlite3', 'keytar']
const prepareOnly = process.argv.includes('--prepare')
const passThrough = process.argv.slice(2).filter((a) => a !== '--prepare')
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name)

function fail(message) {
  console.error(`\nnpm start: ${message}\n`)
  process.exit(1)
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, shell: process.platform === 'win32', ...opts })
  return r.status === 0
}

// 1. The Electron binary.
const electronPkg = path.join(root, 'node_modules', 'electron')
if (!fs.existsSync(path.join(electronPkg, 'package.json'))) fail('the electron package is not installed: run npm install first.')
const electronVersion = JSON.parse(fs.readFileSync(path.join(electronPkg, 'package.json'), 'utf8')).version
const hasBinary = () => fs.existsSync(path.join(electronPkg, 'path.txt')) && fs.existsSync(path.join(electronPkg, 'dist'))
if (!hasBinary()) {
  console.log(`Fetching the Electron ${electronVersion} binary (node_modules/electron/install.js)…`)
  const ok = run(process.execPath, [path.join(electronPkg, 'install.js')])
  if (!ok || !hasBinary()) {
    fail(
      `could not download the Electron ${electronVersion} binary, so the desktop app cannot start.\n` +
        '  It comes from https://github.com/electron/electron/releases (or $ELECTRON_MIRROR).\n' +
        '  Check the network or proxy, or set ELECTRON_MIRROR / ELECTRON_CUSTOM_DIR, then run npm start again.\n' +
        '  The headless gateway does not need Electron: npm run serve.',
    )
  }
}

// 2. Native modules for Electron's ABI, in their own folder.
const stampFile = path.join(nativeRoot, 'stamp.json')
const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version
const present = NATIVE.filter((m) => fs.existsSync(path.join(root, 'node_modules', m, 'package.json')))
const wanted = {
  electron: electronVersion,
  platform: process.platform,
  arch: process.arch,
  modules: Object.fromEntries(present.map((m) => [m, versionOf(path.join(root, 'node_modules', m))])),
}
let stamp = null
try {
  stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'))
} catch {
  /* first run */
}
if (JSON.stringify(stamp) !== JSON.stringify(wanted)) {
  console.log(`Building ${present.join(' and ')} for Electron ${electronVersion} in .electron-native (once per version)…`)
  fs.rmSync(nativeModules, { recursive: true, force: true })
  fs.mkdirSync(nativeModules, { recursive: true })
  for (const m of present) {
    const dest = path.join(nativeModules, m)
    fs.cpSync(path.join(root, 'node_modules', m), dest, {
      recursive: true,
      filter: (src) => !/[\\/]build([\\/]|$)/.test(path.relative(path.join(root, 'node_modules', m), src)),
    })
    // A prebuilt binary for this Electron version when one exists, else compile against Electron's headers.
    const prebuilt = run(bin('prebuild-install'), ['--runtime', 'electron', '--target', electronVersion, '--arch', process.arch], { cwd: dest })
    if (!prebuilt) {
      const built = run(
        bin('node-gyp'),
        ['rebuild', '--release', `--target=${electronVersion}`, `--arch=${process.arch}`, '--dist-url=https://electronjs.org/headers', '--runtime=electron'],
        { cwd: dest },
      )
      if (!built) {
        if (m === 'keytar') {
          console.warn('keytar could not be built for Electron: "stay signed in" and the keychain will be unavailable in the desktop app.')
          fs.rmSync(dest, { recursive: true, force: true })
          continue
        }
        fail(`could not build ${m} for Electron ${electronVersion}. A C++ toolchain and Python are needed (see node-gyp's README).`)
      }
    }
  }
  fs.writeFileSync(stampFile, JSON.stringify(wanted))
}
// The app folder Electron starts: the same name (and so the same data folder) as the packaged app.
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
fs.writeFileSync(
  path.join(nativeRoot, 'package.json'),
  JSON.stringify({ name: pkg.name, productName: pkg.productName, version: pkg.version, type: 'module', main: 'out/main/index.js', private: true }, null, 2),
)

// 3. Build and run.
const outDir = path.join(nativeRoot, 'out')
if (prepareOnly) {
  if (!run(bin('electron-vite'), ['build', '--outDir', outDir])) fail('electron-vite build failed.')
  console.log(`ready: start with  ${path.relative(root, path.join(electronPkg, 'cli.js'))} ${path.relative(root, nativeRoot)}`)
  process.exit(0)
}
const child = spawn(bin('electron-vite'), ['dev', '--outDir', outDir, '--entry', nativeRoot, ...passThrough], {
  stdio: 'inherit',
  cwd: root,
  shell: process.platform === 'win32',
})
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)))
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => child.kill(s))
