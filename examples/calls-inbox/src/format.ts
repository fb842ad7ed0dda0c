/** A date-time as this app shows it: "Nov 20, 11:52 AM", in the browser's time zone. */
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' })
}

/** Seconds as "4m 05s". */
export function formatDuration(seconds: number): string {
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
}
