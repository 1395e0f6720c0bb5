// Shapes of the REST API's answers (Kafka Connect's, plus Copycat's fields).

export type ConnectorType = 'source' | 'sink' | 'unknown';

export interface TaskStatus {
  id: number;
  state: string;
  worker_id: string;
  version?: string;
  trace?: string;
  attempts?: number;
  next_restart_ms?: number;
}

export interface LastSwap {
  from_version?: string;
  from_digest?: string;
  to_version?: string;
  to_digest?: string;
  outcome?: string;
  pause_ms?: number;
  at_ms?: number;
  reason?: string;
  message?: string;
  [k: string]: unknown;
}

export interface ConnectorStatus {
  name: string;
  connector: { state: string; worker_id: string; version?: string; digest?: string; trace?: string };
  tasks: TaskStatus[];
  type: ConnectorType;
  last_swap?: LastSwap | null;
}

export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type: ConnectorType;
}

export type Expanded = Record<string, { status?: ConnectorStatus; info?: ConnectorInfo }>;

export interface PluginEntry {
  class: string;
  type: string;
  version?: string;
}

export interface PluginVersion {
  name: string;
  version: string;
  type: string;
  digest: string;
  source: string;
}

export interface ConfigKeyInfo {
  name: string;
  type: string;
  required: boolean;
  default_value: string | null;
  importance: string;
  documentation: string;
  group: string | null;
  order_in_group: number;
  width: string;
  display_name: string;
  dependents: string[];
}

export interface ConfigValueInfo {
  name: string;
  value: string | null;
  recommended_values: string[];
  errors: string[];
  visible: boolean;
}

export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: { definition: ConfigKeyInfo | null; value: ConfigValueInfo }[];
}

export interface SwapReport {
  from_version: string;
  from_digest: string;
  to_version: string;
  to_digest: string;
  outcome: string;
  pause_ms: number;
  at_ms: number;
}

export interface ClusterInfo {
  mode: 'standalone' | 'distributed';
  worker_id: string;
  group_id: string | null;
  stable: boolean;
  workers: { id: string; self: boolean }[];
}

export interface RootInfo {
  version: string;
  commit: string;
  kafka_cluster_id: string;
  copycat_version?: string;
}

export interface OffsetEntry {
  partition: Record<string, unknown>;
  offset: Record<string, unknown> | null;
}

export type Loggers = Record<string, { level: string; last_modified: number | null }>;
