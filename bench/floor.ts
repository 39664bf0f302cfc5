/**
 * How far a gateway on this stack can come to the bare Node proxy: the bare proxy
 * (node-proxy.mjs), the least a Fastify app can do as a proxy (fastify-proxy.mjs: parse the JSON
 * body, forward it, send the answer), the same with the duties the gateway has on every request
 * (duty-proxy.ts: the key checked, the answer priced, recorded and logged) and the gateway as
 * shipped, in alternating rounds of a closed loop on chat completions against the instant mock,
 * with each process's CPU per request.
 * Usage: node --import tsx bench/floor.ts [--rounds 6] [--seconds 4] [--connections 10]
 * Writes results/floor.md.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { closedLoop, makePool, median } from './loadgen'
import { cpuSeconds, ROOT, startChild, startDutyProxy, type Child } from './procs'
import { startGatewayChild } from './gateway-process'
import { buildApp } from '../test/support/build'
import { MOCK_MODELS } from './mock-provider'

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, seconds: { type: 'string', default: '4' }, connections: { type: 'string', default: '10' } },
})
const ROUNDS = Number(args.rounds)
const MS = Number(args.seconds) * 1000
const CONNS = Number(args.connections)

buildApp()
const mock = await startChild(['--import', 'tsx', 'bench/mock-provider.ts'])
const bare = await startChild(['bench/node-proxy.mjs', '--upstream', mock.info.url])
const fastify = await startChild(['bench/fastify-proxy.mjs', '--upstream', mock.info.url])
const duty = await startDutyProxy(mock.info.url)
const gw = await startGatewayChild(mock.info.url, { root: ROOT })
const json = { 'content-type': 'application/json' }
const sides: Array<{ name: string; url: string; pid: number; key: string }> = [
  { name: 'bare Node proxy', url: bare.info.url, pid: bare.pid, key: 'sk-mock-bench' },
  { name: 'Fastify proxy', url: fastify.info.url, pid: fastify.pid, key: 'sk-mock-bench' },
  { name: 'duty proxy', url: duty.info.url, pid: duty.pid, key: duty.info.key },
  { name: 'gateway', url: gw.url, pid: gw.pid, key: gw.key },
]
const body = JSON.stringify({
  model: MOCK_MODELS.instant,
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Say hello in one short sentence.' },
  ],
  max_tokens: 64,
  user: 'bench',
})
const rounds = new Map(sides.map((s) => [s.name, [] as Array<{ rps: number; cpuUs: number }>]))
const pools = new Map(sides.map((s) => [s.name, makePool(s.url, CONNS)]))
const one = async (s: (typeof sides)[number], ms: number) => {
  const t = { name: s.name, origin: s.url, path: '/v1/chat/completions', headers: { ...json, authorization: `Bearer ${s.key}` } }
  const cpu0 = cpuSeconds(s.pid)
  const r = await closedLoop(pools.get(s.name)!, t, body, CONNS, ms)
  if (r.errors) throw new Error(`${s.name}: ${r.errors} errors: ${r.firstError}`)
  return { rps: r.rps, cpuUs: ((cpuSeconds(s.pid) - cpu0) * 1e6) / (r.rps * r.seconds) }
}
for (const s of sides) await one(s, 2000)
for (let r = 0; r < ROUNDS; r++)
  for (let i = 0; i < sides.length; i++) {
    const s = sides[(i + r) % sides.length]
    rounds.get(s.name)!.push(await one(s, MS))
  }
const children: Child[] = [bare, fastify, duty, gw, mock]
for (const p of pools.values()) await p.close()
for (const c of children) await c.stop()

const bareRps = median(rounds.get('bare Node proxy')!.map((x) => x.rps))
const lines = [
  `chat completions, ${CONNS} connections, ${ROUNDS} rotated rounds of ${MS / 1000} s (medians):`,
  '',
  '| target | req/s | × bare proxy | CPU µs a request |',
  '|---|---:|---:|---:|',
]
for (const s of sides) {
  const r = rounds.get(s.name)!
  const rps = median(r.map((x) => x.rps))
  lines.push(`| ${s.name} | ${rps.toFixed(0)} | ${(rps / bareRps).toFixed(2)} | ${median(r.map((x) => x.cpuUs)).toFixed(0)} |`)
}
lines.unshift(`Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)} at the end.`, '')
fs.writeFileSync(path.join(ROOT, 'bench/results/floor.md'), lines.join('\n') + '\n')
process.stdout.write(lines.join('\n') + '\n')
