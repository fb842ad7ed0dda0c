// 3. Import call-sandbox/node and seed the default world in a fresh process, against importing msw/node alone, on
// each major of msw (msw 3 on Node 24); timed in the child from before the import (node's own start, the same for
// both, left out).
import { median } from './median.mjs'
import { benchFigure, mswRuntime, NODE_ENTRY, NOW, row, run, seconds, spread } from './shared.mjs'

await benchFigure('import', async () => {
  const sandboxScript = `
    const start = performance.now()
    const { setupSandboxServer } = await import(${JSON.stringify(NODE_ENTRY)})
    const { server, sandbox } = setupSandboxServer({ seed: 1, now: ${JSON.stringify(NOW)} })
    await sandbox.ready
    console.log(performance.now() - start)`
  const mswScript = `
    const start = performance.now()
    await import('msw/node')
    console.log(performance.now() - start)`
  for (const major of /** @type {const} */ ([2, 3])) {
    const { node, flags, label } = await mswRuntime(major)
    /** @param {string} script */
    const fresh = async (script) => Number(await run(node, [...flags, '--input-type=module', '-e', script]))
    /** @type {number[]} */
    const sandbox = []
    /** @type {number[]} */
    const msw = []
    await fresh(sandboxScript) // warm-up: the files in the page cache
    await fresh(mswScript)
    for (let i = 0; i < 7; i++) {
      if (i % 2 === 0) {
        sandbox.push(await fresh(sandboxScript))
        msw.push(await fresh(mswScript))
      } else {
        msw.push(await fresh(mswScript))
        sandbox.push(await fresh(sandboxScript))
      }
    }
    spread(`import + seed, ${label}`, sandbox, seconds)
    spread(`import('msw/node'), ${label}`, msw, seconds)
    row(
      `import call-sandbox/node + seed the default world (README's setupSandboxServer), fresh process, ${label}`,
      seconds(median(sandbox)),
      `import('msw/node') alone, fresh process: ${seconds(median(msw))}`,
      median(sandbox) / median(msw),
      ['<=', 2.5],
    )
  }
})
