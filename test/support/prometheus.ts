import fs from 'node:fs'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from './freePort'
import { tempDir } from './tempDir'
import { waitUntil } from './waitUntil'

/** Debian's Prometheus (CI installs the package); a test that needs it skips, saying so, without it. */
export const PROMETHEUS_BIN = '/usr/bin/prometheus'
export const prometheusMissing = fs.existsSync(PROMETHEUS_BIN) ? false : `${PROMETHEUS_BIN} is not installed (Debian's prometheus package)`

/** One instant vector sample as /api/v1/query answers it. */
export interface Sample {
  metric: Record<string, string>
  value: number
}

export interface Prometheus {
  url: string
  /** An instant query through the HTTP API. */
  query(promql: string): Promise<Sample[]>
  close(): Promise<void>
}

/**
 * A real Prometheus on a free loopback port, with a storage dir of its own, scraping `targets`
 * (host:port) every second at `/metrics`, with a bearer token when given. Resolves once it is ready.
 */
export async function startPrometheus(targets: string[], opts: { token?: string } = {}): Promise<Prometheus> {
  const dir = tempDir('gw-prometheus-')
  const port = await freePort()
  const auth = opts.token ? `\n    authorization:\n      credentials: ${JSON.stringify(opts.token)}` : ''
  fs.writeFileSync(
    path.join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: gw\n    scrape_interval: 1s\n    metrics_path: /metrics${auth}\n    static_configs:\n      - targets: ${JSON.stringify(targets)}\n`,
  )
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${stderr}`)
        return fetch(`${url}/-/ready`).then(
          (r) => r.ok,
          () => false,
        )
      },
      { what: 'prometheus ready', timeoutMs: 20_000, intervalMs: 100 },
    )
  } catch (err) {
    await close()
    throw err
  }
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)
      const body = (await res.json()) as {
        status: string
        error?: string
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> }
      }
      if (body.status !== 'success') throw new Error(`prometheus: ${body.error}`)
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }))
    },
    close,
  }
}
