// A port free on loopback now, for a child that takes its port as an argument: the tests' Redis servers and
// the bench's children. Plain JavaScript, so that the bench (bench/servers.mjs) shares it.
import { createServer } from 'node:net'

/** @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}
