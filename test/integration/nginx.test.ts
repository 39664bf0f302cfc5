import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import dns from 'node:dns'
import { once } from 'node:events'
import fs from 'node:fs'
import type net from 'node:net'
import path from 'node:path'
import OpenAI from 'openai'
import { Agent, fetch as undiciFetch } from 'undici'
import { openStore } from '../../src/gateway/store/openStore'
import { ROOT } from '../support/build'
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai'
import { startGatewayProcesses, type GatewayProcess } from '../support/gatewayProcesses'
import { postgresSkipReason, sharedPostgres } from '../support/postgres'
import { tempDir } from '../support/tempDir'
import { freePort } from '../support/freePort'
import { waitUntil } from '../support/waitUntil'

const NGINX = '/usr/sbin/nginx'
/** The configuration docs/team.md shows: this test runs it, so the page cannot drift from what works. */
const EXAMPLE = path.join(ROOT, 'docs/examples/nginx-gw.conf')
/** The name clients use in the example, which the gateways are started to accept. */
const SERVER_NAME = 'gw.example.com'

const skip = !fs.existsSync(NGINX) ? `nginx is not installed (${NGINX}; apt-get install nginx)` : (postgresSkipReason() ?? false)

/** The example with the test's addresses: each `server 127.0.0.1:PORT` line one of the gateways, `listen 80` a free loopback port. */
function exampleFor(ports: number[], listen: number): string {
  const text = fs.readFileSync(EXAMPLE, 'utf8')
  const servers = text.match(/^\s*server 127\.0\.0\.1:\d+\b/gm) ?? []
  assert.equal(servers.length, ports.length, `${EXAMPLE} lists one upstream server per gateway`)
  let i = 0
  const upstreams = text.replace(/^(\s*server 127\.0\.0\.1:)\d+\b/gm, (_, head: string) => `${head}${ports[i++]}`)
  assert.match(upstreams, /^\s*listen 80;$/m, `${EXAMPLE} listens on port 80`)
  return upstreams.replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listen};`)
}

/**
 * nginx as an unprivileged process of the test's own: everything (pid, logs, temporary files)
 * in `dir`. As root its workers run as nobody (the `user` directive), which then needs to reach `dir`.
 */
function nginxConfig(dir: string, site: string): string {
  const root = process.getuid?.() === 0
  const group = fs.readFileSync('/etc/group', 'utf8').includes('\nnogroup:') ? 'nogroup' : 'nobody'
  return [
    ...(root ? [`user nobody ${group};`] : []),
    'worker_processes 1;',
    `error_log ${dir}/error.log;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${dir}/access.log;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t}_temp;`),
    `  include ${site};`,
    '}',
  ].join('\n')
}

/**
 * How many of these requests each gateway served, by the request lines of their logs (written
 * within a second: the log is buffered); every request must be in exactly one.
 */
async function servedBy(gateways: GatewayProcess[], ids: string[]): Promise<number[]> {
  let where: number[][] = []
  await waitUntil(
    () => {
      const logs = gateways.map((g) => fs.readFileSync(`${g.dataDir}/gw.log`, 'utf8'))
      where = ids.map((id) => logs.flatMap((log, i) => (log.includes(`"request_id":"${id}"`) ? [i] : [])))
      return where.every((w) => w.length === 1)
    },
    { what: () => `every request in exactly one gateway's log (${JSON.stringify(where)})`, intervalMs: 100 },
  )
  return gateways.map((_, i) => where.filter((w) => w[0] === i).length)
}

describe('three gateways on one PostgreSQL behind nginx, configured as docs/examples/nginx-gw.conf', { skip }, () => {
  let fake: FakeOpenAI
  let gateways: GatewayProcess[] = []
  let nginx: ChildProcess | null = null
  let nginxDir: string
  let baseURL: string
  let key: string
  /** Resolves the example's server name to loopback, as DNS would resolve it to the balancer. */
  const agent = new Agent({
    connect: {
      lookup: ((hostname, options, callback) => {
        if (hostname !== SERVER_NAME && hostname !== `other.${SERVER_NAME}`) return dns.lookup(hostname, options, callback)
        if (options.all) (callback as (err: null, addresses: dns.LookupAddress[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
        else callback(null, '127.0.0.1', 4)
      }) as net.LookupFunction,
    },
  })
  const clientAt = (url: string) =>
    new OpenAI({ baseURL: url, apiKey: key, maxRetries: 0, fetch: undiciFetch as never, fetchOptions: { dispatcher: agent } as never })
  const ask = async (client: OpenAI) => {
    const { response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse()
    return response.headers.get('x-request-id')!
  }

  before(async () => {
    fake = await startFakeOpenAI()
    const databaseUrl = await (await sharedPostgres()).createDatabase()
    const store = await openStore({ dataDir: tempDir(), databaseUrl })
    await store.providers.upsert('openai', 'openai', fake.url)
    key = (await store.keys.create('behind nginx')).secret
    await store.close()
    gateways = await startGatewayProcesses(3, { databaseUrl, env: { OPENAI_API_KEY: fake.apiKey }, args: ['--allowed-hosts', SERVER_NAME] })

    nginxDir = tempDir('gw-nginx-')
    fs.chmodSync(nginxDir, 0o755)
    const listen = await freePort()
    fs.writeFileSync(
      path.join(nginxDir, 'gw.conf'),
      exampleFor(
        gateways.map((g) => Number(new URL(g.url).port)),
        listen,
      ),
    )
    fs.writeFileSync(path.join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir, path.join(nginxDir, 'gw.conf')))
    const check = spawn(NGINX, ['-t', '-e', `${nginxDir}/error.log`, '-p', nginxDir, '-c', `${nginxDir}/nginx.conf`, '-g', `pid ${nginxDir}/nginx.pid;`], {
      stdio: 'pipe',
    })
    let checked = ''
    check.stderr!.on('data', (d: Buffer) => (checked += d.toString()))
    const [code] = await once(check, 'exit')
    assert.equal(code, 0, `nginx -t refuses the configuration:\n${checked}`)
    nginx = spawn(NGINX, ['-e', `${nginxDir}/error.log`, '-p', nginxDir, '-c', `${nginxDir}/nginx.conf`, '-g', `daemon off; pid ${nginxDir}/nginx.pid;`], {
      stdio: 'ignore',
    })
    baseURL = `http://${SERVER_NAME}:${listen}/v1`
    await waitUntil(
      () =>
        undiciFetch(`http://${SERVER_NAME}:${listen}/readyz`, { dispatcher: agent }).then(
          (r) => r.status === 200,
          () => false,
        ),
      { what: () => `nginx up (its error log: ${fs.readFileSync(`${nginxDir}/error.log`, 'utf8')})`, timeoutMs: 10_000, intervalMs: 50 },
    )
  })
  after(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill('SIGQUIT')
      await once(nginx, 'exit')
    }
    await agent.close()
    await Promise.all(gateways.map((g) => g.kill()))
    await fake.close()
    if (nginxDir) fs.rmSync(nginxDir, { recursive: true, force: true })
  })

  it('answers through nginx, JSON and streamed, spread over the three gateways', async (t) => {
    const client = clientAt(baseURL)
    const ids = await Promise.all(Array.from({ length: 30 }, () => ask(client)))
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'stream' }], stream: true })
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Hello from the fake provider.')
    assert.ok(
      chunks.some((c) => (c as { gw?: { cost?: unknown } }).gw?.cost),
      'the gw chunk with the cost came through',
    )
    const per = await servedBy(gateways, ids)
    t.diagnostic(`30 requests through nginx: ${per.join(', ')} served by the three gateways`)
    assert.ok(
      per.every((n) => n > 0),
      `every gateway served some: ${per.join(', ')}`,
    )
  })

  it('passes a stream on as the gateway writes it: an answer that never ends arrives chunk by chunk', async () => {
    fake.script({ kind: 'endless-stream', intervalMs: 20 })
    const client = clientAt(baseURL)
    const controller = new AbortController()
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'endless' }], stream: true },
      { signal: controller.signal },
    )
    let content = 0
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) content++
      if (content === 3) break
    }
    controller.abort()
    assert.equal(content, 3)
  })

  it('keeps the Host check: a name the gateways were not given is refused', async () => {
    const listen = new URL(baseURL).port
    const res = await undiciFetch(`http://other.${SERVER_NAME}:${listen}/v1/models`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } })
    assert.equal(res.status, 403)
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'host_not_allowed')
  })

  it('with one gateway killed (kill -9), every request is still answered, by the other two', async () => {
    await gateways[1].kill('SIGKILL')
    const client = clientAt(baseURL)
    const ids = await Promise.all(Array.from({ length: 30 }, () => ask(client)))
    const per = await servedBy(gateways, ids)
    assert.equal(per[1], 0)
    assert.equal(per[0] + per[2], 30)
  })
})
