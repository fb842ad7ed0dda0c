export * from '../index.js'
export { createApp, type AppOptions } from './createApp.js'
export { DataFileError, readDataFile, writeDataFile } from './dataFile.js'
export { startServer, type RunningServer, type ServerOptions } from './startServer.js'
