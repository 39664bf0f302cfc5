import net, { type AddressInfo } from 'node:net'

/** A port nothing listens on right now on 127.0.0.1 (the OS picks it; a server binds it moments later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}
