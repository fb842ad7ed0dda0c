import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { FileStore } from './dataFile/FileStore.js'
import { loadRedisClient } from './redisConnection.js'
import { backendOf, openStore } from './storeBackends.js'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function newPath(): string {
  const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-stores-'))
  folders.push(folder)
  return join(folder, 'sandbox.log')
}

describe('the store backends, by scheme', () => {
  it.each([
    ['redis://127.0.0.1:6379', /^redis:\/\//],
    ['REDIS://127.0.0.1:6379/2', /^redis:\/\//],
    ['redis://a:7000,b:7001', /^redis:\/\//],
    ['rediss://user:secret@cache.example:6380', /^rediss:\/\//],
    ['file:///var/lib/sandbox.log', /^file:\/\//],
  ])('%s is a store', (url, shape) => {
    expect(backendOf(url).shape).toMatch(shape)
  })

  it.each(['http://127.0.0.1:6379', 'postgres://db/sandbox', 'localhost:6379', 'redis', ''])(
    'refuses %j, listing the stores there are',
    (url) => {
      expect(() => backendOf(url)).toThrow(/^--store takes redis:\/\/host:port.*rediss:\/\/.*file:\/\/\//)
      expect(() => backendOf(url)).toThrow(`Got ${url}, which names no store call-sandbox has.`)
    },
  )

  it.each(['file:relative.log', 'file:', 'file://host/var/lib/sandbox.log', 'file:///var/lib/'])(
    'refuses %j: a data file is file:///absolute/path',
    async (url) => {
      await expect(openStore({ store: url }, { sessionTtlMs: 0 })).rejects.toThrow(
        `--store takes a data file as file:///path/to/sandbox.log, an absolute path to a file; got ${url}.`,
      )
    },
  )

  it.each([
    'mysql://u:hunter2pass-wxyz@h/db?token=s3cret-in-the-query',
    'file://h/x.log?token=s3cret-in-the-query',
    'file:///var/lib/#s3cret-in-the-fragment',
    'redis://127.0.0.1:1,127.0.0.1:2/3?token=s3cret-in-the-query',
    'rediss://x y?token=s3cret-in-the-query',
  ])('refuses %j quoting it without its password, query or fragment', async (url) => {
    const refused = await openStore({ store: url }, { sessionTtlMs: 0 }).catch((error: Error) => error.message)
    expect(refused).toMatch(/^--store/)
    expect(refused).toMatch(/[?#]…/)
    expect(refused).not.toMatch(/s3cret|hunter2pass/)
  })

  it('opens no store without --data or --store, and refuses both', async () => {
    expect(await openStore({}, { sessionTtlMs: 0 })).toBeUndefined()
    await expect(openStore({ data: newPath(), store: 'redis://x:1' }, { sessionTtlMs: 0 })).rejects.toThrow(
      /--data and --store are two stores: give one/,
    )
  })

  it('opens the file store for --data PATH and for a file: URL alike', async () => {
    const path = newPath()
    for (const given of [{ data: path }, { store: pathToFileURL(path).href }]) {
      const store = await openStore(given, { sessionTtlMs: 0 })
      expect(store).toBeInstanceOf(FileStore)
      expect(store!.shared).toBe(false)
      await store!.close()
    }
  })
})

describe('loading the Redis client, an optional peer', () => {
  it('names the package to install when it is missing', async () => {
    const missing = Object.assign(new Error("Cannot find package '@redis/client' imported from /app/x.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    })
    await expect(loadRedisClient(() => Promise.reject(missing))).rejects.toThrow(/npm install @redis\/client/)
  })

  it('lets another failure through as it is', async () => {
    const broken = Object.assign(new Error("Cannot find module './lib/client'"), { code: 'MODULE_NOT_FOUND' })
    await expect(loadRedisClient(() => Promise.reject(broken))).rejects.toBe(broken)
  })

  it('loads it when it is installed', async () => {
    expect(typeof (await loadRedisClient()).createClient).toBe('function')
  })
})
