import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createSandbox } from '../../src/index.js'
import { type AppOptions, createApp } from '../../src/server/createApp.js'
import { startServer } from '../../src/server/startServer.js'
import { NOW } from './transports.js'

/** A server entry under test: its URL, its node:http server, and how to close it. */
export interface Entry {
  url: string
  server: Server
  close(): Promise<void>
}

export type EntryOptions = AppOptions & { adminToken?: string }

/** The command's server: the listener ahead of Express, with the console and the metrics. */
export async function commandServer(options: Parameters<typeof startServer>[0] = {}): Promise<Entry> {
  const running = await startServer({ port: 0, quiet: true, now: NOW, ...options })
  return { url: running.url, server: running.server, close: running.close }
}

/** `createApp(sandbox)` mounted in an Express app of one's own, served by node:http on loopback. */
export async function mountedApp(options: EntryOptions = {}): Promise<Entry> {
  const { adminToken, ...appOptions } = options
  const sandbox = createSandbox({ now: NOW, adminToken })
  await sandbox.ready
  const server = createServer(express().use(createApp(sandbox, { quiet: true, ...appOptions })))
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      sandbox.stop()
      sandbox.sessions.stop()
      await new Promise((closed) => server.close(closed))
    },
  }
}

/** Both entries of the standalone server, for a `describe.each`. */
export const ENTRIES = [
  { name: 'the command', start: commandServer },
  { name: 'createApp mounted in Express', start: mountedApp },
]
