import { Fragment } from 'preact';
import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, conn, describeError, get, plugin as pluginPath, ui } from '../lib/api';
import { configPatch, defsByName, maskConfig, splitForEdit } from '../lib/configForm';
import { formatCount, formatRate, latest } from '../lib/history';
import { useClusterInfo, useMetrics, useNow, usePoll, useTitle } from '../lib/hooks';
import { connectorView, relativeTime, shortDigest } from '../lib/status';
import type { ConfigKeyInfo, ConnectorInfo, ConnectorStatus, LastSwap, OffsetEntry, PluginVersion, SwapReport } from '../lib/types';
import { LiveChart } from '../components/Chart';
import { ConfigForm } from '../components/ConfigForm';
import { ConfirmDialog, ErrorState, Message, Section, SkeletonRows, StateBadge, Trace } from '../components/ui';

interface Loaded {
  status: ConnectorStatus;
  info: ConnectorInfo;
}

async function loadConnector(name: string, signal: AbortSignal): Promise<Loaded> {
  const [status, info] = await Promise.all([
    get<ConnectorStatus>(conn(name, '/status'), { signal, quiet: true }),
    get<ConnectorInfo>(conn(name), { signal, quiet: true }),
  ]);
  return { status, info };
}

export function ConnectorPage({ name }: { name: string }) {
  useTitle(name);
  const { route } = useLocation();
  const main = usePoll((signal) => loadConnector(name, signal), [name]);
  const [actionMsg, setActionMsg] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [editing, setEditing] = useState(false);
  // Opening the editor brings it into view (it is below the tasks and charts).
  useEffect(() => {
    if (editing) document.getElementById('config')?.scrollIntoView({ block: 'start' });
  }, [editing]);

  const pluginName = main.data?.info.config['connector.class'] ?? null;
  const view = main.data ? connectorView(main.data.status) : null;

  // The definition of the version it runs, to know which keys are PASSWORDs.
  const runningVersion = view?.version ?? null;
  const [defs, setDefs] = useState<ConfigKeyInfo[] | null>(null);
  const [defsFailed, setDefsFailed] = useState<string | null>(null);
  useEffect(() => {
    if (!pluginName) return;
    let stale = false;
    const q = runningVersion ? `?version=${encodeURIComponent(runningVersion)}` : '';
    get<ConfigKeyInfo[]>(pluginPath(pluginName, `/config${q}`), { quiet: true })
      .then((d) => !stale && (setDefs(d), setDefsFailed(null)))
      .catch((e) => !stale && setDefsFailed(describeError(e)));
    return () => {
      stale = true;
    };
  }, [pluginName, runningVersion]);
  const byName = useMemo(() => (defs ? defsByName(defs) : null), [defs]);

  if (main.error && (!main.data || main.errorStatus === 404)) {
    if (main.errorStatus === 404) {
      return (
        <div class="page">
          <h1>{name}</h1>
          <ErrorState message={`There is no connector named ${name}.`}>
            <p>
              See <a href={ui.connectors}>all connectors</a>, or <a href={ui.newConnector}>create one</a>.
            </p>
          </ErrorState>
        </div>
      );
    }
    return (
      <div class="page">
        <h1>{name}</h1>
        <ErrorState message={main.error} status={main.errorStatus} />
      </div>
    );
  }

  // While one action runs the others are refused (aria-disabled: a disabled
  // button would drop the keyboard focus).
  const act = async (label: string, method: string, path: string, done: string) => {
    if (busy) return;
    setBusy(true);
    setActionMsg({ kind: 'info', text: `${label}…` });
    try {
      await api(method, path, { quiet: true });
      setActionMsg({ kind: 'ok', text: done });
      main.reload();
    } catch (e) {
      setActionMsg({ kind: 'error', text: `${label} failed: ${describeError(e)}` });
    } finally {
      setBusy(false);
    }
  };

  const doDelete = async () => {
    setBusy(true);
    try {
      await api('DELETE', conn(name), { quiet: true });
      setConfirmDelete(false);
      route(ui.connectors);
    } catch (e) {
      setConfirmDelete(false);
      setActionMsg({ kind: 'error', text: `Delete failed: ${describeError(e)}` });
    } finally {
      setBusy(false);
    }
  };

  const state = view?.state ?? '';

  return (
    <div class="page">
      <div class="page-head">
        <h1>
          <span class="mono">{name}</span>
        </h1>
        <StateBadge state={view ? view.state : '…'} testid="connector-state" />
        <span class="muted">{view?.type ?? ''}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Plugin</dt>
          <dd class="mono">{pluginName ?? <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd data-testid="connector-version">{view ? (view.version ?? '—') : <span class="skeleton" />}</dd>
        </div>
        <div class="fact-wide">
          <dt>Digest</dt>
          <dd class="mono" data-testid="connector-digest" title={view?.digest ?? undefined}>
            {view ? (view.digest ?? '—') : <span class="skeleton" />}
          </dd>
        </div>
        <div>
          <dt>Worker</dt>
          <dd class="mono">{view ? view.workerId || '—' : <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>Tasks</dt>
          <dd>{view ? `${view.running}/${view.total} running` : <span class="skeleton" />}</dd>
        </div>
      </dl>
      {view?.trace && <Trace trace={view.trace} summary="Connector failed" testid="connector-trace" />}

      <div class="actions-bar" role="group" aria-label="Connector actions">
        <button class="btn" data-testid="action-pause" aria-disabled={busy} onClick={() => act('Pause', 'PUT', conn(name, '/pause'), 'Pause requested: tasks finish their batch, then report PAUSED.')}>
          Pause
        </button>
        <button class="btn" data-testid="action-resume" aria-disabled={busy} onClick={() => act('Resume', 'PUT', conn(name, '/resume'), 'Resume requested.')}>
          Resume
        </button>
        <button class="btn" data-testid="action-stop" aria-disabled={busy} onClick={() => act('Stop', 'PUT', conn(name, '/stop'), 'Stop requested: tasks flush and commit, then the connector reports STOPPED.')}>
          Stop
        </button>
        <button
          class="btn"
          data-testid="action-restart"
          aria-disabled={busy}
          onClick={() => act('Restart', 'POST', conn(name, '/restart?includeTasks=true&onlyFailed=false'), 'Restart requested (connector and all tasks).')}
        >
          Restart
        </button>
        <button class="btn" data-testid="action-edit" aria-expanded={editing} aria-controls="config" onClick={() => setEditing((e) => !e)} disabled={!main.data}>
          {editing ? 'Cancel edit' : 'Edit config'}
        </button>
        <button class="btn btn-danger" data-testid="action-delete" aria-disabled={busy} onClick={() => !busy && setConfirmDelete(true)}>
          Delete
        </button>
        <Message kind={actionMsg?.kind} text={actionMsg?.text} testid="action-result" />
      </div>

      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${name}?`}
        confirmLabel="Delete connector"
        confirmTestid="confirm-delete"
        busy={busy}
        onConfirm={doDelete}
        onCancel={() => setConfirmDelete(false)}
      >
        <p>Its tasks stop and its config is removed from the cluster. Its committed offsets are kept: a connector created later with the same name resumes from them.</p>
      </ConfirmDialog>

      <div class="grid-2">
        <div class="stack">
          <TasksSection name={name} view={view} loading={main.loading} onRestarted={main.reload} />
          <VersionSection name={name} plugin={pluginName} view={view} lastSwap={view?.lastSwap ?? null} onSwapped={main.reload} />
        </div>
        <div class="stack">
          <ChartsSection name={name} type={view?.type ?? null} view={view} />
          <TopicsSection name={name} />
        </div>
      </div>

      {editing && main.data && pluginName ? (
        <Section title="Edit config" id="config">
          {defs && byName ? (
            <EditForm
              name={name}
              plugin={pluginName}
              config={main.data.info.config}
              byName={byName}
              version={view?.version ?? null}
              onDone={(msg) => {
                setEditing(false);
                setActionMsg({ kind: 'ok', text: msg });
                main.reload();
              }}
              onCancel={() => setEditing(false)}
            />
          ) : (
            <Message kind="error" text={defsFailed ? `The plugin's definition is unavailable (${defsFailed}): the config cannot be edited here.` : 'Loading the definition…'} />
          )}
        </Section>
      ) : (
        <ConfigSection config={main.data?.info.config ?? null} byName={byName} defsFailed={defsFailed} />
      )}

      <OffsetsSection name={name} state={state} />
    </div>
  );
}

function TasksSection({ name, view, loading, onRestarted }: { name: string; view: ReturnType<typeof connectorView> | null; loading: boolean; onRestarted: () => void }) {
  const now = useNow();
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const restart = async (id: number) => {
    try {
      await api('POST', conn(name, `/tasks/${id}/restart`), { quiet: true });
      setMsg({ kind: 'ok', text: `Task ${id} restart requested.` });
      onRestarted();
    } catch (e) {
      setMsg({ kind: 'error', text: `Restart of task ${id} failed: ${describeError(e)}` });
    }
  };
  return (
    <Section title="Tasks" id="tasks">
      <table class="table tasks">
        <thead>
          <tr>
            <th scope="col" class="col-num">Task</th>
            <th scope="col" class="col-state">State</th>
            <th scope="col" class="col-worker-cell">Worker</th>
            <th scope="col" class="col-restarts">Restarts</th>
            <th scope="col" class="col-action">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {loading && <SkeletonRows rows={1} cols={5} />}
          {view?.tasks.map((t) => (
            <Fragment key={t.id}>
              <tr data-testid={`task-${t.id}`}>
                <th scope="row" class="col-num">
                  {t.id}
                </th>
                <td class="col-state">
                  <StateBadge state={t.state} testid={`task-state-${t.id}`} />
                </td>
                <td class="mono" data-testid={`task-worker-${t.id}`}>
                  {t.workerId || '—'}
                </td>
                <td>
                  {t.attempts !== null && <span data-testid={`task-attempts-${t.id}`}>attempt {t.attempts}</span>}
                  {t.nextRestartMs !== null && (
                    <span data-testid={`task-next-restart-${t.id}`} title={new Date(t.nextRestartMs).toLocaleString()}>
                      {' '}
                      · next {relativeTime(t.nextRestartMs, now)}
                    </span>
                  )}
                  {t.attempts === null && t.nextRestartMs === null && <span class="muted">—</span>}
                </td>
                <td class="col-action">
                  <button class="btn btn-small" onClick={() => restart(t.id)} aria-label={`Restart task ${t.id}`}>
                    Restart
                  </button>
                </td>
              </tr>
              {t.trace && (
                <tr class="trace-row">
                  <td colSpan={5}>
                    <Trace trace={t.trace} testid={`trace-${t.id}`} summary={`Task ${t.id} trace`} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {view && view.tasks.length === 0 && (
        <p class="muted">
          No tasks{view.state === 'STOPPED' || view.state === 'PAUSED' ? ` while ${view.state.toLowerCase()}: resume it to start them` : ' yet'}.
        </p>
      )}
      <Message kind={msg?.kind} text={msg?.text} />
    </Section>
  );
}

function ChartsSection({ name, type, view }: { name: string; type: string | null; view: ReturnType<typeof connectorView> | null }) {
  const metrics = useMetrics();
  const cluster = useClusterInfo();
  // Each worker serves the metrics of its own tasks only.
  const here = cluster && view ? view.tasks.filter((t) => t.workerId === cluster.worker_id).length : null;
  const partial = cluster?.mode === 'distributed' && view && here !== null && here < view.total;
  const points = metrics.history.series.get(name);
  const l = latest(points);
  const hasLag = points?.some((p) => p.lag !== null) ?? false;
  return (
    <Section title="Throughput and lag" id="charts-section">
      <div class="charts" data-testid="charts">
        <figure>
          <figcaption>
            Throughput: <strong>{metrics.loaded ? formatRate(l.rate) : '…'}</strong>
          </figcaption>
          <LiveChart points={points} field="rate" width={420} height={110} label={`Records per second of ${name}`} testid="chart-throughput" />
        </figure>
        <figure>
          <figcaption>
            {type === 'sink' ? 'Consumer lag' : 'Offset commit lag'}:{' '}
            <strong>{metrics.loaded ? (hasLag ? `${formatCount(l.lag)} records` : 'no data yet') : '…'}</strong>
          </figcaption>
          <LiveChart
            points={points}
            field="lag"
            width={420}
            height={110}
            label={type === 'sink' ? `Records of ${name}'s partitions past its committed offsets` : `Uncommitted records of ${name}`}
            testid="chart-lag"
          />
        </figure>
      </div>
      <p class="muted small metrics-note">
        {partial ? (
          <>
            From this worker's <code>/metrics</code>: {here} of the {view!.total} tasks run here ({cluster!.worker_id}); the console of
            another worker shows its own.
          </>
        ) : (
          <>
            From <code>/metrics</code>, every 2 s while the page is visible.
          </>
        )}
      </p>
      <Message kind="error" text={metrics.error ? `Metrics unavailable: ${metrics.error}` : null} />
    </Section>
  );
}

function ConfigSection({ config, byName, defsFailed }: { config: Record<string, string> | null; byName: Map<string, ConfigKeyInfo> | null; defsFailed: string | null }) {
  // Values are shown only once the definition says which keys are secrets (or could not be had).
  const ready = config && (byName || defsFailed);
  const rows = ready ? maskConfig(config, byName) : [];
  return (
    <Section title="Config" id="config">
      {defsFailed && <p class="note">The plugin's definition is unavailable ({defsFailed}); keys whose names look secret are hidden.</p>}
      <table class="table config" data-testid="config-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {!ready && <SkeletonRows rows={4} cols={2} />}
          {rows.map((r) => (
            <tr key={r.key} data-testid={`config-${r.key}`}>
              <th scope="row" class="mono">
                {r.key}
              </th>
              <td class="mono value">
                {r.hidden ? (
                  <>
                    {r.display} <span class="muted">hidden</span>
                  </>
                ) : (
                  r.display
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function EditForm({
  name,
  plugin,
  config,
  byName,
  version,
  onDone,
  onCancel,
}: {
  name: string;
  plugin: string;
  config: Record<string, string>;
  byName: Map<string, ConfigKeyInfo>;
  version: string | null;
  onDone: (msg: string) => void;
  onCancel: () => void;
}) {
  // Taken once: polling must not overwrite what is being typed.
  const [split] = useState(() => splitForEdit(config, byName));
  // A patch, not a replacement: the worker shows secrets as [hidden], and
  // a PUT of what it showed would overwrite them with that text.
  const save = async (cfg: Record<string, string>) => {
    const patch = configPatch(config, { ...cfg, name });
    if (Object.keys(patch).length === 0) return 'Nothing changed.';
    try {
      await api('PATCH', conn(name, '/config'), { body: patch, quiet: true });
      onDone(`Config saved (${Object.keys(patch).join(', ')}): the tasks were replaced with the new config.`);
      return null;
    } catch (e) {
      return describeError(e);
    }
  };
  return (
    <ConfigForm
      plugin={plugin}
      name={name}
      initialValues={split.values}
      initialExtras={split.extras}
      kept={split.kept}
      version={config['connector.plugin.version'] ?? version}
      submitLabel="Save config"
      submitTestid="save"
      onSubmit={save}
      cancel={
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
      }
    />
  );
}

/** `1.0.0 → 2.0.0, paused 54 ms`. */
function swapDetail(r: SwapReport | LastSwap): string {
  const pause = typeof r.pause_ms === 'number' ? `, paused ${r.pause_ms.toFixed(r.pause_ms < 10 ? 1 : 0)} ms` : '';
  const from = r.from_version ? `${r.from_version} → ` : '';
  return `${from}${r.to_version ?? '?'}${pause}`;
}

function swapText(r: SwapReport | LastSwap): string {
  return `${r.outcome ?? '?'}: ${swapDetail(r)}`;
}

function VersionSection({
  name,
  plugin,
  view,
  lastSwap,
  onSwapped,
}: {
  name: string;
  plugin: string | null;
  view: ReturnType<typeof connectorView> | null;
  lastSwap: LastSwap | null;
  onSwapped: () => void;
}) {
  const versions = usePoll(
    (signal) => (plugin ? get<PluginVersion[]>(pluginPath(plugin, '/versions'), { signal, quiet: true }) : Promise.resolve([])),
    [plugin],
    10_000,
  );
  const [target, setTarget] = useState('');
  const [result, setResult] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  const [swapping, setSwapping] = useState(false);
  const list = versions.data ?? [];
  const current = view?.version ?? null;
  const chosen = target || list.find((v) => v.version !== current)?.version || current || '';

  const swap = async (e: Event) => {
    e.preventDefault();
    if (!chosen || swapping) return;
    setSwapping(true);
    setResult({ kind: 'info', text: `Swapping to ${chosen}: draining the tasks…` });
    try {
      const r = await api<SwapReport>('PUT', conn(name, '/version'), { body: { version: chosen }, quiet: true });
      setResult({ kind: r.outcome === 'SWAPPED' ? 'ok' : 'error', text: swapText(r) });
    } catch (ex) {
      const status = ex instanceof ApiError ? ex.status : 0;
      setResult({ kind: 'error', text: `${status === 400 ? 'ROLLED_BACK or refused' : 'Failed'}: ${describeError(ex)}` });
    } finally {
      setSwapping(false);
      onSwapped();
    }
  };

  return (
    <Section title="Version" id="version">
      <form class="inline-form" onSubmit={swap}>
        <label for="swap-version">Switch to</label>
        <select id="swap-version" data-testid="swap-version" value={chosen} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
          {list.length === 0 && <option value="">{versions.loading ? 'Loading…' : 'No versions'}</option>}
          {list.map((v) => (
            <option key={v.version} value={v.version}>
              {v.version}
              {v.version === current ? ' (running)' : ''} · {shortDigest(v.digest)}
            </option>
          ))}
        </select>
        <button type="submit" class="btn btn-primary" data-testid="swap-submit" aria-disabled={swapping || !chosen}>
          {swapping ? 'Swapping…' : 'Switch version'}
        </button>
      </form>
      <p class="muted small">
        A hot swap drains the tasks, starts the new version from the committed offsets, and rolls back by itself if the new tasks do not start.
      </p>
      <Message
        kind={result?.kind}
        text={result ? `${result.text}${view && (swapping || view.running < view.total) ? ` · tasks running ${view.running}/${view.total}` : ''}` : null}
        testid="swap-result"
      />
      <h3>Last swap</h3>
      <div data-testid="last-swap" class="last-swap">
        {lastSwap ? (
          <>
            <StateBadge state={lastSwap.outcome ?? '?'} /> <span>{swapDetail(lastSwap)}</span>
            {lastSwap.at_ms ? <span class="muted small"> · {new Date(lastSwap.at_ms).toLocaleString()}</span> : null}
            {lastSwap.reason && <p class="swap-reason">Rolled back because: {lastSwap.reason}</p>}
          </>
        ) : (
          <span class="muted">No swap since the worker started.</span>
        )}
      </div>
    </Section>
  );
}

function TopicsSection({ name }: { name: string }) {
  const topics = usePoll((signal) => get<Record<string, { topics: string[] }>>(conn(name, '/topics'), { signal, quiet: true }), [name], 5000);
  const list = topics.data ? (Object.values(topics.data)[0]?.topics ?? []) : [];
  return (
    <Section title="Topics" id="topics-section">
      <div data-testid="topics">
        {topics.loading && <span class="skeleton" />}
        {topics.error && !topics.data && <Message kind="error" text={topics.errorStatus === 403 ? `Topic tracking is off on this worker: ${topics.error}` : topics.error} />}
        {topics.data && list.length === 0 && <p class="muted">No topics yet: records have not gone to (or come from) any topic since it was created or reset.</p>}
        {list.length > 0 && (
          <ul class="chips">
            {list.map((t) => (
              <li key={t} class="mono">
                {t}
              </li>
            ))}
          </ul>
        )}
      </div>
    </Section>
  );
}

function OffsetsSection({ name, state }: { name: string; state: string }) {
  const offsets = usePoll((signal) => get<{ offsets: OffsetEntry[] }>(conn(name, '/offsets'), { signal, quiet: true }), [name], 5000);
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const stopped = state === 'STOPPED';
  const hint = stopped
    ? 'The connector is stopped: its offsets can be reset.'
    : `Reset needs the connector STOPPED (it is ${state || 'loading'}): stop it first, or a running task would write its offsets again.`;
  const reset = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const r = await api<{ message?: string }>('DELETE', conn(name, '/offsets'), { quiet: true });
      setMsg({ kind: 'ok', text: r?.message ?? 'Offsets reset.' });
      offsets.reload();
    } catch (e) {
      setMsg({ kind: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };
  const list = offsets.data?.offsets ?? [];
  return (
    <Section title="Offsets" id="offsets-section">
      <div data-testid="offsets">
        <table class="table offsets">
          <thead>
            <tr>
              <th scope="col">Partition</th>
              <th scope="col">Offset</th>
            </tr>
          </thead>
          <tbody>
            {offsets.loading && <SkeletonRows rows={1} cols={2} />}
            {list.map((o, i) => (
              <tr key={i} data-testid="offset-row">
                <td class="mono">{JSON.stringify(o.partition)}</td>
                <td class="mono">{o.offset === null ? 'null' : JSON.stringify(o.offset)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {offsets.data && list.length === 0 && <p class="muted">No committed offsets.</p>}
        {offsets.error && <Message kind="error" text={`Could not read the offsets: ${offsets.error}`} />}
        <div class="inline-form">
          <button class="btn btn-danger" data-testid="offsets-reset" disabled={!stopped} aria-disabled={busy} onClick={reset} aria-describedby="offsets-reset-hint">
            Reset offsets
          </button>
          <p id="offsets-reset-hint" class="muted small" data-testid="offsets-reset-hint">
            {hint}
          </p>
        </div>
        <Message kind={msg?.kind} text={msg?.text} testid="offsets-message" />
      </div>
    </Section>
  );
}
