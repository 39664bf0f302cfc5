// Builds the app with electron-vite (or reuses an out/ newer than every source file) and reads
// the built main and preload bundles and electron.builder.yml to prove the security settings.
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { BUILT, ROOT, buildApp } from '../support/build'

describe('the built desktop app', () => {
  let main = ''
  let preload = ''
  let builder = ''
  before(() => {
    buildApp()
    main = fs.readFileSync(BUILT.main, 'utf8')
    preload = fs.readFileSync(BUILT.preload, 'utf8')
    builder = fs.readFileSync(path.join(ROOT, 'electron.builder.yml'), 'utf8')
  })

  it('produced main, preload (one CommonJS file) and renderer bundles', () => {
    assert.match(main, /from "electron"/)
    assert.ok(fs.existsSync(BUILT.renderer))
    const requires = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1])
    assert.deepEqual([...new Set(requires)], ['electron'], 'a sandboxed preload may require only electron')
    assert.doesNotMatch(preload, /^\s*import\s/m, 'not an ES module')
  })

  it('the window is isolated and sandboxed, without Node', () => {
    assert.match(main, /contextIsolation:\s*true/)
    assert.match(main, /sandbox:\s*true/)
    assert.match(main, /nodeIntegration:\s*false/)
    assert.doesNotMatch(main, /nodeIntegration:\s*true|contextIsolation:\s*false|sandbox:\s*false|webSecurity:\s*false/)
  })

  it('the renderer loads from the privileged app:// protocol, never file://', () => {
    assert.match(main, /registerSchemesAsPrivileged/)
    assert.match(main, /standard:\s*true/)
    assert.match(main, /secure:\s*true/)
    assert.match(main, /\.handle\(APP_SCHEME|protocol\.handle\(/)
    assert.match(main, /`\$\{APP_SCHEME\}:\/\/\$\{APP_HOST\}`|app:\/\/gw/)
    assert.doesNotMatch(main, /loadFile\(/)
    assert.match(main, /Content-Security-Policy/)
    assert.match(main, /default-src 'none'/)
  })

  it('the preload exposes only the contract’s functions, never ipcRenderer', () => {
    const exposed = [...preload.matchAll(/exposeInMainWorld\(\s*["'](\w+)["']\s*,\s*([^)]*\))/g)]
    assert.equal(exposed.length, 1)
    assert.equal(exposed[0][1], 'gw')
    // What crosses is buildBridge's frozen object of functions; ipcRenderer is only its argument.
    assert.match(exposed[0][2], /^buildBridge\([\w.]*ipcRenderer\)/)
    assert.equal((preload.match(/exposeInMainWorld\(/g) ?? []).length, 1)
    assert.match(preload, /return Object\.freeze\(api\)/)
    assert.doesNotMatch(preload, /ipcRenderer\s*:/, 'not as a property of an exposed object')
  })

  it('permission requests are denied, navigation and new windows blocked, openExternal only for https', () => {
    assert.match(main, /setPermissionRequestHandler\(\([^)]*\)\s*=>\s*\w+\(false\)\)/)
    assert.match(main, /setPermissionCheckHandler\(\(\)\s*=>\s*false\)/)
    assert.match(main, /setWindowOpenHandler/)
    assert.match(main, /action:\s*"deny"/)
    assert.match(main, /"will-navigate"/)
    assert.match(main, /"will-attach-webview"/)
    assert.match(main, /protocol === "https:"/)
    assert.match(main, /openExternal/)
    assert.match(main, /onHeadersReceived/)
  })

  it('IPC handlers check the sender frame', () => {
    assert.match(main, /senderFrame/)
    assert.match(main, /forbidden_sender/)
  })

  it('electron-builder sets the fuses, unpacks native modules and rebuilds them at packaging', () => {
    const fuses = /electronFuses:\n((?:\s+\w+:.*\n)+)/.exec(builder)?.[1] ?? ''
    const get = (k: string) => new RegExp(`^\\s+${k}:\\s*(\\w+)`, 'm').exec(fuses)?.[1]
    assert.equal(get('runAsNode'), 'false')
    assert.equal(get('enableNodeOptionsEnvironmentVariable'), 'false')
    assert.equal(get('enableNodeCliInspectArguments'), 'false')
    assert.equal(get('enableEmbeddedAsarIntegrityValidation'), 'true')
    assert.equal(get('onlyLoadAppFromAsar'), 'true')
    assert.equal(get('enableCookieEncryption'), 'true')
    assert.match(builder, /node_modules\/better-sqlite3\/\*\*/)
    assert.match(builder, /node_modules\/keytar\/\*\*/)
    assert.match(builder, /npmRebuild: true/)
    assert.match(builder, /hardenedRuntime: true/)
    assert.match(builder, /entitlements: build\/entitlements\.mac\.plist/)
    assert.match(builder, /target: \[AppImage, deb\]/)
    assert.match(builder, /target: nsis/)
    assert.match(builder, /target: dmg/)
    for (const f of ['build/icon.png', 'build/icon.svg', 'build/icons/512x512.png', 'build/entitlements.mac.plist'])
      assert.ok(fs.existsSync(path.join(ROOT, f)), f)
  })
})
