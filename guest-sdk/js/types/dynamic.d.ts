// copycat-sdk/dynamic: a dynamic connector's running instance (copycat:dynamic@0.1.0).
import type { Config, ConfigPairs } from './index.js';

/** The `dynamic` member of a source or sink spec. */
export interface DynamicSpec {
  /** Start watching; false: nothing to watch (the host asks taskConfigs once). */
  start(config: Config): boolean;
  /** The task configs for the work as it is now. */
  taskConfigs(maxTasks: number): (Config | Record<string, string> | Iterable<[string, string]>)[];
  /** Look at the source; call requestTaskReconfiguration() when the work changed. */
  monitor?(): void;
  stop?(): void;
}

/** The `copycat:dynamic/instance` export. */
export interface Instance {
  start(config: ConfigPairs): boolean;
  taskConfigs(maxTasks: number): ConfigPairs[];
  monitor(): void;
  stop(): void;
}

/** Ask the host to call taskConfigs again and replace the tasks if they changed. */
export function requestTaskReconfiguration(): void;
/** Put the connector in FAILED with `message`. */
export function raiseError(message: unknown): void;
