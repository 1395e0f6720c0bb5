import { useEffect, useRef, useState } from 'preact/hooks';
import { api, conn, describeError, get, plugin as pluginPath, ui } from '../lib/api';
import { usePoll, useTitle } from '../lib/hooks';
import { connectorView } from '../lib/status';
import type { ConnectorStatus, Expanded, PluginEntry, PluginVersion, SwapReport } from '../lib/types';
import { ConfirmDialog, ErrorState, Message, SkeletonRows, StateBadge } from '../components/ui';
import { pluginNames } from '../lib/plugins';

interface PluginsData {
  plugins: { name: string; type: string; versions: PluginVersion[]; error: string | null }[];
  connectors: Expanded;
}

async function loadPlugins(signal: AbortSignal): Promise<PluginsData> {
  const [entries, connectors] = await Promise.all([
    get<PluginEntry[]>('/connector-plugins', { signal }),
    get<Expanded>('/connectors?expand=status&expand=info', { signal }),
  ]);
  const plugins = await Promise.all(
    pluginNames(entries).map(async (p) => {
      try {
        const versions = await get<PluginVersion[]>(pluginPath(p.name, '/versions'), { signal, quiet: true });
        return { name: p.name, type: p.type, versions, error: null };
      } catch (e) {
        return { name: p.name, type: p.type, versions: [], error: describeError(e) };
      }
    }),
  );
  return { plugins, connectors };
}

/** Connectors running each plugin, with their running version. */
function usersOf(connectors: Expanded, plugin: string): { name: string; version: string | null; status: ConnectorStatus }[] {
  const out: { name: string; version: string | null; status: ConnectorStatus }[] = [];
  for (const [name, e] of Object.entries(connectors)) {
    if (e.info?.config['connector.class'] === plugin && e.status) {
      out.push({ name, version: e.status.connector.version ?? null, status: e.status });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function PluginsPage() {
  useTitle('Plugins');
  const data = usePoll(loadPlugins, [], 5000);
  return (
    <div class="page">
      <div class="page-head">
        <h1>Plugins</h1>
      </div>
      {data.error && !data.data && <ErrorState message={data.error} status={data.errorStatus} />}
      <UploadForm names={data.data?.plugins.map((p) => p.name) ?? []} onUploaded={data.reload} />
      {data.loading && (
        <table class="table">
          <tbody>
            <SkeletonRows rows={3} cols={4} />
          </tbody>
        </table>
      )}
      {data.data && data.data.plugins.length === 0 && (
        <div class="state-box">No plugins yet: put components in the worker's plugin.path, or upload one above.</div>
      )}
      {data.data?.plugins.map((p) => (
        <PluginSection key={p.name} plugin={p} users={usersOf(data.data!.connectors, p.name)} onChange={data.reload} />
      ))}
    </div>
  );
}

function PluginSection({
  plugin: p,
  users,
  onChange,
}: {
  plugin: PluginsData['plugins'][number];
  users: { name: string; version: string | null; status: ConnectorStatus }[];
  onChange: () => void;
}) {
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const remove = async (v: string) => {
    setConfirm(null);
    try {
      await api('DELETE', pluginPath(p.name, `/versions/${encodeURIComponent(v)}`), { quiet: true });
      setMsg({ kind: 'ok', text: `Deleted ${p.name} ${v}.` });
      onChange();
    } catch (e) {
      setMsg({ kind: 'error', text: describeError(e) });
    }
  };
  return (
    <section class="card" data-testid={`plugin-${p.name}`} aria-labelledby={`plugin-${p.name}-h`}>
      <div class="card-head">
        <h2 id={`plugin-${p.name}-h`}>
          <span class="mono">{p.name}</span> <span class="muted small">{p.type}</span>
        </h2>
        <a class="btn btn-small" href={`${ui.newConnector}?plugin=${encodeURIComponent(p.name)}`}>
          New {p.name} connector
        </a>
      </div>
      {p.error && <Message kind="error" text={p.error} />}
      <table class="table versions">
        <thead>
          <tr>
            <th scope="col" class="col-version">Version</th>
            <th scope="col">Digest</th>
            <th scope="col" class="col-source">Source</th>
            <th scope="col">Running in</th>
            <th scope="col" class="col-action">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {p.versions.map((v) => {
            const running = users.filter((u) => u.version === v.version);
            return (
              <tr key={v.version} data-testid={`version-${p.name}-${v.version}`}>
                <th scope="row">{v.version}</th>
                <td class="mono digest" data-testid={`digest-${p.name}-${v.version}`}>
                  {v.digest}
                </td>
                <td class="col-source">{v.source === 'uploaded' ? 'uploaded' : 'plugin.path'}</td>
                <td>
                  {running.length === 0 ? (
                    <span class="muted">—</span>
                  ) : (
                    running.map((u, i) => (
                      <span key={u.name}>
                        {i > 0 && ', '}
                        <a href={ui.connector(u.name)}>{u.name}</a>
                      </span>
                    ))
                  )}
                </td>
                <td class="col-action">
                  {v.source === 'uploaded' && (
                    <button
                      class="btn btn-small"
                      onClick={() => setConfirm(v.version)}
                      disabled={running.length > 0}
                      title={running.length > 0 ? 'A connector runs this version' : undefined}
                      aria-label={`Delete ${p.name} ${v.version}`}
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Message kind={msg?.kind} text={msg?.text} />
      <ConfirmDialog
        open={confirm !== null}
        title={`Delete ${p.name} ${confirm ?? ''}?`}
        confirmLabel="Delete version"
        confirmTestid={`confirm-delete-version-${p.name}`}
        onConfirm={() => confirm !== null && remove(confirm)}
        onCancel={() => setConfirm(null)}
      >
        <p>The uploaded component is removed from this worker's registry. A connector created later cannot pick this version, unless it is uploaded again.</p>
      </ConfirmDialog>
      {users.length > 0 && p.versions.length > 1 && <SwitchForm plugin={p.name} versions={p.versions.map((v) => v.version)} users={users} onSwapped={onChange} />}
    </section>
  );
}

/** Switch one of the plugin's connectors to a version, then watch its tasks come back. */
function SwitchForm({
  plugin,
  versions,
  users,
  onSwapped,
}: {
  plugin: string;
  versions: string[];
  users: { name: string; version: string | null }[];
  onSwapped: () => void;
}) {
  const [connector, setConnector] = useState('');
  const [version, setVersion] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  const [watch, setWatch] = useState<string | null>(null);
  const c = connector || users[0]?.name || '';
  const current = users.find((u) => u.name === c)?.version ?? null;
  const v = version || versions.find((x) => x !== current) || versions[0] || '';

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || !c || !v) return;
    setBusy(true);
    setResult({ kind: 'info', text: `Swapping ${c} to ${v}…` });
    try {
      const r = await api<SwapReport>('PUT', conn(c, '/version'), { body: { version: v }, quiet: true });
      setResult({ kind: r.outcome === 'SWAPPED' ? 'ok' : 'error', text: `${r.outcome}: ${r.from_version} → ${r.to_version}, paused ${r.pause_ms.toFixed(1)} ms` });
    } catch (ex) {
      setResult({ kind: 'error', text: describeError(ex) });
    } finally {
      setBusy(false);
      setWatch(c);
      onSwapped();
    }
  };

  return (
    <form class="inline-form switch-form" onSubmit={submit}>
      <span>Switch</span>
      <label class="sr-only" for={`sw-c-${plugin}`}>
        Connector
      </label>
      <select id={`sw-c-${plugin}`} data-testid={`plugin-swap-connector-${plugin}`} value={c} onChange={(e) => setConnector((e.target as HTMLSelectElement).value)}>
        {users.map((u) => (
          <option key={u.name} value={u.name}>
            {u.name} (runs {u.version ?? '?'})
          </option>
        ))}
      </select>
      <label for={`sw-v-${plugin}`}>to version</label>
      <select id={`sw-v-${plugin}`} data-testid={`plugin-swap-version-${plugin}`} value={v} onChange={(e) => setVersion((e.target as HTMLSelectElement).value)}>
        {versions.map((x) => (
          <option key={x} value={x}>
            {x}
          </option>
        ))}
      </select>
      <button type="submit" class="btn" data-testid={`plugin-swap-submit-${plugin}`} aria-disabled={busy || !c || !v}>
        {busy ? 'Swapping…' : 'Switch'}
      </button>
      <Message kind={result?.kind} text={result?.text} testid={`plugin-swap-result-${plugin}`} />
      {watch && <WatchTasks name={watch} />}
    </form>
  );
}

/** A connector's tasks until they all run. */
function WatchTasks({ name }: { name: string }) {
  const status = usePoll((signal) => get<ConnectorStatus>(conn(name, '/status'), { signal, quiet: true }), [name]);
  const view = status.data ? connectorView(status.data) : null;
  return (
    <p class="small watch" aria-live="polite">
      {view ? (
        <>
          <a href={ui.connector(name)}>{name}</a>: {view.running}/{view.total} tasks running{' '}
          {view.tasks.map((t) => (
            <StateBadge key={t.id} state={t.state} />
          ))}
        </>
      ) : (
        status.error ?? '…'
      )}
    </p>
  );
}

function UploadForm({ names, onUploaded }: { names: string[]; onUploaded: () => void }) {
  const [selected, setSelected] = useState('');
  const [newName, setNewName] = useState('');
  const [version, setVersion] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const chosen = newName.trim() || selected || names[0] || '';

  useEffect(() => {
    // Functional: a choice made since this render's closure must win.
    if (names.length > 0) setSelected((s) => s || names[0]);
  }, [names.join(',')]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const file = fileRef.current?.files?.[0];
    if (!chosen) return setResult({ kind: 'error', text: 'Pick a plugin, or type a new plugin name.' });
    if (!version.trim()) return setResult({ kind: 'error', text: 'Give the version the component describes itself as (e.g. 2.0.0).' });
    if (!file) return setResult({ kind: 'error', text: 'Choose a .wasm component file.' });
    setBusy(true);
    setResult({ kind: 'info', text: `Uploading ${file.name} (${file.size} bytes)…` });
    try {
      const bytes = await file.arrayBuffer();
      const r = await api<PluginVersion>('PUT', pluginPath(chosen, `/versions/${encodeURIComponent(version.trim())}`), {
        raw: bytes,
        contentType: 'application/wasm',
        quiet: true,
      });
      setResult({ kind: 'ok', text: `Stored ${r.name} ${r.version} (${r.type}), ${r.digest}` });
      onUploaded();
    } catch (ex) {
      setResult({ kind: 'error', text: describeError(ex) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="upload-h">
      <div class="card-head">
        <h2 id="upload-h">Upload a version</h2>
      </div>
      <form class="upload-form" onSubmit={submit}>
        <div class="field">
          <label for="upload-plugin">Plugin</label>
          <select id="upload-plugin" data-testid="upload-plugin" value={selected} onChange={(e) => setSelected((e.target as HTMLSelectElement).value)} disabled={!!newName.trim()}>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="upload-name">or a new plugin name</label>
          <input id="upload-name" data-testid="upload-name" type="text" value={newName} autoComplete="off" spellcheck={false} onInput={(e) => setNewName((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="upload-version">Version</label>
          <input id="upload-version" data-testid="upload-version" type="text" value={version} placeholder="2.0.0" autoComplete="off" onInput={(e) => setVersion((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="upload-file">Component (.wasm)</label>
          <input id="upload-file" data-testid="upload-file" type="file" accept=".wasm,application/wasm" ref={fileRef} />
        </div>
        <div class="field field-submit">
          <button type="submit" class="btn btn-primary" data-testid="upload-submit" aria-disabled={busy}>
            {busy ? 'Uploading…' : 'Upload'}
          </button>
        </div>
      </form>
      <Message kind={result?.kind} text={result?.text} testid="upload-result" />
    </section>
  );
}
