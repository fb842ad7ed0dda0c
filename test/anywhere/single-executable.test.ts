/**
 * The single executable (`npm run build:sea`: Node 24 with the one file inside) runs under `env -i` in an empty
 * folder: no Node, no npm, no environment.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { killChildren } from '../support/cli.js'
import { EXECUTABLE, emptyFolderWith, expectRedisFleet, expectServesEverything, startExecutable } from './programs.js'

afterEach(killChildren)

describe('the single executable, under env -i in an empty folder', () => {
  it('serves the API, the console, /docs and its assets, and metrics', async () => {
    const folder = emptyFolderWith(EXECUTABLE, 'executable')
    const { cli, url } = await startExecutable(folder, ['--quiet'])
    await expectServesEverything(url)
    // Node's warning that single executables are experimental is turned off at build time.
    expect(cli.stderr()).toBe('')
  })

  it('keeps sessions in Redis with --store redis://: two executables share a write', async () => {
    const folder = emptyFolderWith(EXECUTABLE, 'executable-redis')
    await expectRedisFleet((args) => startExecutable(folder, args))
  })

  it('stops on SIGTERM, as a container stop sends it', async () => {
    const folder = emptyFolderWith(EXECUTABLE, 'executable-stop')
    const { cli } = await startExecutable(folder, ['--quiet'])
    cli.child.kill('SIGTERM')
    expect(await cli.exit()).toEqual({ code: 0, signal: null })
  })
})
