import { describe, expect, it } from 'vitest';
import {
  HIDDEN_TEXT,
  buildFormModel,
  configPatch,
  defsByName,
  fieldKind,
  formToConfig,
  isSecretKey,
  maskConfig,
  recommendedValues,
  splitForEdit,
  summaryText,
  withDynamicDefs,
  validationView,
} from './configForm';
import type { ConfigInfos, ConfigKeyInfo } from './types';

function def(name: string, type: string, extra: Partial<ConfigKeyInfo> = {}): ConfigKeyInfo {
  return {
    name,
    type,
    required: false,
    default_value: null,
    importance: 'MEDIUM',
    documentation: `doc of ${name}`,
    group: null,
    order_in_group: -1,
    width: 'NONE',
    display_name: name,
    dependents: [],
    ...extra,
  };
}

const DEFS: ConfigKeyInfo[] = [
  def('topic', 'STRING', { required: true }),
  def('rate', 'DOUBLE', { default_value: '0' }),
  def('streams', 'INT', { default_value: '1' }),
  def('db.password', 'PASSWORD'),
  def('name', 'STRING', { group: 'Common', order_in_group: 1, required: true }),
  def('connector.class', 'STRING', { group: 'Common', order_in_group: 2, required: true }),
  def('tasks.max', 'INT', { group: 'Common', order_in_group: 4, default_value: '1' }),
  def('connector.plugin.version', 'STRING', { group: 'Common', order_in_group: 3 }),
  def('errors.log.enable', 'BOOLEAN', { group: 'Error Handling', order_in_group: 4, default_value: 'false' }),
  def('errors.tolerance', 'STRING', { group: 'Error Handling', order_in_group: 3, default_value: 'none' }),
  def('grants.fs.read', 'LIST', { group: 'Copycat Sandbox', order_in_group: 1 }),
];

describe('buildFormModel', () => {
  const model = buildFormModel(DEFS, { 'errors.tolerance': ['none', 'all'], 'errors.log.enable': ['true', 'false'] }, 'datagen');

  it('puts the plugin keys first, then groups in definition order, each by order_in_group', () => {
    expect(model.map((g) => g.name)).toEqual(['datagen settings', 'Common', 'Error Handling', 'Copycat Sandbox']);
    expect(model[1].fields.map((f) => f.key)).toEqual(['connector.plugin.version', 'tasks.max']);
    expect(model[2].fields.map((f) => f.key)).toEqual(['errors.tolerance', 'errors.log.enable']);
  });

  it('leaves out the name and the plugin, which have inputs of their own', () => {
    const keys = model.flatMap((g) => g.fields.map((f) => f.key));
    expect(keys).not.toContain('name');
    expect(keys).not.toContain('connector.class');
    expect(keys).toHaveLength(DEFS.length - 2);
  });

  it('picks an input per type', () => {
    const f = Object.fromEntries(model.flatMap((g) => g.fields).map((x) => [x.key, x]));
    expect(f.topic.kind).toBe('text');
    expect(f.topic.required).toBe(true);
    expect(f.rate.kind).toBe('number');
    expect(f.rate.type).toBe('DOUBLE');
    expect(f.streams.kind).toBe('number');
    expect(f['db.password'].kind).toBe('password');
    expect(f['errors.log.enable'].kind).toBe('checkbox');
    expect(f['errors.tolerance'].kind).toBe('select');
    expect(f['errors.tolerance'].options).toEqual(['none', 'all']);
    expect(f['grants.fs.read'].kind).toBe('text');
  });

  it('keeps a text input for a numeric key holding a placeholder', () => {
    expect(fieldKind(def('n', 'INT'), undefined, '${env:N}')).toBe('text');
    expect(fieldKind(def('n', 'INT'), undefined, '12')).toBe('number');
  });
});

describe('validation', () => {
  const infos: ConfigInfos = {
    name: 'datagen',
    error_count: 2,
    groups: [],
    configs: [
      { definition: DEFS[0], value: { name: 'topic', value: null, recommended_values: [], errors: ['missing'], visible: true } },
      { definition: DEFS[1], value: { name: 'rate', value: 'x', recommended_values: [], errors: ['not a double'], visible: true } },
      { definition: null, value: { name: 'v', value: '1', recommended_values: ['1', '2'], errors: [], visible: true } },
    ],
  };

  it('groups messages by key and counts them', () => {
    const v = validationView(infos);
    expect(v.byKey).toEqual({ topic: ['missing'], rate: ['not a double'] });
    expect(v.count).toBe(2);
    expect(summaryText(v.count)).toBe('2 errors');
    expect(summaryText(1)).toBe('1 error');
    expect(summaryText(0)).toBe('Valid');
  });

  it('collects recommended values', () => {
    expect(recommendedValues(infos)).toEqual({ v: ['1', '2'] });
    expect(recommendedValues(null)).toEqual({});
  });
});

describe('formToConfig', () => {
  it('sends the name, the plugin, non-empty values, extras and kept secrets', () => {
    const cfg = formToConfig(
      { name: 'gen', plugin: 'datagen' },
      { topic: 't', rate: '', 'tasks.max': '2', name: 'ignored' },
      [{ key: 'grants.fs.read', value: '/tmp' }, { key: ' ', value: 'x' }],
      { 'db.password': 's3cret' },
    );
    expect(cfg).toEqual({
      name: 'gen',
      'connector.class': 'datagen',
      topic: 't',
      'tasks.max': '2',
      'grants.fs.read': '/tmp',
      'db.password': 's3cret',
    });
  });

  it('lets a typed password replace the kept one', () => {
    const cfg = formToConfig({ name: 'c', plugin: 'p' }, { 'db.password': 'new' }, [], { 'db.password': 'old' });
    expect(cfg['db.password']).toBe('new');
  });
});

describe('secrets', () => {
  const defs = defsByName(DEFS);

  it('hides PASSWORD keys and secret-looking keys the definition does not list', () => {
    expect(isSecretKey('db.password', defs)).toBe(true);
    expect(isSecretKey('topic', defs)).toBe(false);
    expect(isSecretKey('producer.override.sasl.jaas.config', defs)).toBe(true);
    expect(isSecretKey('consumer.override.ssl.key.password', defs)).toBe(true);
    expect(isSecretKey('transforms.x.field', defs)).toBe(false);
  });

  it('never returns a secret value for display', () => {
    const rows = maskConfig(
      { topic: 't', 'db.password': 's3cret', name: 'c', 'connector.class': 'p', 'producer.override.sasl.jaas.config': 'jaas' },
      defs,
    );
    expect(rows.map((r) => r.key)).toEqual(['name', 'connector.class', 'db.password', 'producer.override.sasl.jaas.config', 'topic']);
    expect(rows.find((r) => r.key === 'db.password')).toEqual({ key: 'db.password', display: HIDDEN_TEXT, hidden: true });
    expect(JSON.stringify(rows)).not.toContain('s3cret');
    expect(JSON.stringify(rows)).not.toContain('jaas"');
  });

  it("shows a config provider's reference as written", () => {
    const rows = maskConfig({ 'db.password': '${file:/etc/copycat/secrets.properties:pw}', 'my.token': 'abc${env:X}' }, defs);
    expect(rows.find((r) => r.key === 'db.password')).toEqual({
      key: 'db.password',
      display: '${file:/etc/copycat/secrets.properties:pw}',
      hidden: false,
    });
    expect(rows.find((r) => r.key === 'my.token')!.hidden).toBe(true);
  });

  it('keeps secrets out of the edit form', () => {
    const split = splitForEdit(
      { name: 'c', 'connector.class': 'p', topic: 't', 'db.password': 's3cret', 'grants.fs.read': '/a', 'x.custom': '1', 'transforms.a.type': 'X' },
      defs,
    );
    expect(split.values).toEqual({ topic: 't', 'grants.fs.read': '/a', 'transforms.a.type': 'X' });
    expect(split.extras).toEqual([{ key: 'x.custom', value: '1' }]);
    expect(split.kept).toEqual({ 'db.password': 's3cret' });
  });
});

describe('configPatch', () => {
  it('names only what changed, null for removed keys, and leaves hidden secrets alone', () => {
    const original = { name: 'c', 'connector.class': 'p', topic: 't', rate: '5', 'db.password': '[hidden]', gone: 'x' };
    const split = splitForEdit(original, defsByName(DEFS));
    const next = formToConfig({ name: 'c', plugin: 'p' }, { ...split.values, rate: '10', topic: 't' }, [], split.kept);
    expect(configPatch(original, next)).toEqual({ rate: '10', gone: null });
  });

  it('sends a retyped secret', () => {
    const original = { name: 'c', 'connector.class': 'p', 'db.password': '[hidden]' };
    const next = formToConfig({ name: 'c', plugin: 'p' }, { 'db.password': 'new' }, [], { 'db.password': '[hidden]' });
    expect(configPatch(original, next)).toEqual({ 'db.password': 'new' });
  });
});

describe('withDynamicDefs', () => {
  const tdef = (name: string, order: number) => def(name, 'STRING', { group: 'Transforms: a', order_in_group: order });
  const base = [
    def('topic', 'STRING'),
    def('transforms', 'LIST', { group: 'Transforms', order_in_group: 12 }),
    def('predicates', 'LIST', { group: 'Predicates', order_in_group: 13 }),
  ];
  const infos: ConfigInfos = {
    name: 'p',
    error_count: 0,
    groups: [],
    configs: [
      { definition: base[0], value: { name: 'topic', value: 't', recommended_values: [], errors: [], visible: true } },
      { definition: tdef('transforms.a.type', 0), value: { name: 'transforms.a.type', value: null, recommended_values: ['X'], errors: [], visible: true } },
      { definition: tdef('transforms.a.field', 2), value: { name: 'transforms.a.field', value: null, recommended_values: [], errors: [], visible: true } },
      { definition: null, value: { name: 'producer.override.x', value: '1', recommended_values: [], errors: ['bad'], visible: true } },
    ],
  };

  it("adds the answer's keys after their family's group", () => {
    const merged = withDynamicDefs(base, infos);
    expect(merged.map((d) => d.name)).toEqual(['topic', 'transforms', 'transforms.a.type', 'transforms.a.field', 'predicates']);
    const model = buildFormModel(merged, recommendedValues(infos), 'p');
    expect(model.map((g) => g.name)).toEqual(['p settings', 'Transforms', 'Transforms: a', 'Predicates']);
    expect(model[2].fields[0].kind).toBe('select');
  });

  it('leaves out keys shown as free rows, and changes nothing without an answer', () => {
    expect(withDynamicDefs(base, infos, new Set(['transforms.a.type'])).map((d) => d.name)).not.toContain('transforms.a.type');
    expect(withDynamicDefs(base, null)).toBe(base);
  });
});
