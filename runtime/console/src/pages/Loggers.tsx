import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, get } from '../lib/api';
import { usePoll, useTitle } from '../lib/hooks';
import type { Loggers } from '../lib/types';
import { ErrorState, Message, SkeletonRows } from '../components/ui';

export const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'OFF'];
type Scope = 'worker' | 'cluster';

export function LoggersPage() {
  useTitle('Log levels');
  const data = usePoll((signal) => get<Loggers>('/admin/loggers', { signal }), []);
  const [scope, setScope] = useState<Scope>('worker');
  const [name, setName] = useState('');
  const [level, setLevel] = useState('DEBUG');
  const [result, setResult] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const apply = async (logger: string, lvl: string, sc: Scope) => {
    setBusy(true);
    setResult({ kind: 'info', text: `Setting ${logger} to ${lvl} (${sc})…` });
    try {
      const q = sc === 'cluster' ? '?scope=cluster' : '';
      const changed = await api<string[] | undefined>('PUT', `/admin/loggers/${encodeURIComponent(logger)}${q}`, { body: { level: lvl }, quiet: true });
      if (sc === 'cluster') setResult({ kind: 'ok', text: `${logger} set to ${lvl} on every worker of the cluster.` });
      else if (Array.isArray(changed) && changed.length > 0) setResult({ kind: 'ok', text: `${logger} set to ${lvl}; changed: ${changed.join(', ')}` });
      else setResult({ kind: 'ok', text: `${logger} set to ${lvl}; no logger's level changed (it already was).` });
      data.reload();
    } catch (e) {
      setResult({ kind: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  const entries = data.data ? Object.entries(data.data).sort(([a], [b]) => (a === 'root' ? -1 : b === 'root' ? 1 : a.localeCompare(b))) : [];

  return (
    <div class="page">
      <div class="page-head">
        <h1>Log levels</h1>
      </div>
      {data.error && !data.data && <ErrorState message={data.error} status={data.errorStatus} />}
      <section class="card" aria-labelledby="set-h">
        <div class="card-head">
          <h2 id="set-h">Set a level</h2>
        </div>
        <form
          class="inline-form logger-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (busy) return;
            if (!name.trim()) return setResult({ kind: 'error', text: 'Name a logger (a tracing target such as copycat_runtime::task, or root).' });
            void apply(name.trim(), level, scope);
          }}
        >
          <label for="logger-name">Logger</label>
          <input id="logger-name" data-testid="logger-name" type="text" list="logger-names" value={name} placeholder="copycat_runtime::task" autoComplete="off" spellcheck={false} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <datalist id="logger-names">
            {entries.map(([n]) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <label for="logger-level">Level</label>
          <select id="logger-level" data-testid="logger-level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
          <label for="logger-scope">Scope</label>
          <select id="logger-scope" data-testid="logger-scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as Scope)}>
            <option value="worker">this worker</option>
            <option value="cluster">every worker (cluster)</option>
          </select>
          <button type="submit" class="btn btn-primary" data-testid="logger-submit" aria-disabled={busy}>
            Set level
          </button>
        </form>
        <p class="muted small">
          A logger is a tracing target; its descendants inherit its level. The scope also applies to the changes made in the table below.
        </p>
        <Message kind={result?.kind} text={result?.text} testid="logger-result" />
      </section>
      <table class="table loggers">
        <thead>
          <tr>
            <th scope="col">Logger</th>
            <th scope="col" class="col-level">Level</th>
            <th scope="col" class="col-level-select">Change</th>
            <th scope="col">Last set</th>
          </tr>
        </thead>
        <tbody>
          {data.loading && <SkeletonRows rows={4} cols={4} />}
          {entries.map(([n, l]) => (
            <LoggerRow key={n} name={n} level={l.level} lastModified={l.last_modified} onApply={(lvl) => apply(n, lvl, scope)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** How long a row's choice waits before it is applied: arrow keys on a closed select change it once per press. */
const ROW_APPLY_MS = 500;

function LoggerRow({ name, level, lastModified, onApply }: { name: string; level: string; lastModified: number | null; onApply: (level: string) => Promise<void> }) {
  // The choice being applied; the select shows it until the worker reports the level.
  const [draft, setDraft] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    if (draft !== null && draft === level && timer.current === null) setDraft(null);
  }, [level, draft]);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );
  const choose = (lvl: string) => {
    setDraft(lvl);
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      void onApply(lvl).finally(() => setDraft((d) => (d === lvl ? null : d)));
    }, ROW_APPLY_MS);
  };
  return (
    <tr data-testid={`logger-${name}`}>
      <th scope="row" class="mono">
        {name}
      </th>
      <td class="col-level">
        <span class={`level level-${level.toLowerCase()}`} data-testid={`logger-level-${name}`}>
          {level}
        </span>
      </td>
      <td class="col-level-select">
        <label class="sr-only" for={`level-${name}`}>
          Level of {name}
        </label>
        <select id={`level-${name}`} data-testid={`level-${name}`} value={draft ?? level} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
          {LEVELS.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
      </td>
      <td class="muted small">{lastModified ? new Date(lastModified).toLocaleString() : 'never through the API'}</td>
    </tr>
  );
}
