// The REST API client: same origin, relative URLs, Kafka Connect's error body.

export class ApiError extends Error {
  /** HTTP status; 0 when the worker did not answer at all. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
    this.name = 'ApiError';
  }
}

/** The message to show for a failed call, with what to do next where we know it. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 401) return `This worker requires credentials (401): ${err.message}`;
    if (err.status === 403) return `Not allowed (403): ${err.message}`;
    if (err.status === 0) return `The worker did not answer: ${err.message}`;
    if (err.status === 502 || err.status === 503 || err.status === 504) return `The worker did not answer (${err.message})`;
    return err.message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Reads `{"error_code": N, "message": "..."}` out of an error answer. */
export function errorMessage(status: number, statusText: string, body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error_code?: unknown };
    if (parsed && typeof parsed.message === 'string' && parsed.message !== '') return parsed.message;
  } catch {
    // not JSON
  }
  const text = body.trim();
  if (text && text.length < 300 && !text.startsWith('<')) return text;
  return `HTTP ${status}${statusText ? ' ' + statusText : ''}`;
}

type Listener = (ok: boolean, message: string, status: number | null) => void;
const listeners = new Set<Listener>();

/** Every call's outcome, for the global status line. */
export function onApiOutcome(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

function report(ok: boolean, message: string, status: number | null = null) {
  for (const l of listeners) l(ok, message, status);
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body (uploads); sent as is with `contentType`. */
  raw?: BodyInit;
  contentType?: string;
  /** Accept header. */
  accept?: string;
  signal?: AbortSignal;
  /** Don't report failures on the global status line (the caller shows them). */
  quiet?: boolean;
}

/**
 * `path` on the page's origin. Not the relative path itself: on a page
 * opened as `http://user:password@host/ui/`, a relative URL keeps the
 * credentials and fetch refuses it; the origin has none (the browser
 * still sends the credentials it has for the origin).
 */
export function sameOrigin(path: string): string {
  return typeof location === 'undefined' ? path : location.origin + path;
}

async function send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: opts.accept ?? 'application/json' };
  let body: BodyInit | undefined;
  if (opts.raw !== undefined) {
    body = opts.raw;
    if (opts.contentType) headers['Content-Type'] = opts.contentType;
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(sameOrigin(path), { method, headers, body, signal: opts.signal, credentials: 'same-origin' });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    const err = new ApiError(0, e instanceof Error ? e.message : String(e));
    report(false, describeError(err), 0);
    throw err;
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    const err = new ApiError(res.status, errorMessage(res.status, res.statusText, text));
    // A 401 or a failing worker concerns every call: it always reaches the status line.
    // Other answers (404: no such connector, 400: invalid config) are the caller's to show.
    if (res.status === 401 || res.status >= 500 || !opts.quiet) {
      report(false, describeError(err), res.status);
    }
    throw err;
  }
  report(true, '');
  return res;
}

/** A JSON call; `undefined` for an empty answer (204). */
export async function api<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  const text = await res.text();
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as unknown as T;
  }
}

export async function apiText(path: string, opts: RequestOptions = {}): Promise<string> {
  const res = await send('GET', path, opts);
  return res.text();
}

export const get = <T>(path: string, opts?: RequestOptions) => api<T>('GET', path, opts);

/** `/connectors/{c}` with the name escaped. */
export const conn = (name: string, rest = '') => `/connectors/${encodeURIComponent(name)}${rest}`;
export const plugin = (name: string, rest = '') => `/connector-plugins/${encodeURIComponent(name)}${rest}`;

/** The console's own routes. */
export const ui = {
  cluster: '/ui/',
  connectors: '/ui/connectors',
  newConnector: '/ui/connectors/new',
  connector: (name: string) => `/ui/connectors/${encodeURIComponent(name)}`,
  plugins: '/ui/plugins',
  errors: '/ui/errors',
  loggers: '/ui/loggers',
};
