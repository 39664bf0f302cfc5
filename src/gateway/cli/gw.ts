#!/usr/bin/env node
import { runCli } from './runCli'

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: Error) => {
    process.stderr.write(`gw: ${err.message}\n`)
    process.exitCode = 1
  },
)
