import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { ApiError, api, describeError, get, ui } from '../lib/api';
import { usePoll, useTitle } from '../lib/hooks';
import { pluginNames } from '../lib/plugins';
import type { ConnectorInfo, PluginEntry } from '../lib/types';
import { ConfigForm } from '../components/ConfigForm';
import { EmptyState, ErrorState } from '../components/ui';

export function NewConnectorPage() {
  useTitle('New connector');
  const { query, route } = useLocation();
  const plugins = usePoll((signal) => get<PluginEntry[]>('/connector-plugins', { signal }), []);
  const [selected, setSelected] = useState<string>(query.plugin ?? '');
  const [name, setName] = useState('');
  const [nameErrors, setNameErrors] = useState<string[]>([]);

  const list = plugins.data ? pluginNames(plugins.data) : [];
  const plugin = selected || list[0]?.name || '';
  const info = list.find((p) => p.name === plugin);

  const create = async (config: Record<string, string>): Promise<string | null> => {
    const { name: _n, ...rest } = config;
    try {
      const created = await api<ConnectorInfo>('POST', '/connectors', { body: { name: name.trim(), config: { ...rest, name: name.trim() } }, quiet: true });
      route(ui.connector(created?.name ?? name.trim()));
      return null;
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) return `A connector named ${name.trim()} already exists: pick another name.`;
      return describeError(e);
    }
  };

  const header = (
    <div class="form-head">
      <div class="field">
        <label for="plugin-select">
          <span class="field-key">Plugin</span>
        </label>
        <select
          id="plugin-select"
          data-testid="plugin-select"
          value={plugin}
          onChange={(e) => setSelected((e.target as HTMLSelectElement).value)}
        >
          {list.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} ({p.type})
            </option>
          ))}
        </select>
        <p class="field-doc">{info ? `${info.type} · versions ${info.versions.join(', ')}` : ''}</p>
        <p class="field-error" />
      </div>
      <div class="field">
        <label for="connector-name">
          <span class="field-key">Name</span>
          <span class="req" aria-label="required">
            {' '}
            *
          </span>
        </label>
        <input
          id="connector-name"
          name="name"
          data-testid="connector-name"
          type="text"
          value={name}
          required
          autoComplete="off"
          spellcheck={false}
          aria-describedby="connector-name-err"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <p class="field-doc">Unique in the cluster; also names its consumer group (connect-&lt;name&gt;).</p>
        <p class="field-error" id="connector-name-err" data-testid="error-name">
          {name.trim() ? nameErrors.join('; ') : ''}
        </p>
      </div>
    </div>
  );

  return (
    <div class="page">
      <div class="page-head">
        <h1>New connector</h1>
      </div>
      {plugins.error && !plugins.data && <ErrorState message={plugins.error} status={plugins.errorStatus} />}
      {plugins.loading && (
        <div class="config-form" aria-busy="true" aria-label="Loading plugins">
          <div class="form-head">
            <div class="field">
              <span class="skeleton skeleton-label" />
              <span class="skeleton skeleton-input" />
            </div>
            <div class="field">
              <span class="skeleton skeleton-label" />
              <span class="skeleton skeleton-input" />
            </div>
          </div>
        </div>
      )}
      {plugins.data && list.length === 0 && (
        <EmptyState>
          This worker has no plugins: put <code>.wasm</code> components in its <code>plugin.path</code>, or{' '}
          <a href={ui.plugins}>upload one</a>.
        </EmptyState>
      )}
      {plugin && (
        <ConfigForm
          plugin={plugin}
          name={name.trim()}
          submitLabel="Create connector"
          submitTestid="create"
          headingLevel={2}
          header={header}
          onNameErrors={setNameErrors}
          blockedReason={name.trim() ? null : 'Give the connector a name.'}
          onSubmit={create}
        />
      )}
    </div>
  );
}
