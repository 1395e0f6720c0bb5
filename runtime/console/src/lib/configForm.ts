// A plugin's config definition (`GET /connector-plugins/{p}/config`) as a
// form, the form's values as a connector config, and the hiding of secrets.

import type { ConfigInfos, ConfigKeyInfo } from './types';

export type FieldKind = 'text' | 'number' | 'password' | 'checkbox' | 'select';

export interface FieldModel {
  key: string;
  label: string;
  type: string;
  kind: FieldKind;
  required: boolean;
  defaultValue: string | null;
  documentation: string;
  importance: string;
  /** For `select`: the values offered (an empty "default" choice is added by the form). */
  options?: string[];
}

export interface GroupModel {
  name: string;
  fields: FieldModel[];
}

/** Keys the form does not show: the name and the plugin have inputs of their own. */
export const OWN_INPUT_KEYS = new Set(['name', 'connector.class']);

const NUMERIC = new Set(['INT', 'LONG', 'SHORT', 'DOUBLE']);

export function fieldKind(def: ConfigKeyInfo, options: string[] | undefined, currentValue?: string): FieldKind {
  const t = def.type.toUpperCase();
  if (t === 'PASSWORD') return 'password';
  if (t === 'BOOLEAN') return 'checkbox';
  if (options && options.length > 0) return 'select';
  // A value a number input cannot hold (a config provider's `${file:...}`) keeps a text input.
  if (NUMERIC.has(t)) {
    if (currentValue !== undefined && currentValue !== '' && !Number.isFinite(Number(currentValue))) return 'text';
    return 'number';
  }
  return 'text';
}

/**
 * The form's groups: the plugin's own keys first (they declare no group),
 * then the framework's and Copycat's groups in the order the definition
 * lists them, each sorted by `order_in_group`. `recommended` comes from a
 * validation answer (converter classes, versions, enumerations).
 */
export function buildFormModel(
  defs: ConfigKeyInfo[],
  recommended: Record<string, string[]> = {},
  pluginName = 'Connector',
  current: Record<string, string> = {},
): GroupModel[] {
  const groups = new Map<string, FieldModel[]>();
  const own = `${pluginName} settings`;
  groups.set(own, []);
  const order = new Map<string, number>();
  defs.forEach((d, i) => order.set(d.name, i));
  for (const def of defs) {
    if (OWN_INPUT_KEYS.has(def.name)) continue;
    const groupName = def.group ?? own;
    if (!groups.has(groupName)) groups.set(groupName, []);
    const options = recommended[def.name];
    const kind = fieldKind(def, options, current[def.name]);
    const t = def.type.toUpperCase();
    groups.get(groupName)!.push({
      key: def.name,
      label: def.display_name && def.display_name !== def.name ? def.display_name : def.name,
      type: t,
      kind,
      required: def.required,
      defaultValue: def.default_value,
      documentation: def.documentation ?? '',
      importance: def.importance,
      options: kind === 'select' ? options : undefined,
    });
  }
  const out: GroupModel[] = [];
  for (const [name, fields] of groups) {
    if (fields.length === 0) continue;
    fields.sort((a, b) => {
      const da = defs[order.get(a.key)!];
      const db = defs[order.get(b.key)!];
      if (da.order_in_group !== db.order_in_group && da.order_in_group >= 0 && db.order_in_group >= 0) {
        return da.order_in_group - db.order_in_group;
      }
      return order.get(a.key)! - order.get(b.key)!;
    });
    out.push({ name, fields });
  }
  return out;
}

/** `recommended_values` per key out of a validation answer. */
export function recommendedValues(infos: ConfigInfos | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!infos) return out;
  for (const c of infos.configs) {
    if (c.value.recommended_values && c.value.recommended_values.length > 0) {
      out[c.value.name] = c.value.recommended_values;
    }
  }
  return out;
}

export interface ValidationView {
  /** Messages per key (every key the answer names). */
  byKey: Record<string, string[]>;
  count: number;
}

export function validationView(infos: ConfigInfos): ValidationView {
  const byKey: Record<string, string[]> = {};
  let count = 0;
  for (const c of infos.configs) {
    if (c.value.errors.length > 0) {
      byKey[c.value.name] = (byKey[c.value.name] ?? []).concat(c.value.errors);
      count += c.value.errors.length;
    }
  }
  return { byKey, count: Math.max(count, infos.error_count) };
}

export function summaryText(count: number): string {
  if (count === 0) return 'Valid';
  return count === 1 ? '1 error' : `${count} errors`;
}

/** An extra key/value row (a key the definition does not list). */
export interface ExtraRow {
  key: string;
  value: string;
}

/**
 * The config to send: the name and plugin, then every value the form
 * holds that is not empty, then the extra rows. `kept` holds secret values
 * of an existing config that the form does not show (sent unchanged unless
 * the user typed a new one).
 */
export function formToConfig(
  base: { name: string; plugin: string },
  values: Record<string, string>,
  extras: ExtraRow[] = [],
  kept: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  if (base.name) out.name = base.name;
  out['connector.class'] = base.plugin;
  for (const [k, v] of Object.entries(kept)) out[k] = v;
  for (const [k, v] of Object.entries(values)) {
    if (OWN_INPUT_KEYS.has(k)) continue;
    if (v === '' || v === undefined || v === null) continue;
    out[k] = v;
  }
  for (const row of extras) {
    const k = row.key.trim();
    if (!k || OWN_INPUT_KEYS.has(k)) continue;
    out[k] = row.value;
  }
  return out;
}

const SECRET_NAME = /(password|passwd|secret|credential|token|jaas\.config|private\.key|api\.key|apikey)/i;

/**
 * Whether a key's value must never be shown: type PASSWORD in the
 * plugin's definition, or, for keys the definition does not list (client
 * overrides such as `producer.override.sasl.jaas.config`), a name that
 * says it holds a secret.
 */
export function isSecretKey(key: string, defs: Map<string, ConfigKeyInfo> | null): boolean {
  const def = defs?.get(key);
  if (def) return def.type.toUpperCase() === 'PASSWORD';
  return SECRET_NAME.test(key);
}

export const HIDDEN_TEXT = '••••••';

/** A value that is only config provider references (`${provider:path:key}`), nothing else. */
export function isReference(value: string | undefined): boolean {
  return !!value && /^(\$\{[^}]+\})+$/.test(value.trim());
}

export interface ConfigRow {
  key: string;
  /** The value to show: the real one, or HIDDEN_TEXT for a secret. */
  display: string;
  hidden: boolean;
}

/** A config for display, secrets replaced, sorted with name and class first. */
export function maskConfig(config: Record<string, string>, defs: Map<string, ConfigKeyInfo> | null): ConfigRow[] {
  const first = ['name', 'connector.class'];
  const keys = Object.keys(config).sort((a, b) => {
    const ia = first.indexOf(a);
    const ib = first.indexOf(b);
    if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    return a.localeCompare(b);
  });
  return keys.map((key) => {
    // A config provider's reference (`${file:/etc/secrets:pw}`) is no secret: it shows as written.
    const hidden = isSecretKey(key, defs) && !isReference(config[key]);
    return { key, display: hidden ? HIDDEN_TEXT : config[key], hidden };
  });
}

const DYNAMIC_PREFIX = /^(transforms|predicates)\.[^.]+\./;

/**
 * Splits an existing config into what the edit form shows and what it
 * keeps out of the DOM: `values` for defined non-secret keys, `extras` for
 * undefined non-secret keys, `kept` for every secret.
 */
export function splitForEdit(
  config: Record<string, string>,
  defs: Map<string, ConfigKeyInfo>,
): { values: Record<string, string>; extras: ExtraRow[]; kept: Record<string, string> } {
  const values: Record<string, string> = {};
  const extras: ExtraRow[] = [];
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (OWN_INPUT_KEYS.has(k)) continue;
    if (isSecretKey(k, defs)) kept[k] = v;
    // A transform's or predicate's settings: the validation answer defines them (withDynamicDefs).
    else if (defs.has(k) || DYNAMIC_PREFIX.test(k)) values[k] = v;
    else extras.push({ key: k, value: v });
  }
  return { values, extras, kept };
}

export function defsByName(defs: ConfigKeyInfo[]): Map<string, ConfigKeyInfo> {
  return new Map(defs.map((d) => [d.name, d]));
}

/** What the worker shows instead of a secret's value (`GET /connectors/{c}/config`). */
export const SERVER_HIDDEN = '[hidden]';

/**
 * The PATCH body (`PATCH /connectors/{c}/config`: merge, `null` removes a
 * key) that turns `original` into `next`. The worker answers secrets as
 * `[hidden]`, so a replacement (PUT) of a config read back from it would
 * overwrite every secret with that text; a patch names only what changed,
 * and a secret left alone keeps its value on the worker.
 */
export function configPatch(original: Record<string, string>, next: Record<string, string>): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(next)) {
    if (original[k] !== v) patch[k] = v;
  }
  for (const k of Object.keys(original)) {
    if (!(k in next)) patch[k] = null;
  }
  return patch;
}

/**
 * The definition with the keys a validation answer adds (a config naming
 * `transforms=a` gets the `Transforms: a` group: `transforms.a.type` and
 * the transform's settings; likewise predicates). Each added group goes
 * right after the last group of its family (`Transforms`, `Predicates`),
 * or at the end. Keys in `skip` (shown as free rows) are left out.
 */
export function withDynamicDefs(defs: ConfigKeyInfo[], infos: ConfigInfos | null, skip: Set<string> = new Set()): ConfigKeyInfo[] {
  if (!infos) return defs;
  const known = new Set(defs.map((d) => d.name));
  const added = infos.configs
    .map((c) => c.definition)
    .filter((d): d is ConfigKeyInfo => !!d && !known.has(d.name) && !skip.has(d.name));
  if (added.length === 0) return defs;
  const out = [...defs];
  const family = (g: string | null) => (g ?? '').split(':')[0];
  for (const d of added) {
    let at = -1;
    for (let i = out.length - 1; i >= 0; i--) {
      if (out[i].group !== null && family(out[i].group) === family(d.group)) {
        at = i;
        break;
      }
    }
    if (at < 0) out.push(d);
    else out.splice(at + 1, 0, d);
  }
  return out;
}
