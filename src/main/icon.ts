import { deflateSync } from 'node:zlib'

/**
 * The app icon, drawn in code so the tray needs no file on disk and `build/` icons can be
 * regenerated (`npx tsx build/make-icons.ts`): an indigo rounded square with a white "G"
 * (an open ring and a bar into the gateway). Matches build/icon.svg.
 */
const BG: [number, number, number] = [79, 70, 229]
const FG: [number, number, number] = [255, 255, 255]

/** Coverage of the shapes at a point in a 1×1 square: 0 nothing, 1 background, 2 foreground. */
function shapeAt(x: number, y: number): 0 | 1 | 2 {
  // Rounded square, corner radius 0.22.
  const r = 0.22
  const cx = Math.min(Math.max(x, r), 1 - r)
  const cy = Math.min(Math.max(y, r), 1 - r)
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return 0
  const dx = x - 0.5
  const dy = y - 0.5
  const d = Math.hypot(dx, dy)
  // Ring from radius 0.2 to 0.3, open on the upper right (angles -60°..0°, screen y down).
  const angle = Math.atan2(dy, dx)
  if (d >= 0.2 && d <= 0.3 && !(angle > -Math.PI / 3 && angle < 0)) return 2
  // The bar of the G: from the centre to the ring, on the horizontal axis.
  if (x >= 0.5 && x <= 0.8 && Math.abs(dy) <= 0.05) return 2
  return 1
}

/** RGBA pixels of the icon at `size`×`size`, 4×4 supersampled. */
export function iconPixels(size: number): Buffer {
  const px = Buffer.alloc(size * size * 4)
  const n = 4
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      let bg = 0
      let fg = 0
      for (let sj = 0; sj < n; sj++) {
        for (let si = 0; si < n; si++) {
          const s = shapeAt((i + (si + 0.5) / n) / size, (j + (sj + 0.5) / n) / size)
          if (s === 1) bg++
          else if (s === 2) fg++
        }
      }
      const cover = bg + fg
      const o = (j * size + i) * 4
      if (cover === 0) continue
      for (let c = 0; c < 3; c++) px[o + c] = Math.round((BG[c] * bg + FG[c] * fg) / cover)
      px[o + 3] = Math.round((255 * cover) / (n * n))
    }
  }
  return px
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(buf: Buffer): number {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(td))
  return Buffer.concat([len, td, crc])
}

/** A PNG (8-bit RGBA) of the icon. */
export function iconPng(size: number): Buffer {
  const px = iconPixels(size)
  const raw = Buffer.alloc((size * 4 + 1) * size)
  for (let y = 0; y < size; y++) px.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4)
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0)
  ihdr.writeUInt32BE(size, 4)
  ihdr[8] = 8
  ihdr[9] = 6
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">
  <title>GW Gateway</title>
  <rect width="512" height="512" rx="112.64" fill="rgb(${BG.join(',')})"/>
  <path d="M 384 256 A 128 128 0 1 1 320 145.15" fill="none" stroke="#fff" stroke-width="51.2"/>
  <rect x="256" y="230.4" width="153.6" height="51.2" fill="#fff"/>
</svg>
`
