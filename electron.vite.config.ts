import { resolve } from 'node:path'
import { defineConfig, externalizeDepsPlugin } from 'electron-vite'
import react from '@vitejs/plugin-react'

/**
 * The main process's chunks in ASCII. V8 keeps each script's source in memory, and keeps a source
 * with a single character beyond Latin-1 (an arrow, a curly quote, in a comment as much as in a
 * string) at two bytes a character: the gateway's 595 KB chunk took 1,162 KB of heap. esbuild
 * writes strings and regular expressions with escapes (`charset: 'ascii'`); the comments it leaves
 * are escaped here, each within its line, so the source map's lines still hold.
 */
const asciiOnly = {
  name: 'ascii-only',
  renderChunk: (code: string) => ({
    code: code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    map: null,
  }),
}

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    esbuild: { charset: 'ascii' },
    build: {
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'src/main/index.ts'),
          // `gw` compiled, so `npm run serve` runs plain Node (no TypeScript loader in memory).
          gw: resolve(import.meta.dirname, 'src/gateway/cli/gw.ts'),
          // The request-record thread's entry; recordWriter finds it beside itself.
          recordWorker: resolve(import.meta.dirname, 'src/gateway/store/recordWorker.ts'),
          // The span thread's entry (tracing on); spanHandoff finds it beside itself.
          spanThread: resolve(import.meta.dirname, 'src/gateway/tracing/spanThread.ts'),
        },
        // Shared chunks beside the entries, not in chunks/, so `new URL('./recordWorker.js',
        // import.meta.url)` resolves from whichever chunk recordWriter (or spanHandoff) lands in.
        output: { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
        plugins: [asciiOnly],
      },
    },
  },
  preload: {
    // One CommonJS file with zod bundled in, so the renderer can run sandboxed: a sandboxed
    // preload can require only 'electron' (and a few Node built-ins), never node_modules.
    plugins: [externalizeDepsPlugin({ exclude: ['zod'] })],
    build: {
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      // electron-vite leaves renderer minification off; the dashboard is also served over HTTP.
      minify: 'esbuild',
      chunkSizeWarningLimit: 700,
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'src/renderer/index.html') },
        output: {
          // React alone, then every other dependency (charts, zod): no chunk imports one that imports it back.
          manualChunks: (id: string) => (/node_modules\/(react|react-dom|scheduler)\//.test(id) ? 'react' : id.includes('node_modules') ? 'vendor' : undefined),
        },
      },
    },
  },
})
