import { ApiError, get, ui } from '../lib/api';
import { usePoll, useTitle } from '../lib/hooks';
import { assignment } from '../lib/status';
import type { ClusterInfo, ConnectorStatus, Expanded, RootInfo } from '../lib/types';
import { EmptyState, ErrorState, Section, SkeletonRows, StateBadge } from '../components/ui';

interface ClusterData {
  cluster: ClusterInfo;
  /** `GET /cluster` is missing (an older worker): only this worker is known. */
  fallback: boolean;
  root: RootInfo | null;
  statuses: ConnectorStatus[];
}

async function loadCluster(signal: AbortSignal): Promise<ClusterData> {
  // All three at once, every outcome handled (no promise is left rejected and unheeded).
  const [expandedR, clusterR, rootR] = await Promise.allSettled([
    get<Expanded>('/connectors?expand=status&expand=info', { signal }),
    get<ClusterInfo>('/cluster', { signal, quiet: true }),
    get<RootInfo>('/', { signal, quiet: true }),
  ]);
  if (expandedR.status === 'rejected') throw expandedR.reason;
  let cluster: ClusterInfo;
  let fallback = false;
  if (clusterR.status === 'fulfilled') {
    cluster = clusterR.value;
  } else {
    const e = clusterR.reason;
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    fallback = true;
    cluster = { mode: 'standalone', worker_id: '', group_id: null, stable: true, workers: [] };
  }
  const root = rootR.status === 'fulfilled' ? rootR.value : null;
  const statuses = Object.values(expandedR.value)
    .map((e) => e.status)
    .filter((s): s is ConnectorStatus => !!s)
    .sort((a, b) => a.name.localeCompare(b.name));
  if (fallback) {
    // The workers that the statuses name (or the address the console was loaded from).
    const ids = [...new Set(statuses.flatMap((s) => [s.connector.worker_id, ...s.tasks.map((t) => t.worker_id)]).filter(Boolean))].sort();
    const self = ids.length === 1 ? ids[0] : (ids.find((i) => i === location.host) ?? location.host);
    const all = ids.includes(self) ? ids : [self, ...ids];
    cluster = {
      ...cluster,
      mode: all.length > 1 ? 'distributed' : 'standalone',
      worker_id: self,
      workers: all.map((id) => ({ id, self: id === self })),
    };
  }
  return { cluster, fallback, root, statuses };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function ClusterPage() {
  useTitle('Cluster');
  const { data, error, errorStatus, loading } = usePoll(loadCluster, []);

  const workers = data ? data.cluster.workers.map((w) => w.id) : [];
  const plan = data ? assignment(data.statuses, workers) : new Map();
  const selfIds = new Set(data?.cluster.workers.filter((w) => w.self).map((w) => w.id));
  const taskCount = data ? data.statuses.reduce((n, s) => n + s.tasks.length, 0) : 0;
  // Where each connector's own instance runs (its status's worker_id).
  const instances = new Map<string, string[]>();
  for (const s of data?.statuses ?? []) {
    const w = s.connector.worker_id;
    if (!w) continue;
    if (!plan.has(w)) plan.set(w, []);
    instances.set(w, [...(instances.get(w) ?? []), s.name]);
  }

  return (
    <div class="page">
      <div class="page-head">
        <h1>Cluster</h1>
      </div>
      {error && !data && <ErrorState message={error} status={errorStatus} />}
      <dl class="facts">
        <div>
          <dt>Mode</dt>
          <dd data-testid="cluster-mode">{data ? data.cluster.mode : <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>This worker</dt>
          <dd class="mono">{data ? data.cluster.worker_id : <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>Group</dt>
          <dd class="mono">{data ? (data.cluster.group_id ?? '—') : <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>Membership</dt>
          <dd>{data ? (data.cluster.stable ? 'stable' : 'rebalancing') : <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>Kafka cluster</dt>
          <dd class="mono">{data ? (data.root?.kafka_cluster_id ?? '—') : <span class="skeleton" />}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{data ? (data.root ? `Copycat ${data.root.copycat_version ?? '?'} (REST ${data.root.version})` : '—') : <span class="skeleton" />}</dd>
        </div>
      </dl>
      {data?.fallback && (
        <p class="note">
          This worker does not serve <code>GET /cluster</code>: the workers shown are those the connectors' statuses name.
        </p>
      )}

      <Section title={`Workers and their tasks${data ? ` (${plural(workers.length, 'worker')}, ${plural(taskCount, 'task')})` : ''}`} id="workers">
        <table class="table">
          <thead>
            <tr>
              <th scope="col" class="col-worker">Worker</th>
              <th scope="col" class="col-num">Tasks</th>
              <th scope="col">Assigned tasks</th>
              <th scope="col" class="col-instances">Connector instances</th>
            </tr>
          </thead>
          <tbody>
            {loading && <SkeletonRows rows={1} cols={4} />}
            {data &&
              [...plan.entries()].map(([id, tasks]) => (
                <tr key={id} data-testid={`worker-${id}`}>
                  <th scope="row" class="mono">
                    {id}
                    {selfIds.has(id) && <span class="tag">this worker</span>}
                    {!workers.includes(id) && <span class="tag tag-warn">not a member</span>}
                  </th>
                  <td class="col-num">{tasks.length}</td>
                  <td>
                    {tasks.length === 0 ? (
                      <span class="muted">No tasks</span>
                    ) : (
                      <ul class="chips">
                        {tasks.map((t: { connector: string; task: number; state: string }) => (
                          <li key={`${t.connector}-${t.task}`}>
                            <a href={ui.connector(t.connector)}>
                              {t.connector}/{t.task}
                            </a>{' '}
                            <StateBadge state={t.state} />
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td class="col-instances">
                    {(instances.get(id) ?? []).length === 0 ? (
                      <span class="muted">—</span>
                    ) : (
                      <ul class="chips">
                        {instances.get(id)!.map((c) => (
                          <li key={c}>
                            <a href={ui.connector(c)}>{c}</a>
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
        {data && data.statuses.length === 0 && (
          <EmptyState>
            No connectors yet — <a href={ui.newConnector}>create one</a>.
          </EmptyState>
        )}
      </Section>
    </div>
  );
}
