import { useState } from 'preact/hooks';
import { api, conn, describeError, get, ui } from '../lib/api';
import { useClusterInfo, useMetrics, useNow, usePoll, useTitle } from '../lib/hooks';
import { errorCounts } from '../lib/prom';
import { failures, relativeTime } from '../lib/status';
import type { Expanded } from '../lib/types';
import { EmptyState, ErrorState, Message, Section, SkeletonRows, StateBadge, Trace } from '../components/ui';

export function ErrorsPage() {
  useTitle('Errors');
  const data = usePoll((signal) => get<Expanded>('/connectors?expand=status', { signal }), []);
  const metrics = useMetrics();
  const now = useNow();
  const cluster = useClusterInfo();
  const statuses = data.data ? Object.values(data.data).flatMap((e) => (e.status ? [e.status] : [])) : [];
  const list = failures(statuses);
  const failedConnectors = statuses.filter((s) => s.connector.state === 'FAILED');
  const counts = [...errorCounts(metrics.samples).entries()].sort((a, b) => a[0].localeCompare(b[0]));
  const [msg, setMsg] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const restart = async (connector: string, task: number) => {
    try {
      await api('POST', conn(connector, `/tasks/${task}/restart`), { quiet: true });
      setMsg({ kind: 'ok', text: `Restart of ${connector} task ${task} requested (with a full budget of automatic restarts).` });
      data.reload();
    } catch (e) {
      setMsg({ kind: 'error', text: `Restart of ${connector} task ${task} failed: ${describeError(e)}` });
    }
  };

  return (
    <div class="page">
      <div class="page-head">
        <h1>Errors</h1>
      </div>
      {data.error && !data.data && <ErrorState message={data.error} status={data.errorStatus} />}
      <Section title="Failing tasks" id="failures">
        <p class="muted small">
          Tasks FAILED or RESTARTING now (a failed task is restarted with backoff until its budget is spent, then stays FAILED).
        </p>
        <table class="table failures">
          <thead>
            <tr>
              <th scope="col" class="col-conn">Connector</th>
              <th scope="col" class="col-num">Task</th>
              <th scope="col" class="col-state">State</th>
              <th scope="col" class="col-restarts">Restarts</th>
              <th scope="col">Trace</th>
              <th scope="col" class="col-action">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.loading && <SkeletonRows rows={2} cols={6} />}
            {failedConnectors.map((s) => (
              <tr key={`c-${s.name}`} data-testid={`failure-${s.name}-connector`}>
                <th scope="row">
                  <a href={ui.connector(s.name)}>{s.name}</a>
                </th>
                <td class="col-num">—</td>
                <td class="col-state">
                  <StateBadge state={s.connector.state} />
                </td>
                <td class="muted">connector</td>
                <td>{s.connector.trace ? <Trace trace={s.connector.trace} /> : <span class="muted">no trace</span>}</td>
                <td class="col-action" />
              </tr>
            ))}
            {list.map(({ connector, task }) => (
              <tr key={`${connector}-${task.id}`} data-testid={`failure-${connector}-${task.id}`}>
                <th scope="row">
                  <a href={ui.connector(connector)}>{connector}</a>
                </th>
                <td class="col-num">{task.id}</td>
                <td class="col-state">
                  <StateBadge state={task.state} />
                </td>
                <td>
                  {task.attempts !== null ? `attempt ${task.attempts}` : '—'}
                  {task.nextRestartMs !== null && `, next ${relativeTime(task.nextRestartMs, now)}`}
                </td>
                <td>{task.trace ? <Trace trace={task.trace} testid={`failure-trace-${connector}-${task.id}`} /> : <span class="muted">no trace</span>}</td>
                <td class="col-action">
                  <button class="btn btn-small" onClick={() => restart(connector, task.id)} aria-label={`Restart ${connector} task ${task.id}`}>
                    Restart
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <Message kind={msg?.kind} text={msg?.text} />
        {data.data && list.length === 0 && failedConnectors.length === 0 && (
          <EmptyState testid="errors-empty">
            No failing tasks. Record errors and dead letter queue counts are below; see the <a href={ui.connectors}>connectors</a> for states.
          </EmptyState>
        )}
      </Section>

      <Section title="Record errors and dead letter queue" id="error-counts">
        <p class="muted small">
          From <code>/metrics</code>, summed over each connector's tasks since the worker started
          {cluster?.mode === 'distributed' ? ` (the tasks on this worker, ${cluster.worker_id})` : ''}. Tolerated errors
          (<code>errors.tolerance=all</code>) are skipped or sent to the dead letter queue.
        </p>
        <table class="table counts">
          <thead>
            <tr>
              <th scope="col">Connector</th>
              <th scope="col" class="col-num">Record errors</th>
              <th scope="col" class="col-num">Skipped</th>
              <th scope="col" class="col-num">DLQ sent</th>
              <th scope="col" class="col-num">DLQ failed</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {!metrics.loaded && <SkeletonRows rows={2} cols={6} />}
            {counts.map(([c, e]) => (
              <tr key={c} data-testid={`errors-${c}`} class={e.recordErrors + e.dlqFailures > 0 ? 'row-warn' : ''}>
                <th scope="row">
                  <a href={ui.connector(c)}>{c}</a>
                </th>
                <td class="col-num">{e.recordErrors}</td>
                <td class="col-num">{e.skipped}</td>
                <td class="col-num">{e.dlqRequests}</td>
                <td class="col-num">{e.dlqFailures}</td>
                <td>{e.lastErrorMs > 0 ? <span title={new Date(e.lastErrorMs).toLocaleString()}>{relativeTime(e.lastErrorMs, now)}</span> : <span class="muted">never</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {metrics.loaded && counts.length === 0 && (
          <p class="muted">{metrics.error ? `Metrics unavailable: ${metrics.error}` : 'No data yet: no task has reported error counts.'}</p>
        )}
      </Section>
    </div>
  );
}
