#!/usr/bin/env node
import module, { createRequire } from 'node:module'

// @note Node's own compile cache (Node 22.1 and later): the command's bundle, compiled once, is kept in
// $NODE_COMPILE_CACHE or <tmp>/node-compile-cache for the next start; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off. Node 20 has none and compiles at every start.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()

// The `call-sandbox` command: its program (cli.ts, bundled as dist/bin/cli.cjs).
createRequire(import.meta.url)('./cli.cjs')
