import { useState } from 'preact/hooks';
import { get, ui } from '../lib/api';
import { formatCount, formatRate, latest } from '../lib/history';
import { useClusterInfo, useMetrics, useNow, usePoll, useTitle } from '../lib/hooks';
import { connectorView, relativeTime, shortDigest } from '../lib/status';
import type { Expanded } from '../lib/types';
import { LiveChart } from '../components/Chart';
import { EmptyState, ErrorState, SkeletonRows, StateBadge, Trace } from '../components/ui';

export function ConnectorsPage() {
  useTitle('Connectors');
  const { data, error, errorStatus, loading } = usePoll((signal) => get<Expanded>('/connectors?expand=status&expand=info', { signal }), []);
  const metrics = useMetrics();
  const now = useNow();
  const cluster = useClusterInfo();

  const [filter, setFilter] = useState('');
  const all = data
    ? Object.entries(data)
        .filter(([, e]) => e.status)
        .map(([name, e]) => ({ name, view: connectorView(e.status!), info: e.info }))
        .sort((a, b) => a.name.localeCompare(b.name))
    : [];
  const f = filter.trim().toLowerCase();
  const rows = f
    ? all.filter(
        (r) =>
          r.name.toLowerCase().includes(f) ||
          (r.info?.config['connector.class'] ?? '').toLowerCase().includes(f) ||
          r.view.state.toLowerCase() === f,
      )
    : all;

  return (
    <div class="page">
      <div class="page-head">
        <h1>Connectors</h1>
        <a class="btn btn-primary" href={ui.newConnector}>
          New connector
        </a>
      </div>
      {error && !data && <ErrorState message={error} status={errorStatus} />}
      <div class="list-tools">
        <label for="connector-filter">Filter</label>
        <input
          id="connector-filter"
          type="search"
          value={filter}
          placeholder="name, plugin or state"
          autoComplete="off"
          spellcheck={false}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
        />
        <span class="muted small" aria-live="polite">
          {data ? (f ? `${rows.length} of ${all.length} connectors` : `${all.length} connector${all.length === 1 ? '' : 's'}`) : ''}
        </span>
      </div>
      <p class="note">
        {metrics.error
          ? `Metrics unavailable: ${metrics.error}`
          : cluster?.mode === 'distributed'
            ? `Throughput and lag come from this worker's /metrics (${cluster.worker_id}): they cover the tasks running here.`
            : 'Throughput and lag from /metrics, every 2 s.'}
      </p>
      <table class="table connectors">
        <thead>
          <tr>
            <th scope="col" class="col-name">Name</th>
            <th scope="col" class="col-type">Type</th>
            <th scope="col" class="col-state">State</th>
            <th scope="col" class="col-tasks">Tasks</th>
            <th scope="col" class="col-version">Version · digest</th>
            <th scope="col" class="col-chart">Throughput</th>
            <th scope="col" class="col-lag">Lag</th>
            <th scope="col">Failures and restarts</th>
          </tr>
        </thead>
        <tbody>
          {loading && <SkeletonRows rows={3} cols={8} />}
          {rows.map(({ name, view, info }) => {
            const points = metrics.history.series.get(name);
            const l = latest(points);
            return (
              <tr key={name} data-testid={`connector-row-${name}`}>
                <th scope="row">
                  <a href={ui.connector(name)}>{name}</a>
                  {info && <div class="muted small mono">{info.config['connector.class']}</div>}
                </th>
                <td class="col-type">{view.type}</td>
                <td class="col-state">
                  <StateBadge state={view.state} testid={`connector-state-${name}`} />
                </td>
                <td class="col-tasks">
                  <span title={view.tasks.map((t) => `${t.id}: ${t.state}`).join(', ')}>
                    {view.running}/{view.total} running
                  </span>
                </td>
                <td class="col-version">
                  <span>{view.version ?? '—'}</span>
                  <div class="muted small mono" title={view.digest ?? undefined}>
                    {shortDigest(view.digest)}
                  </div>
                </td>
                <td class="col-chart">
                  <LiveChart points={points} field="rate" width={110} height={28} compact label={`Throughput of ${name}`} />
                  <div class="small">{metrics.loaded ? formatRate(l.rate) : '…'}</div>
                </td>
                <td class="col-lag">{metrics.loaded ? formatCount(l.lag) : '…'}</td>
                <td>
                  {view.failing.length === 0 && !view.trace && <span class="muted">None</span>}
                  {view.trace && <Trace trace={view.trace} summary="Connector" />}
                  {view.failing.map((t) => (
                    <div key={t.id} class="failure">
                      <span>
                        Task {t.id} <StateBadge state={t.state} />
                        {t.attempts !== null && <span class="small"> attempt {t.attempts}</span>}
                        {t.nextRestartMs !== null && <span class="small">, next restart {relativeTime(t.nextRestartMs, now)}</span>}
                      </span>
                      {t.trace && <Trace trace={t.trace} />}
                    </div>
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {data && all.length === 0 && (
        <EmptyState testid="connectors-empty">
          No connectors yet — <a href={ui.newConnector}>create one</a>.
        </EmptyState>
      )}
      {data && all.length > 0 && rows.length === 0 && <EmptyState>No connector matches “{filter.trim()}”.</EmptyState>}
    </div>
  );
}
