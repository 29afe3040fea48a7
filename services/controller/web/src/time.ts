/** A server timestamp (seconds) in the browser's local date and time; '–' when there is none. */
export const at = (s: number | null | undefined) => (s ? new Date(s * 1000).toLocaleString() : '–');
