//! A schema compiled for checking encodings fast: the expanded schema tree
//! as a flat list of steps, runs of fixed-width fields (ints, floats, a
//! struct's start) merged into one bounds check, so checking a record
//! costs a step per string, optional or container rather than a match per
//! value. A [`Plan`] only accepts: what it refuses is checked again by
//! [`Reader::skip`], whose error names the fault, so the two must agree on
//! what is valid (unit-tested on damaged input against `decode`).

use super::{MAX_DECIMAL_BYTES, Reader, child};
use crate::{Schema, Type, logical};

/// One step. Steps after an `Optional`, `Array` or `Map` are its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `bytes` bytes holding `values` values of no further check.
    Fixed {
        bytes: u32,
        values: u32,
    },
    Bool,
    Str,
    Bytes,
    Decimal,
    /// A schema no value fits (a Decimal whose scale does not parse).
    Never,
    /// A presence byte; when 1, the next `len` steps.
    Optional {
        len: u32,
    },
    /// A count of elements at least `min` bytes each, then the next `len`
    /// steps once per element.
    Array {
        len: u32,
        min: u32,
    },
    /// A count of entries at least `min` bytes each, then per entry the
    /// next `key` steps and the `value` steps after them.
    Map {
        key: u32,
        value: u32,
        min: u32,
    },
}

/// A schema's check, compiled.
#[derive(Debug, Clone)]
pub struct Plan {
    ops: Vec<Op>,
}

impl Plan {
    /// `schema` compiled, or `None` past `max_steps` steps (a shared-node
    /// table expands; the caller then checks with [`Reader::skip`]).
    pub fn new(schema: &Schema, max_steps: usize) -> Option<Self> {
        let mut steps = Steps {
            ops: Vec::new(),
            barrier: 0,
            max: max_steps,
        };
        compile(schema, &mut steps)?;
        Some(Self { ops: steps.ops })
    }

    /// Steps in the plan.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the plan has no steps (never: a schema compiles to one at
    /// least).
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Whether `bytes` is a valid encoding (every byte used, within the
    /// value budget): exactly when `Reader::skip` then `finish` succeed.
    pub fn accepts(&self, bytes: &[u8]) -> bool {
        let mut r = Reader::new(bytes);
        run(&self.ops, &mut r).is_some() && r.finish().is_ok()
    }
}

/// Steps being compiled. `barrier`: where the current body starts, so a
/// fixed run never merges into the end of a body before it.
struct Steps {
    ops: Vec<Op>,
    barrier: usize,
    max: usize,
}

impl Steps {
    fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    fn fixed(&mut self, bytes: u32, values: u32) {
        let n = self.ops.len();
        if n > self.barrier
            && let Some(Op::Fixed { bytes: b, values: v }) = self.ops.last_mut()
        {
            *b = b.saturating_add(bytes);
            *v = v.saturating_add(values);
        } else {
            self.ops.push(Op::Fixed { bytes, values });
        }
    }

    /// Open a body after the step at `at`.
    fn open(&mut self, op: Op) -> usize {
        self.ops.push(op);
        self.barrier = self.ops.len();
        self.ops.len() - 1
    }

    /// Steps since the one at `at`, closing its body.
    fn close(&mut self, at: usize) -> Option<u32> {
        self.barrier = self.ops.len();
        u32::try_from(self.ops.len() - at - 1).ok()
    }
}

fn min_size(schema: &Schema) -> u32 {
    u32::try_from(super::reader::min_size(schema)).unwrap_or(u32::MAX)
}

fn compile(schema: &Schema, s: &mut Steps) -> Option<()> {
    if s.ops.len() > s.max {
        return None;
    }
    if schema.is_optional() {
        let at = s.open(Op::Optional { len: 0 });
        compile_required(schema, s)?;
        s.ops[at] = Op::Optional { len: s.close(at)? };
        return Some(());
    }
    compile_required(schema, s)
}

/// The steps of a value of `schema` that is present.
fn compile_required(schema: &Schema, s: &mut Steps) -> Option<()> {
    match schema.ty() {
        Type::Int8 => s.fixed(1, 1),
        Type::Int16 => s.fixed(2, 1),
        Type::Int32 | Type::Float32 => s.fixed(4, 1),
        Type::Int64 | Type::Float64 => s.fixed(8, 1),
        Type::Boolean => s.push(Op::Bool),
        Type::String => s.push(Op::Str),
        Type::Bytes if schema.name() == Some(logical::DECIMAL) => match logical::decimal_scale(schema) {
            Ok(_) => s.push(Op::Decimal),
            Err(_) => s.push(Op::Never),
        },
        Type::Bytes => s.push(Op::Bytes),
        Type::Array => {
            let elem = child(schema.value_schema()).ok()?;
            let at = s.open(Op::Array { len: 0, min: 0 });
            compile(elem, s)?;
            s.ops[at] = Op::Array {
                len: s.close(at)?,
                min: min_size(elem),
            };
        }
        Type::Map => {
            let (k, v) = (child(schema.key_schema()).ok()?, child(schema.value_schema()).ok()?);
            let at = s.open(Op::Map {
                key: 0,
                value: 0,
                min: 0,
            });
            compile(k, s)?;
            let key = s.close(at)?;
            compile(v, s)?;
            let value = s.close(at)? - key;
            s.ops[at] = Op::Map {
                key,
                value,
                min: min_size(k).saturating_add(min_size(v)),
            };
        }
        Type::Struct => {
            // The struct itself is a value of no bytes.
            s.fixed(0, 1);
            for f in schema.fields() {
                compile(f.schema(), s)?;
            }
        }
    }
    (s.ops.len() <= s.max).then_some(())
}

/// Run `ops` at the cursor: `None` for anything [`Reader::skip`] refuses.
fn run(ops: &[Op], r: &mut Reader<'_>) -> Option<()> {
    let mut i = 0;
    while let Some(op) = ops.get(i) {
        i += 1;
        match *op {
            Op::Fixed { bytes, values } => {
                r.spend(values as usize).ok()?;
                r.advance(bytes as usize).ok()?;
            }
            Op::Bool => {
                r.spend(1).ok()?;
                r.boolean().ok()?;
            }
            Op::Str => {
                r.spend(1).ok()?;
                r.skip_str().ok()?;
            }
            Op::Bytes => {
                r.spend(1).ok()?;
                r.body().ok()?;
            }
            Op::Decimal => {
                r.spend(1).ok()?;
                let b = r.body().ok()?;
                if b.is_empty() || b.len() > MAX_DECIMAL_BYTES {
                    return None;
                }
            }
            Op::Never => return None,
            Op::Optional { len } => {
                // The optional value counts once, null or not; a present
                // value's own step counts it, so only a null is spent here.
                if !r.presence().ok()? {
                    r.spend(1).ok()?;
                    i += len as usize;
                }
            }
            Op::Array { len, min } => {
                r.spend(1).ok()?;
                let body = ops.get(i..i + len as usize)?;
                for _ in 0..r.count(min as usize).ok()? {
                    run(body, r)?;
                }
                i += len as usize;
            }
            Op::Map { key, value, min } => {
                r.spend(1).ok()?;
                let (k, v) = (key as usize, value as usize);
                let (kb, vb) = (ops.get(i..i + k)?, ops.get(i + k..i + k + v)?);
                for _ in 0..r.count(min as usize).ok()? {
                    run(kb, r)?;
                    run(vb, r)?;
                }
                i += k + v;
            }
        }
    }
    Some(())
}
