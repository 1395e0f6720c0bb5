// copycat-sdk/dynamic: what a dynamic connector's running instance may ask
// of the host (`copycat:dynamic/context@0.1.0`).
//
// A source or sink is dynamic when its spec has a `dynamic` member and the
// module exports `instance` beside the connector:
//
//     import { defineSource } from 'copycat-sdk/source';
//     import { requestTaskReconfiguration } from 'copycat-sdk/dynamic';
//
//     let watched;
//     export const { connector, sourceTask, instance } = defineSource({
//       ...,
//       dynamic: {
//         start(config) { watched = config; return true; },   // false: nothing to watch
//         taskConfigs(maxTasks) { return [watched]; },
//         monitor() { if (changed()) requestTaskReconfiguration(); },  // every connector.monitor.interval.ms
//         stop() {},
//       },
//     });
//
// The host keeps one instance per connector (in a component instance of
// its own): `start(config)` then `taskConfigs(maxTasks)`, `monitor()` every
// `connector.monitor.interval.ms`, `taskConfigs` again after each
// `requestTaskReconfiguration()`, and `stop()`. An error thrown by `start`,
// `taskConfigs` or (other than a RetriableError) `monitor` fails the
// connector; its tasks go on with the configs they have.
// guest-sdk/js/tools/componentize.mjs builds a module that exports
// `instance` against the `-dynamic` world, which imports the context.

import {
  requestTaskReconfiguration as hostRequestTaskReconfiguration,
  raiseError as hostRaiseError,
} from 'copycat:dynamic/context@0.1.0';

/**
 * Ask the host to call `taskConfigs` again and, if the configs changed,
 * replace the connector's tasks. Cheap: the host acts once the current call
 * returns, once however often it was called.
 */
export function requestTaskReconfiguration() {
  hostRequestTaskReconfiguration();
}

/**
 * Put the connector in FAILED with `message` (the host stops the instance
 * after the current call returns; the tasks go on).
 * @param {unknown} message
 */
export function raiseError(message) {
  hostRaiseError(String(message));
}
