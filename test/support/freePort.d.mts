/** A port free on loopback now, for a child that takes its port as an argument. */
export function freePort(): Promise<number>
