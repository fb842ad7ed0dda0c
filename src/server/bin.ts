#!/usr/bin/env node
import { fileURLToPath } from 'node:url'
import { requireWithCompileCache } from './compileCache.js'

// The `call-sandbox` command: its program (cli.ts, bundled as dist/bin/cli.cjs), run from V8's code cache.
requireWithCompileCache(fileURLToPath(new URL('./cli.cjs', import.meta.url)))
