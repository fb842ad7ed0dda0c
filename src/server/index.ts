export * from '../index.js'
export { createApp, type AppOptions } from './createApp.js'
export { parseLatency, type Latency } from './latency.js'
export { startServer, type RunningServer, type ServerOptions } from './startServer.js'
