/**
 * The single executable (`npm run build:sea`: Node 24 with the one file inside) runs under `env -i` in an empty
 * folder: no Node, no npm, no environment.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { killChildren, runProgram } from '../support/cli.js'
import {
  EXECUTABLE,
  emptyFolderWith,
  expectRedisFleet,
  expectServesEverything,
  plantCanaries,
  ROOT,
  startExecutable,
} from './programs.js'

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

describe('the single executable, on the machine that built it, the build folder there', () => {
  it('loads no package from any node_modules, and names no folder of the build', async () => {
    // The build folder as it stands after the build, its node_modules reachable from dist/ where the one file was.
    expect(existsSync(join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk'))).toBe(true)
    expect(readFileSync(EXECUTABLE).includes(ROOT), `${ROOT} is inside the executable`).toBe(false)
    const folder = emptyFolderWith(EXECUTABLE, 'executable-alone')
    const canary = join(folder, 'canary.log')
    // Where an import() would look first: beside the one file the executable was made from, and where it runs.
    plantCanaries(join(ROOT, 'dist', 'node_modules'), canary)
    plantCanaries(join(folder, 'node_modules'), canary)
    const run = async (args: string[]) => {
      const cli = runProgram(['./call-sandbox-linux-x64', ...args], {}, folder)
      const { code } = await cli.exit()
      return { code, output: `${cli.stdout()}${cli.stderr()}`, stdout: cli.stdout(), stderr: cli.stderr() }
    }

    const mcp = await run(['mcp'])
    expect(mcp.code).toBe(1)
    expect(mcp.stderr).toBe(
      'call-sandbox mcp: mcp needs the npm package, which brings @modelcontextprotocol/sdk (the one-file build and the single executable leave it out): run npx call-sandbox mcp.\n',
    )
    expect(mcp.stdout).toBe('')
    const others = [
      ['mcp', '--url', 'http://127.0.0.1:9'],
      ['--store', 'redis://127.0.0.1:9', '--port', '0'],
      ['--data', join(folder, 'no-such-folder', 'sandbox.log'), '--port', '0'],
      ['--help'],
      ['--no-such-option'],
    ]
    for (const args of [['mcp'], ...others]) {
      const { code, output } = await run(args)
      expect(code, args.join(' ')).toBe(args[0] === '--help' ? 0 : 1)
      expect(output, args.join(' ')).not.toContain(ROOT)
      expect(output, args.join(' ')).not.toMatch(/call-sandbox\.cjs|node_modules/)
    }
    expect(existsSync(canary) ? readFileSync(canary, 'utf8') : 'nothing ran').toBe('nothing ran')
  })
})
