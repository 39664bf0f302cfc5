#!/usr/bin/env node
// `npx gw …` in a clone runs the gateway's CLI from its sources (the code `npm run gw` runs),
// without npm's banner lines, so its output can be captured: GW_KEY=$(npx gw keys create …).
import { register } from 'tsx/esm/api'

register()
await import('../src/gateway/cli/gw.ts')
