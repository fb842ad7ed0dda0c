import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, rm } from 'node:fs/promises'
import { delimiter, dirname, resolve } from 'node:path'
import type { TestProject } from 'vitest/node'
import { installMsw3, MSW3_VERSION } from '../scripts/msw3.mjs'
import { copyExampleForMsw3 } from './support/copyExampleForMsw3.js'
import { installedMsw, type InstalledMsw } from './support/installedMsw.js'
import { serveStatic } from './support/serveStatic.js'
import { step } from './support/step.js'
import { E2E_NOW } from './support/api.js'

/*
 * Everything the browser tests need, from a fresh clone: the package built,
 * the example installed and built (against the service worker, which a build
 * takes only when VITE_CALL_SANDBOX=1 asks, and against the standalone server),
 * its Storybook built, and each served on loopback.
 * With CALL_SANDBOX_MSW=3, a copy of the example on msw 3 in their place.
 */

const ROOT = resolve(import.meta.dirname, '..')
const EXAMPLE = resolve(ROOT, 'examples/calls-inbox')

declare module 'vitest' {
  export interface ProvidedContext {
    /** The example app, the service worker answering. */
    appUrl: string
    /** The example app built to read the standalone server. */
    standaloneAppUrl: string
    /** The standalone server (`npm start`), on another port: another origin. */
    apiUrl: string
    storybookUrl: string
    /** The msw the example runs in the browser, and the checksum its client and its worker script share. */
    msw: InstalledMsw
    /** The example's folder (a copy on msw 3 with CALL_SANDBOX_MSW=3), and what its commands need in their environment. */
    example: Example
  }
}

/** An example installed: where it is, and what its commands need in their environment. */
export interface Example {
  folder: string
  env: Record<string, string>
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cleanups: Array<() => unknown> = []
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  }
  try {
    const major = requestedMswMajor()
    await step('build the package', 'npm', ['run', 'build'], ROOT)
    const { folder: example, env } = major === 3 ? await installCopyOnMsw3(cleanups) : await installExample()
    const msw = installedMsw(example, major)
    // Served before they are built (a file is read when asked for), so that the standalone server knows the origin of
    // the app built for it: its pages drive a session's control plane (e2e/sessions.e2e.ts), which refuses other pages.
    const servers = await Promise.all(
      ['dist', 'dist-standalone', 'storybook-static'].map((folder) => serveStatic(resolve(example, folder))),
    )
    cleanups.push(...servers.map((server) => server.close))
    const [app, standaloneApp, storybook] = servers.map((server) => server.url) as [string, string, string]
    const api = await startStandaloneServer(['--allowed-origins', standaloneApp])
    cleanups.push(api.stop)
    // Production builds, as from a shell: vitest's NODE_ENV=test would make Vite build for development. A plain one
    // leaves the sandbox out (e2e/production.e2e.ts); VITE_CALL_SANDBOX=1 asks for it.
    const production = { ...env, NODE_ENV: undefined }
    await step('build the example app with the sandbox', 'npm', ['run', 'build'], example, {
      ...production,
      VITE_CALL_SANDBOX: '1',
      VITE_CALL_SANDBOX_NOW: E2E_NOW,
    })
    await step(
      'build the example app for the standalone server',
      'npx',
      ['vite', 'build', '--outDir', 'dist-standalone'],
      example,
      { ...production, VITE_CALL_SANDBOX_URL: api.url },
    )
    await step('build the Storybook', 'npm', ['run', 'build-storybook', '--', '--quiet'], example, env)

    project.provide('appUrl', app)
    project.provide('standaloneAppUrl', standaloneApp)
    project.provide('apiUrl', api.url)
    project.provide('storybookUrl', storybook)
    project.provide('msw', msw)
    project.provide('example', { folder: example, env })
    console.log(
      `msw ${msw.version} in the browser; app ${app}, app on the standalone server ${standaloneApp}, standalone server ${api.url}, Storybook ${storybook}`,
    )
  } catch (error) {
    await teardown()
    throw error
  }
  return teardown
}

/** The msw major the run is for: CALL_SANDBOX_MSW=3, or the example's own msw 2. */
function requestedMswMajor(): 2 | 3 {
  const variant = process.env.CALL_SANDBOX_MSW
  if (variant === undefined) return 2
  if (variant === '3') return 3
  throw new Error(
    `CALL_SANDBOX_MSW=${variant}: the browser tests run on the example's own msw 2 (unset) or on msw 3 (CALL_SANDBOX_MSW=3).`,
  )
}

/** The tracked example, installed from its lock unless it is already. */
async function installExample(): Promise<Example> {
  if (!existsSync(resolve(EXAMPLE, 'node_modules'))) {
    // --ignore-scripts: the file:../.. dependency would run the root's prepare (the build just done).
    await step('install the example', 'npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], EXAMPLE)
  }
  return { folder: EXAMPLE, env: {} }
}

/**
 * A copy of the example on msw 3, removed at teardown, its commands on Node 24
 * (msw 3 needs 22.12 or later), and msw 3's own worker script in its
 * sandbox-worker folder, as `npx msw init sandbox-worker` would put it there.
 */
async function installCopyOnMsw3(cleanups: Array<() => unknown>): Promise<Example> {
  // Installed (or found) where the suite's msw 3 is, so that npm finds this version in its cache.
  installMsw3()
  const folder = await copyExampleForMsw3(EXAMPLE, ROOT, MSW3_VERSION)
  cleanups.push(() => rm(folder, { recursive: true, force: true }))
  const node24 = execFileSync(process.execPath, ['scripts/node24.mjs'], { cwd: ROOT, encoding: 'utf8' }).trim()
  // Node 24's compile cache (vite, tsc and storybook turn it on) would outlive the run in the system's temp folder.
  const env = { PATH: `${dirname(node24)}${delimiter}${process.env.PATH}`, NODE_DISABLE_COMPILE_CACHE: '1' }
  await step(
    `install a copy of the example on msw ${MSW3_VERSION}`,
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
    folder,
    env,
  )
  await copyFile(
    resolve(folder, 'node_modules/msw/lib/mockServiceWorker.js'),
    resolve(folder, 'sandbox-worker/mockServiceWorker.js'),
  )
  return { folder, env }
}

/** `call-sandbox --port 0 --now … <args>`, as `npm start` runs it, until it says where it listens. */
async function startStandaloneServer(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['dist/bin/call-sandbox.js', '--port', '0', '--now', E2E_NOW, '--quiet', ...args],
    {
      cwd: ROOT,
      // Its compile cache would outlive the run in the system's temp folder (test/server.test.ts tests the cache).
      env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const url = await new Promise<string>((listening, failed) => {
    let output = ''
    child.stdout!.on('data', (chunk) => {
      output += chunk
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) listening(match[1]!)
    })
    child.on('exit', (code) => failed(new Error(`The standalone server exited (${code}) before listening:\n${output}`)))
  })
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((done) => child.on('exit', done))
    child.kill('SIGTERM')
    await exited
  }
  return { url, stop }
}
