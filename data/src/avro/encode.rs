//! Avro's binary encoding of the values the converter builds, written
//! straight from the parsed schema ([`Tree`]): what apache-avro's writer
//! writes for them, without its per-call set-up (resolving every named type
//! of the schema again) and its record lookup table (a hash map of the
//! record's fields, built for every record written). Anything this does not
//! cover (a value kind it does not expect, a record whose fields are not
//! the schema's, a decimal in a fixed) is left to apache-avro's writer:
//! [`write`] then returns [`Unsupported`] and writes nothing that counts.

use apache_avro::types::Value as Av;

use super::data::apache_decimal;
use super::schema::{Avro, Prim, Tree};

/// A value this encoder leaves to apache-avro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unsupported;

/// `v`'s encoding under `a` (of `tree`), appended to `out`.
pub(crate) fn write(tree: &Tree, a: &Avro, v: &Av, out: &mut Vec<u8>) -> Result<(), Unsupported> {
    let a = tree.resolve(a).map_err(|_| Unsupported)?;
    match v {
        Av::Null => {
            if let Avro::Union(ts) = a {
                let p = ts
                    .iter()
                    .position(|t| matches!(t, Avro::Prim(Prim::Null, _)))
                    .ok_or(Unsupported)?;
                long(p as i64, out);
            }
        }
        Av::Boolean(b) => out.push(u8::from(*b)),
        Av::Int(i) | Av::Date(i) | Av::TimeMillis(i) => long(i64::from(*i), out),
        Av::Long(i)
        | Av::TimestampMillis(i)
        | Av::TimestampMicros(i)
        | Av::TimestampNanos(i)
        | Av::LocalTimestampMillis(i)
        | Av::LocalTimestampMicros(i)
        | Av::LocalTimestampNanos(i)
        | Av::TimeMicros(i) => long(*i, out),
        Av::Float(x) => out.extend_from_slice(&x.to_le_bytes()),
        Av::Double(x) => out.extend_from_slice(&x.to_le_bytes()),
        Av::Decimal(d) => match a {
            Avro::Prim(Prim::Bytes, _) if apache_decimal(a) => {
                let b = Vec::<u8>::try_from(d).map_err(|_| Unsupported)?;
                bytes(&b, out);
            }
            _ => return Err(Unsupported),
        },
        Av::Bytes(b) => match a {
            Avro::Prim(Prim::Bytes, _) => bytes(b, out),
            Avro::Fixed(_) => out.extend_from_slice(b),
            _ => return Err(Unsupported),
        },
        Av::String(s) => match a {
            Avro::Prim(Prim::String, _) => bytes(s.as_bytes(), out),
            Avro::Enum(e) => {
                let i = e.symbols.iter().position(|x| x == s).ok_or(Unsupported)?;
                long(i as i64, out);
            }
            _ => return Err(Unsupported),
        },
        Av::Fixed(_, b) => out.extend_from_slice(b),
        Av::Enum(i, _) => long(i64::from(*i as i32), out),
        Av::Union(i, item) => {
            let Avro::Union(ts) = a else {
                return Err(Unsupported);
            };
            let t = ts.get(*i as usize).ok_or(Unsupported)?;
            long(i64::from(*i), out);
            write(tree, t, item, out)?;
        }
        Av::Array(items) => {
            let Avro::Array(it, _) = a else {
                return Err(Unsupported);
            };
            if !items.is_empty() {
                long(items.len() as i64, out);
                for item in items {
                    write(tree, it, item, out)?;
                }
            }
            out.push(0);
        }
        Av::Map(entries) => {
            let Avro::Map(vs, _) = a else {
                return Err(Unsupported);
            };
            if !entries.is_empty() {
                long(entries.len() as i64, out);
                for (k, item) in entries {
                    bytes(k.as_bytes(), out);
                    write(tree, vs, item, out)?;
                }
            }
            out.push(0);
        }
        Av::Record(fields) => {
            let Avro::Record(r) = a else {
                return Err(Unsupported);
            };
            for (i, f) in r.fields.iter().enumerate() {
                // In the schema's order, as the converter builds them;
                // else found by name, as apache-avro finds them.
                let item = match fields.get(i) {
                    Some((name, item)) if *name == f.name => item,
                    _ => fields
                        .iter()
                        .find(|(name, _)| *name == f.name)
                        .map(|(_, item)| item)
                        .ok_or(Unsupported)?,
                };
                write(tree, &f.schema, item, out)?;
            }
        }
        _ => return Err(Unsupported),
    }
    Ok(())
}

/// A zig-zag varint.
fn long(n: i64, out: &mut Vec<u8>) {
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z > 0x7F {
        out.push(0x80 | (z & 0x7F) as u8);
        z >>= 7;
    }
    out.push(z as u8);
}

/// A length, then the bytes.
fn bytes(b: &[u8], out: &mut Vec<u8>) {
    long(b.len() as i64, out);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use apache_avro::writer::datum::GenericDatumWriter;

    /// What apache-avro's writer writes for `v` under `text`.
    fn apache(text: &str, v: &Av) -> Vec<u8> {
        let s = apache_avro::Schema::parse_str(text).unwrap();
        GenericDatumWriter::builder(&s)
            .build()
            .unwrap()
            .write_value_to_vec(v.clone())
            .unwrap()
    }

    fn ours(text: &str, v: &Av) -> Result<Vec<u8>, Unsupported> {
        let tree = super::super::schema::parse_schema(text).unwrap();
        let mut out = Vec::new();
        write(&tree, &tree.root, v, &mut out).map(|()| out)
    }

    #[test]
    fn writes_what_apache_avro_writes() {
        let text = r#"{"type":"record","name":"R","namespace":"n","fields":[
            {"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"f","type":"float"},
            {"name":"d","type":"double"},{"name":"b","type":"boolean"},{"name":"s","type":"string"},
            {"name":"y","type":"bytes"},
            {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":64,"scale":2}},
            {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
            {"name":"o","type":["null","string"],"default":null},
            {"name":"a","type":{"type":"array","items":"string"}},
            {"name":"m","type":{"type":"map","values":"long"}},
            {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
            {"name":"x","type":{"type":"fixed","name":"F","size":2}},
            {"name":"r","type":["null",{"type":"record","name":"In","fields":[{"name":"k","type":"int"}]}]},
            {"name":"again","type":["null","In"]}]}"#;
        for n in [0i64, 1, -1, 63, -64, 64, 300, i64::from(i32::MAX), i64::MIN, i64::MAX] {
            let v = Av::Record(vec![
                ("i".into(), Av::Int(n as i32)),
                ("l".into(), Av::Long(n)),
                ("f".into(), Av::Float(n as f32 / 3.0)),
                ("d".into(), Av::Double(n as f64 / 7.0)),
                ("b".into(), Av::Boolean(n % 2 == 0)),
                ("s".into(), Av::String(format!("s{n}é"))),
                ("y".into(), Av::Bytes(vec![1, 2, n as u8])),
                (
                    "dec".into(),
                    Av::Decimal(apache_avro::Decimal::from((n as i32).to_be_bytes().to_vec())),
                ),
                ("ts".into(), Av::TimestampMillis(n)),
                (
                    "o".into(),
                    if n % 3 == 0 {
                        Av::Union(0, Box::new(Av::Null))
                    } else {
                        Av::Union(1, Box::new(Av::String("o".into())))
                    },
                ),
                (
                    "a".into(),
                    Av::Array((0..(n.rem_euclid(4))).map(|k| Av::String(format!("t{k}"))).collect()),
                ),
                (
                    "m".into(),
                    Av::Map([("k".to_owned(), Av::Long(n))].into_iter().collect()),
                ),
                ("e".into(), Av::Enum(1, "Y".into())),
                ("x".into(), Av::Fixed(2, vec![9, 8])),
                (
                    "r".into(),
                    Av::Union(1, Box::new(Av::Record(vec![("k".into(), Av::Int(7))]))),
                ),
                ("again".into(), Av::Union(0, Box::new(Av::Null))),
            ]);
            assert_eq!(ours(text, &v), Ok(apache(text, &v)), "n = {n}");
        }
    }

    #[test]
    fn leaves_what_it_does_not_know_to_apache_avro() {
        let text = r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#;
        let wrong = Av::Record(vec![("b".into(), Av::Int(1))]);
        assert_eq!(ours(text, &wrong), Err(Unsupported));
        assert_eq!(ours(r#""int""#, &Av::String("x".into())), Err(Unsupported));
    }
}
