// Shared plumbing for defineSource / defineSink / defineTransform; not part
// of the public API.

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
 * @param {((config: Config) => unknown) | undefined} validate
 * @param {[string, string][]} pairs
 */
export function runValidate(validate, pairs) {
  try {
    const problems = validate ? validate(new Config(pairs)) : [];
    return (problems ?? []).map((p) => ({ key: String(p.key ?? ''), message: String(p.message ?? p) }));
  } catch (e) {
    const error = e instanceof ConfigError ? e : toConnectorError(e);
    return [{ key: /** @type {any} */ (error).key ?? '', message: error.message }];
  }
}

/**
 * Call a `stop` (which cannot fail in WIT): errors are logged.
 * @param {{ stop?: () => void } | undefined} target
 */
export function runStop(target) {
  try {
    target?.stop?.();
  } catch (e) {
    log.warn(`stop failed: ${toConnectorError(e).message}`);
  }
}

/**
 * The `copycat:dynamic/instance` export for a connector spec's `dynamic`
 * member (see 'copycat-sdk/dynamic'), or a getter that fails the build
 * when a connector without one exports `instance`.
 * @param {any} target the object returned by defineSource / defineSink
 * @param {any} spec
 * @param {string} define 'defineSource' or 'defineSink'
 */
export function attachInstance(target, spec, define) {
  const dynamic = spec.dynamic;
  if (dynamic === undefined || dynamic === null) {
    Object.defineProperty(target, 'instance', {
      enumerable: false,
      get() {
        throw new TypeError(`${define}: this connector has no \`dynamic\` member, so it cannot export \`instance\``);
      },
    });
    return target;
  }
  for (const m of ['start', 'taskConfigs']) {
    if (typeof dynamic[m] !== 'function') throw new TypeError(`${define}: \`dynamic.${m}\` is required`);
  }
  target.instance = {
    start: (pairs) => guard(() => Boolean(dynamic.start(new Config(pairs)))),
    taskConfigs: (maxTasks) => guard(() => toConfigList(dynamic.taskConfigs(maxTasks))),
    monitor: () =>
      guard(() => {
        dynamic.monitor?.();
      }),
    stop: () => runStop(dynamic),
  };
  return target;
}
