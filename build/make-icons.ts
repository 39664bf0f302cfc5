// Regenerates the icon set from src/main/icon.ts: `npx tsx build/make-icons.ts`.
import fs from 'node:fs'
import path from 'node:path'
import { ICON_SVG, iconPng } from '../src/main/icon'

const dir = import.meta.dirname
fs.writeFileSync(path.join(dir, 'icon.svg'), ICON_SVG)
fs.writeFileSync(path.join(dir, 'icon.png'), iconPng(1024))
fs.mkdirSync(path.join(dir, 'icons'), { recursive: true })
for (const size of [16, 24, 32, 48, 64, 128, 256, 512]) fs.writeFileSync(path.join(dir, 'icons', `${size}x${size}.png`), iconPng(size))
console.log(`icons written to ${dir}`)
