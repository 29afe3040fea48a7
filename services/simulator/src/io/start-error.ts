/**
 * An output or listener that could not be started. `banner` is the text the UI shows while the
 * emulator stays stopped; it names the resource and the cause in words a user can act on.
 */
export class StartError extends Error {
  constructor(
    readonly banner: string,
    readonly code?: string,
  ) {
    super(banner);
    this.name = 'StartError';
  }
}

export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function serialBanner(device: string, err: unknown): StartError {
  const message = err instanceof Error ? err.message : String(err);
  const code = errnoCode(err);
  if (code === 'ENOENT' || /no such file/i.test(message)) {
    return new StartError(`Serial port ${device} cannot be opened: device not found`, 'ENOENT');
  }
  if (code === 'EACCES' || /permission denied/i.test(message)) {
    return new StartError(`Serial port ${device} cannot be opened: permission denied`, 'EACCES');
  }
  if (/busy|lock/i.test(message)) {
    return new StartError(`Serial port ${device} cannot be opened: device busy`, 'EBUSY');
  }
  return new StartError(`Serial port ${device} cannot be opened: ${message}`, code);
}

export function listenBanner(protocol: 'udp' | 'tcp', port: number, err: unknown): StartError {
  const code = errnoCode(err);
  if (code === 'EADDRINUSE') {
    return new StartError(`Address already in use: ${protocol.toUpperCase()} port ${port} is taken`, code);
  }
  if (code === 'EACCES') {
    return new StartError(`Cannot listen on ${protocol.toUpperCase()} port ${port}: permission denied`, code);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StartError(`Cannot listen on ${protocol.toUpperCase()} port ${port}: ${message}`, code);
}

export function connectBanner(host: string, port: number, err: unknown): StartError {
  const code = errnoCode(err);
  if (code === 'ECONNREFUSED') {
    return new StartError(`Connection refused: nothing accepts TCP connections on ${host}:${port}`, code);
  }
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new StartError(`Cannot reach ${host}:${port} (${code})`, code);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new StartError(`Cannot connect to ${host}:${port}: ${message}`, code);
}
