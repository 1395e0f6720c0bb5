//! Batches of records as they cross the guest boundary, for every contract
//! version: 0.1.0 moves one record value per record
//! (`list<source-record>`, `list<sink-record>`), 0.2.0 moves packed batches
//! (one byte buffer, spans into it, topics by index; `wit/connector@0.2.0/
//! batch.wit`), 0.3.0 adds typed columns. The task loops see one type
//! either way and borrow keys, values and headers straight out of it:
//! nothing is allocated per record. A connector's transform chain runs on
//! a source's batches (`transform.rs`) and a sink's (`sink_transform.rs`).

mod convert;
mod failure;
mod sink;
mod sink_transform;
mod source;
mod transform;
mod typed;
mod view;

pub use convert::{ConvertError, Decoded, RecordConverters, TypedError};
pub use failure::{DATA_EXCEPTION, Original, PolledRecord, RETRIABLE_EXCEPTION, RecordFailed, Stage, Tolerate};
pub use sink::SinkBatch;
pub use sink_transform::transform_sink;
pub use source::{RecordIter, SourceBatch};
pub(crate) use transform::transform_bytes;
pub use typed::SchemaCache;
pub(crate) use typed::{node as schema_node, to_wit as schema_node_to_wit};
pub use view::{Contract, HeaderViews, RawSinkRecord, RecordView, SinkRecordRef};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::types::SourcePosition;

    use crate::bindings::v0_2::batch as packed;

    /// Two records: ("k1", "v1", header hk=hv, topic t, partition 1, ts 7)
    /// and (no key, "v2", connector's topic).
    fn batch() -> packed::SourceBatch {
        packed::SourceBatch {
            data: b"k1v1hkhvv2".to_vec(),
            key_lengths: vec![2, -1],
            value_lengths: vec![2, 2],
            topics: vec!["t".into()],
            topic_indices: vec![0, -1],
            partitions: vec![1, -1],
            timestamps: vec![7, -1],
            header_counts: vec![1, 0],
            header_key_lengths: vec![2],
            header_value_lengths: vec![2],
            positions: vec![SourcePosition {
                partition: "p".into(),
                offset: "9".into(),
            }],
        }
    }

    #[test]
    fn a_packed_source_batch_reads_back_as_views() -> Result<(), String> {
        let b = SourceBatch::packed(batch())?;
        assert_eq!(b.len(), 2);
        let views: Vec<_> = b.iter().collect();
        assert_eq!(views[0].topic, Some("t"));
        assert_eq!(views[0].partition, Some(1));
        assert_eq!(views[0].timestamp, Some(7));
        assert_eq!(views[0].key, Some(&b"k1"[..]));
        assert_eq!(views[0].value, Some(&b"v1"[..]));
        assert_eq!(
            views[0].headers.clone().collect::<Vec<_>>(),
            vec![("hk", Some(&b"hv"[..]))]
        );
        assert_eq!(views[0].size(), 8);
        assert_eq!(views[1].topic, None);
        assert_eq!(views[1].partition, None);
        assert_eq!(views[1].key, None);
        assert_eq!(views[1].value, Some(&b"v2"[..]));
        assert_eq!(views[1].headers.len(), 0);
        assert_eq!(b.latest_offsets(), vec![("p".to_owned(), "9".to_owned())]);
        Ok(())
    }

    #[test]
    fn optional_columns_may_be_empty() -> Result<(), String> {
        let b = SourceBatch::packed(packed::SourceBatch {
            data: b"ab".to_vec(),
            key_lengths: vec![-1, -1],
            value_lengths: vec![1, 1],
            topics: Vec::new(),
            topic_indices: Vec::new(),
            partitions: Vec::new(),
            timestamps: Vec::new(),
            header_counts: Vec::new(),
            header_key_lengths: Vec::new(),
            header_value_lengths: Vec::new(),
            positions: Vec::new(),
        })?;
        let values: Vec<_> = b.iter().map(|r| (r.value, r.topic, r.partition, r.timestamp)).collect();
        assert_eq!(
            values,
            vec![(Some(&b"a"[..]), None, None, None), (Some(&b"b"[..]), None, None, None)]
        );
        Ok(())
    }

    #[test]
    fn a_packed_source_batch_that_breaks_the_layout_is_refused_naming_the_rule() {
        let refused = |f: fn(&mut packed::SourceBatch)| {
            let mut b = batch();
            f(&mut b);
            SourceBatch::packed(b).err().unwrap_or_default()
        };
        assert_eq!(
            refused(|b| b.value_lengths[1] = 3),
            "the lengths add up to 11 bytes, but the batch's data holds 10"
        );
        assert!(refused(|b| b.topic_indices[0] = 1).contains("topic index 1"));
        assert!(refused(|b| b.partitions[0] = -2).contains("partition -2"));
        assert!(refused(|b| b.key_lengths[0] = -3).contains("record 0's key length is -3"));
        assert!(refused(|b| b.key_lengths.pop().map_or((), drop)).contains("key-lengths has 1 entries"));
        assert!(refused(|b| b.timestamps.truncate(1)).contains("column timestamps has 1 entries for 2 records"));
        assert!(refused(|b| b.header_counts[1] = 1).contains("claim 2 headers"));
        assert!(refused(|b| b.positions.push(b.positions[0].clone())).contains("more than one position"));
        let empty_key = refused(|b| {
            b.header_key_lengths[0] = 0;
            b.header_value_lengths[0] = 4;
        });
        assert!(empty_key.contains("empty key"), "{empty_key}");
    }

    #[test]
    fn offsets_alone_are_not_an_empty_batch() -> Result<(), String> {
        let mut b = batch();
        for col in [
            &mut b.key_lengths,
            &mut b.value_lengths,
            &mut b.topic_indices,
            &mut b.partitions,
        ] {
            col.clear();
        }
        b.timestamps.clear();
        b.header_counts.clear();
        b.header_key_lengths.clear();
        b.header_value_lengths.clear();
        b.data.clear();
        let b = SourceBatch::packed(b)?;
        assert_eq!(b.len(), 0);
        assert!(!b.is_empty());
        Ok(())
    }

    #[test]
    fn a_sink_batch_packs_records_and_reuses_topics() -> Result<(), String> {
        for contract in [Contract::V0_1, Contract::V0_2] {
            let mut b = SinkBatch::new(contract);
            for (i, (topic, partition)) in [("a", 0), ("b", 0), ("a", 0), ("a", 1), ("a", 1)]
                .into_iter()
                .enumerate()
            {
                let headers: &[(&str, Option<&[u8]>)] = if i == 1 { &[("h", Some(b"x"))] } else { &[] };
                b.push(SinkRecordRef {
                    topic,
                    partition,
                    offset: i as i64,
                    key: None,
                    value: Some(b"v"),
                    headers: headers.iter().copied(),
                    timestamp: None,
                })
                .map_err(|e| e.to_string())?;
            }
            assert_eq!(b.len(), 5);
            // One entry per run of a topic partition, with its last offset.
            assert_eq!(
                b.partition_runs().collect::<Vec<_>>(),
                vec![("a", 0, 0), ("b", 0, 1), ("a", 0, 2), ("a", 1, 4)]
            );
            if let SinkBatch::Packed(p) = &b {
                assert_eq!(p.topics, vec!["a".to_owned(), "b".to_owned()]);
                assert_eq!(p.data, b"vvhxvvv".to_vec());
                assert_eq!(p.header_counts, vec![0, 1, 0, 0, 0]);
                assert_eq!(p.timestamps, vec![-1, -1, -1, -1, -1]);
            }
            b.clear();
            assert!(b.is_empty());
        }
        Ok(())
    }

    #[test]
    fn a_sink_batch_whose_first_record_has_headers_counts_them() -> Result<(), String> {
        for mut b in [
            SinkBatch::new(Contract::V0_1),
            SinkBatch::new(Contract::V0_2),
            SinkBatch::typed(None),
        ] {
            for (i, headers) in [&[("h", Some(&b"x"[..]))][..], &[], &[("a", None), ("b", Some(b"y"))]]
                .into_iter()
                .enumerate()
            {
                b.push(SinkRecordRef {
                    topic: "t",
                    partition: 0,
                    offset: i as i64,
                    key: Some(b"k"),
                    value: Some(b"v"),
                    headers: headers.iter().copied(),
                    timestamp: None,
                })
                .map_err(|e| e.to_string())?;
            }
            let headers: Vec<_> = b.raw_records()?.into_iter().map(|r| r.headers).collect();
            assert_eq!(
                headers,
                vec![
                    vec![("h", Some(&b"x"[..]))],
                    vec![],
                    vec![("a", None), ("b", Some(&b"y"[..]))]
                ]
            );
        }
        Ok(())
    }
}
