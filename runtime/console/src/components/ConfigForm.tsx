// The form generated from a plugin's config definition, validated live.

import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, describeError, get, plugin as pluginPath } from '../lib/api';
import {
  type ExtraRow,
  type FieldModel,
  OWN_INPUT_KEYS,
  buildFormModel,
  defsByName,
  formToConfig,
  isSecretKey,
  recommendedValues,
  summaryText,
  validationView,
  withDynamicDefs,
  type ValidationView,
} from '../lib/configForm';
import { useDebounced } from '../lib/hooks';
import type { ConfigInfos, ConfigKeyInfo } from '../lib/types';
import { Message } from './ui';

export const VALIDATE_DEBOUNCE_MS = 400;

export interface ConfigFormProps {
  plugin: string;
  /** The connector's name (sent with every validation). */
  name: string;
  /** Initial values of defined keys (no secrets). */
  initialValues?: Record<string, string>;
  /** Initial keys the definition does not list. */
  initialExtras?: ExtraRow[];
  /** Secret values of the existing config: sent, never shown. */
  kept?: Record<string, string>;
  /** Version whose definition to show (when the form does not pick one). */
  version?: string | null;
  submitLabel: string;
  submitTestid: string;
  /** Inputs shown at the top of the form (the new-connector page's plugin and name). */
  header?: ComponentChildren;
  /** Validation messages for the name (shown by the header). */
  onNameErrors?: (errors: string[]) => void;
  /** Sends the config; resolves to an error message, or null when done. */
  onSubmit: (config: Record<string, string>) => Promise<string | null>;
  /** Whether the form can be submitted at all (a name is needed, say); the reason otherwise. */
  blockedReason?: string | null;
  cancel?: ComponentChildren;
  /** The groups' heading level: 2 on a page of its own, 3 inside a section. */
  headingLevel?: 2 | 3;
}

function fieldId(key: string) {
  return `f-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export function ConfigForm(props: ConfigFormProps) {
  const { plugin } = props;
  const [values, setValues] = useState<Record<string, string>>(props.initialValues ?? {});
  const [extras, setExtras] = useState<ExtraRow[]>(props.initialExtras ?? []);
  const [pending, setPending] = useState<ExtraRow>({ key: '', value: '' });
  // The definition with the plugin it is of: after a change of plugin the
  // old plugin's fields go in the same render, not an effect later.
  const [defsOf, setDefsOf] = useState<{ plugin: string; defs: ConfigKeyInfo[] } | null>(null);
  const defs = defsOf && defsOf.plugin === plugin ? defsOf.defs : null;
  const [defsError, setDefsError] = useState<string | null>(null);
  const [validation, setValidation] = useState<{ view: ValidationView; recommended: Record<string, string[]>; infos: ConfigInfos } | null>(null);
  const [validating, setValidating] = useState(false);
  const [validateError, setValidateError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const [submitError, setSubmitError] = useState<string | null>(null);
  const kept = props.kept ?? {};
  const H = props.headingLevel === 2 ? 'h2' : 'h3';

  const version = values['connector.plugin.version'] || props.version || null;

  // Another plugin: start over (its keys are not this one's).
  const firstPlugin = useRef(plugin);
  useEffect(() => {
    if (firstPlugin.current === plugin) return;
    firstPlugin.current = plugin;
    setValues({});
    setExtras([]);
    setValidation(null);
    setSubmitError(null);
  }, [plugin]);

  // The plugin's definition (again when the plugin or the version changes).
  useEffect(() => {
    let stale = false;
    setDefsError(null);
    const q = version ? `?version=${encodeURIComponent(version)}` : '';
    get<ConfigKeyInfo[]>(pluginPath(plugin, `/config${q}`), { quiet: true })
      .then((d) => {
        if (!stale) setDefsOf({ plugin, defs: d });
      })
      .catch((e) => {
        if (!stale) setDefsError(describeError(e));
      });
    return () => {
      stale = true;
    };
  }, [plugin, version]);

  const allExtras = pending.key.trim() ? [...extras, pending] : extras;
  const config = formToConfig({ name: props.name, plugin }, values, allExtras, kept);
  const configJson = JSON.stringify(config);
  const debounced = useDebounced(configJson, VALIDATE_DEBOUNCE_MS);

  // Live validation of what the form holds, debounced; a late answer to an older config is dropped.
  const seq = useRef(0);
  useEffect(() => {
    const body = JSON.parse(debounced) as Record<string, string>;
    // Right after a change of plugin the debounced config is still the old plugin's.
    if (body['connector.class'] !== plugin) return;
    const mine = ++seq.current;
    setValidating(true);
    api<ConfigInfos>('PUT', pluginPath(plugin, '/config/validate'), { body, quiet: true })
      .then((infos) => {
        if (mine !== seq.current) return;
        const view = validationView(infos);
        setValidation({ view, recommended: recommendedValues(infos), infos });
        setValidateError(null);
        props.onNameErrors?.(view.byKey.name ?? []);
      })
      .catch((e) => {
        if (mine !== seq.current) return;
        setValidateError(`Could not validate: ${describeError(e)}`);
      })
      .finally(() => {
        if (mine === seq.current) setValidating(false);
      });
  }, [debounced, plugin]);

  // The plugin's keys, plus those the last validation added (a transform's settings).
  const extraKeysJson = JSON.stringify(extras.map((x) => x.key));
  const merged = useMemo(
    () => (defs ? withDynamicDefs(defs, validation?.infos ?? null, new Set(extras.map((x) => x.key))) : null),
    [defs, validation?.infos, extraKeysJson],
  );
  const byName = useMemo(() => (merged ? defsByName(merged) : null), [merged]);
  const groups = useMemo(
    () => (merged ? buildFormModel(merged, validation?.recommended ?? {}, plugin, { ...props.initialValues }) : []),
    [merged, validation?.recommended, plugin],
  );

  const set = (key: string, value: string) => setValues((v) => ({ ...v, [key]: value }));
  const errors: Record<string, string[]> = validation?.view.byKey ?? {};
  const fieldKeys = new Set(groups.flatMap((g) => g.fields.map((f) => f.key)));
  // Values of keys no field shows any more (a transform's setting after `transforms` was cleared).
  const orphans = merged && validation ? Object.keys(values).filter((k) => !fieldKeys.has(k) && !OWN_INPUT_KEYS.has(k) && values[k] !== '') : [];
  const otherErrors = Object.entries(errors).filter(
    ([k]) => !fieldKeys.has(k) && !OWN_INPUT_KEYS.has(k) && !orphans.includes(k) && !extras.some((x) => x.key === k),
  );

  const addExtra = () => {
    const key = pending.key.trim();
    if (!key) return;
    if (byName?.has(key) && !isSecretKey(key, byName)) {
      set(key, pending.value);
    } else {
      setExtras((xs) => [...xs.filter((x) => x.key !== key), { key, value: pending.value }]);
    }
    setPending({ key: '', value: '' });
  };

  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if (submitting) return;
    if (props.blockedReason) {
      setSubmitError(props.blockedReason);
      return;
    }
    setSubmitting(true);
    setSubmitError(null);
    try {
      const err = await props.onSubmit(config);
      setSubmitError(err);
      if (!err && pending.key.trim()) addExtra();
    } catch (ex) {
      setSubmitError(describeError(ex));
    } finally {
      setSubmitting(false);
    }
  };

  let summary: string;
  let summaryKind: 'info' | 'ok' | 'error' = 'info';
  if (validateError) {
    summary = validateError;
    summaryKind = 'error';
  } else if (!validation) summary = 'Validating…';
  else {
    summary = summaryText(validation.view.count);
    summaryKind = validation.view.count === 0 ? 'ok' : 'error';
  }

  return (
    <form class="config-form" data-testid="connector-form" onSubmit={onSubmit} noValidate>
      {props.header}
      <div class="form-status">
        <p class={`summary summary-${summaryKind}`} data-testid="validation-summary" role="status" aria-live="polite">
          {summary}
          {validating && validation ? <span class="muted small"> (checking…)</span> : null}
        </p>
      </div>
      {defsError && <Message kind="error" text={`Could not load the definition of ${plugin}: ${defsError}`} />}
      {!defs && !defsError && <FormSkeleton />}
      {groups.length > 0 && (
        <nav class="group-index" aria-label="Groups of settings">
          {groups.map((g) => (
            <a key={g.name} href={`#${fieldId('group-' + g.name)}`}>
              {g.name}
            </a>
          ))}
        </nav>
      )}
      {groups.map((g, gi) => (
        <details class="group" key={g.name} open id={fieldId('group-' + g.name)}>
          <summary>
            <H class="group-title">{g.name}</H>
            <span class="muted small">
              {g.fields.length} settings
              {countErrors(g.fields, errors) > 0 && <span class="err-count"> · {countErrors(g.fields, errors)} with errors</span>}
            </span>
          </summary>
          <div class={`fields ${gi === 0 ? 'fields-own' : ''}`}>
            {g.fields.map((f) => (
              <Field
                key={f.key}
                field={f}
                value={values[f.key]}
                keptSecret={f.key in kept}
                errors={errors[f.key] ?? []}
                onChange={(v) => set(f.key, v)}
              />
            ))}
          </div>
        </details>
      ))}
      <fieldset class="group extras">
        <legend>
          <H class="group-title">Other keys</H>
        </legend>
        <p class="muted small">Keys the definition does not list (client overrides, transform settings, …).</p>
        {extras.length + orphans.length > 0 && (
          <table class="table extras-table">
            <tbody>
              {orphans.map((k) => (
                <tr key={`orphan-${k}`}>
                  <th scope="row" class="mono">
                    <label for={`orphan-${fieldId(k)}`}>{k}</label>
                  </th>
                  <td>
                    <input
                      id={`orphan-${fieldId(k)}`}
                      type={(isSecretKey(k, byName) ? 'password' : 'text') as 'text'}
                      data-testid={`extra-value-${k}`}
                      value={values[k]}
                      onInput={(e) => set(k, (e.target as HTMLInputElement).value)}
                    />
                    <p class="field-error" data-testid={`error-${k}`}>
                      {(errors[k] ?? []).join('; ')}
                    </p>
                  </td>
                  <td class="col-action">
                    <button
                      type="button"
                      class="btn btn-small"
                      onClick={() =>
                        setValues((v) => {
                          const { [k]: _gone, ...rest } = v;
                          return rest;
                        })
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
              {extras.map((x, i) => {
                const secret = isSecretKey(x.key, byName);
                const hiddenExisting = x.key in kept;
                return (
                  <tr key={x.key}>
                    <th scope="row" class="mono">
                      <label for={`extra-${i}`}>{x.key}</label>
                    </th>
                    <td>
                      <input
                        id={`extra-${i}`}
                        type={(secret ? 'password' : 'text') as 'text'}
                        data-testid={`extra-value-${x.key}`}
                        value={x.value}
                        placeholder={hiddenExisting ? 'unchanged (hidden)' : ''}
                        onInput={(e) => {
                          const v = (e.target as HTMLInputElement).value;
                          setExtras((xs) => xs.map((y, j) => (j === i ? { ...y, value: v } : y)));
                        }}
                      />
                      <p class="field-error" data-testid={`error-${x.key}`}>
                        {(errors[x.key] ?? []).join('; ')}
                      </p>
                    </td>
                    <td class="col-action">
                      <button type="button" class="btn btn-small" onClick={() => setExtras((xs) => xs.filter((_, j) => j !== i))}>
                        Remove
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        <div class="extra-add">
          <label>
            Key
            <input
              type="text"
              data-testid="extra-key"
              value={pending.key}
              placeholder="e.g. grants.fs.read"
              onInput={(e) => setPending((p) => ({ ...p, key: (e.target as HTMLInputElement).value }))}
            />
          </label>
          <label>
            Value
            <input
              type={(pending.key && isSecretKey(pending.key.trim(), byName) ? 'password' : 'text') as 'text'}
              data-testid="extra-value"
              value={pending.value}
              onInput={(e) => setPending((p) => ({ ...p, value: (e.target as HTMLInputElement).value }))}
            />
          </label>
          <button type="button" class="btn" data-testid="extra-add" onClick={addExtra} disabled={!pending.key.trim()}>
            Add key
          </button>
        </div>
      </fieldset>
      {otherErrors.length > 0 && (
        <ul class="other-errors" aria-label="Other problems">
          {otherErrors.map(([k, msgs]) => (
            <li key={k}>
              <code>{k}</code>: {msgs.join('; ')}
            </li>
          ))}
        </ul>
      )}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" data-testid={props.submitTestid} aria-disabled={submitting}>
          {submitting ? 'Working…' : props.submitLabel}
        </button>
        {props.cancel}
        <p class="summary-inline muted small">{validation ? summary : ''}</p>
      </div>
      <Message kind="error" text={submitError} testid="form-message" />
    </form>
  );
}

/** Kafka Connect's documentation strings hold a little HTML (`<code>`, `<br/>`): shown as text without it. */
function plainDoc(doc: string): string {
  return doc.replace(/<br\s*\/?>/gi, ' ').replace(/<\/?[a-z][^>]*>/gi, '');
}

function countErrors(fields: FieldModel[], errors: Record<string, string[]>) {
  return fields.filter((f) => (errors[f.key] ?? []).length > 0).length;
}

function FormSkeleton() {
  return (
    <div class="fields" aria-hidden="true">
      {Array.from({ length: 6 }, (_, i) => (
        <div class="field" key={i}>
          <span class="skeleton skeleton-label" />
          <span class="skeleton skeleton-input" />
        </div>
      ))}
    </div>
  );
}

function Field({
  field: f,
  value,
  keptSecret,
  errors,
  onChange,
}: {
  field: FieldModel;
  value: string | undefined;
  keptSecret: boolean;
  errors: string[];
  onChange: (v: string) => void;
}) {
  const id = fieldId(f.key);
  const describedBy = `${id}-doc ${id}-err`;
  const common = {
    id,
    name: f.key,
    'data-testid': `field-${f.key}`,
    'aria-describedby': describedBy,
    'aria-invalid': errors.length > 0 ? true : undefined,
  };
  let input;
  switch (f.kind) {
    case 'checkbox': {
      const checked = (value ?? f.defaultValue ?? 'false').toLowerCase() === 'true';
      input = (
        <input {...common} type="checkbox" checked={checked} onChange={(e) => onChange(String((e.target as HTMLInputElement).checked))} />
      );
      break;
    }
    case 'select': {
      const options = f.options ?? [];
      const v = value ?? '';
      input = (
        <select {...common} value={v} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
          <option value="">{f.defaultValue ? `(default: ${f.defaultValue})` : '(not set)'}</option>
          {v && !options.includes(v) && <option value={v}>{v}</option>}
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'password':
      input = (
        <input
          {...common}
          type="password"
          autoComplete="new-password"
          value={value ?? ''}
          placeholder={keptSecret ? 'unchanged (hidden)' : ''}
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      );
      break;
    case 'number':
      // A text input that brings up a numeric keyboard: the worker's validation
      // names what is wrong with the text ("expected a double"), which a
      // number input would hide by dropping it, and a config provider's
      // `${env:...}` placeholder stays possible.
      input = (
        <input
          {...common}
          type="text"
          inputMode={f.type === 'DOUBLE' ? 'decimal' : 'numeric'}
          data-kind="number"
          value={value ?? ''}
          placeholder={f.defaultValue ?? ''}
          required={f.required}
          spellcheck={false}
          autoComplete="off"
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      );
      break;
    default:
      input = (
        <input
          {...common}
          type="text"
          value={value ?? ''}
          placeholder={f.defaultValue ?? (f.type === 'LIST' ? 'comma-separated' : '')}
          required={f.required}
          spellcheck={false}
          autoComplete="off"
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      );
  }
  return (
    <div class={`field field-${f.kind} ${errors.length ? 'has-error' : ''}`}>
      <label for={id}>
        <span class="field-key">{f.key}</span>
        {f.required && <span class="req" aria-label="required"> *</span>}
        <span class="field-type">{f.type}</span>
      </label>
      <div class="field-input">
        {input}
        {f.kind === 'checkbox' && <span class="muted small">{value === undefined ? `default: ${f.defaultValue ?? 'false'}` : ''}</span>}
      </div>
      <p class="field-doc" id={`${id}-doc`} title={plainDoc(f.documentation)}>
        {f.label !== f.key ? <strong>{f.label}. </strong> : null}
        {plainDoc(f.documentation)}
      </p>
      <p class="field-error" id={`${id}-err`} data-testid={`error-${f.key}`}>
        {errors.join('; ')}
      </p>
    </div>
  );
}
