// uppercase-transform: upper-cases string values, or the string fields named
// in `fields` (every string field when it is empty) of a struct or map
// value; bytes values get ASCII a-z upper-cased. Anything else passes
// unchanged, and the schema never changes. The behaviour is specified in
// examples/SPEC.md and checked by the conformance suite.

import { ConfigError, defineTransform } from 'copycat-sdk/transform';

/** The names in `fields`; a ConfigError naming `fields` for an empty one (`a,,b`). */
function fieldsOf(config) {
  const raw = config.get('fields');
  if (raw === undefined || raw.trim() === '') return [];
  const names = raw.split(',').map((f) => f.trim());
  const empty = names.filter((f) => f === '').length;
  if (empty > 0) throw new ConfigError(`config 'fields': ${empty} empty field name(s) in '${raw}'`, 'fields');
  return names;
}

const LOWER_A = 0x61;
const LOWER_Z = 0x7a;

/** Bytes with ASCII a-z upper-cased (a copy). */
function upperBytes(bytes) {
  const out = bytes.slice();
  for (let i = 0; i < out.length; i++) if (out[i] >= LOWER_A && out[i] <= LOWER_Z) out[i] -= 0x20;
  return out;
}

export const { transformer } = defineTransform({
  name: 'uppercase-transform',
  version: '0.1.0',
  description: 'Upper-cases string values, or the named string fields of a struct or map value',
  config: [{ name: 'fields', type: 'list', default: '', doc: 'Fields to upper-case (empty: every string field)' }],

  // One problem per empty name in the list.
  validate(config) {
    const raw = config.get('fields') ?? '';
    if (raw.trim() === '') return [];
    return raw
      .split(',')
      .filter((f) => f.trim() === '')
      .map(() => ({ key: 'fields', message: `config 'fields': an empty field name in '${raw}'` }));
  },

  configure(config) {
    const fields = fieldsOf(config);
    const wanted = (name) => fields.length === 0 || fields.includes(name);
    return {
      apply(record) {
        const { value, valueSchema } = record;
        if (typeof value === 'string') record.value = value.toUpperCase();
        else if (value instanceof Uint8Array) record.value = upperBytes(value);
        else if (value instanceof Map) {
          // A map with string keys: its string values under the named keys.
          const out = new Map();
          for (const [k, v] of value) out.set(k, typeof k === 'string' && typeof v === 'string' && wanted(k) ? v.toUpperCase() : v);
          record.value = out;
        } else if (valueSchema?.type === 'struct' && value !== null) {
          // A struct: its named string fields.
          const out = {};
          for (const f of valueSchema.fields) {
            const v = value[f.name];
            out[f.name] = f.schema.type === 'string' && typeof v === 'string' && wanted(f.name) ? v.toUpperCase() : v;
          }
          record.value = out;
        }
        return record;
      },
    };
  },
});
