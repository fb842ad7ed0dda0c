/** The msw 3 the runs use: the one version scripts/msw3/package.json names. */
export const MSW3_VERSION: string
/** Installs msw 3 unless it is there already, and returns the folder of its package. */
export function installMsw3(): string
