// Shared plumbing for defineSource / defineSink; not part of the public API.

import { Config, ConfigError, log, toConnectorError } from './index.js';

/**
 * Call `fn`, turning anything it throws into a ConnectorError, which the
 * generated bindings return as the `err` case of the WIT result.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
export function guard(fn) {
  try {
    return fn();
  } catch (e) {
    throw toConnectorError(e);
  }
}

/**
 * Task configs as the WIT `list<config>`; each may be a Config, pairs or a plain object.
 * @param {unknown} configs
 * @returns {[string, string][][]}
 */
export function toConfigList(configs) {
  if (!Array.isArray(configs)) throw new TypeError('taskConfigs must return an array of configs');
  return configs.map((c) => (c instanceof Config ? c : new Config(c)).toPairs());
}

/**
 * `validate`'s result in WIT shape. The WIT function cannot fail, so an
 * exception becomes a problem on the config as a whole instead of a trap.
 * @param {(config: Config) => unknown} validate
 * @param {[string, string][]} pairs
 */
export function runValidate(validate, pairs) {
  try {
    const problems = validate ? validate(new Config(pairs)) : [];
    return (problems ?? []).map((p) => ({ key: String(p.key ?? ''), message: String(p.message ?? p) }));
  } catch (e) {
    const error = e instanceof ConfigError ? e : toConnectorError(e);
    return [{ key: error.key ?? '', message: error.message }];
  }
}

/**
 * Call a task's `stop` (which cannot fail in WIT): errors are logged.
 * @param {{ stop?: () => void } | undefined} task
 */
export function runStop(task) {
  try {
    task?.stop?.();
  } catch (e) {
    log.warn(`stop failed: ${toConnectorError(e).message}`);
  }
}
