//! Records and positions exchanged with the host.

/// A Kafka record header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Header {
    /// Header key.
    pub key: String,
    /// Header value; `None` is a null value.
    pub value: Option<Vec<u8>>,
}

impl Header {
    /// A header with a value.
    pub fn new(key: impl Into<String>, value: impl Into<Vec<u8>>) -> Self {
        Self {
            key: key.into(),
            value: Some(value.into()),
        }
    }
}

/// A record emitted by a source task.
///
/// Every record names its *source partition* (the input stream it came from:
/// a file path, a table, a shard) and its *source offset* within that stream.
/// Once the record is durably in Kafka the host stores the offset; on restart
/// the task reads it back (see
/// [`SourceTask::read_offsets`](crate::SourceTask::read_offsets)) and resumes
/// after it.
///
/// ```
/// use copycat_sdk::SourceRecord;
///
/// let record = SourceRecord::new("/var/log/app.log", "4096")
///     .key("host-1")
///     .value("GET /index.html 200")
///     .header("origin", "app");
/// assert_eq!(record.topic, None); // the connector's configured `topic`
/// assert_eq!(record.value.as_deref(), Some(&b"GET /index.html 200"[..]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceRecord {
    /// The input stream this record came from.
    pub source_partition: String,
    /// This record's position in that stream (decimal numbers or JSON are
    /// good choices; the host stores it as given).
    pub source_offset: String,
    /// Kafka topic. `None` means the connector's configured `topic`.
    pub topic: Option<String>,
    /// Kafka partition. `None` lets the producer's partitioner choose.
    pub kafka_partition: Option<i32>,
    /// Record key bytes.
    pub key: Option<Vec<u8>>,
    /// Record value bytes. `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Record headers.
    pub headers: Vec<Header>,
    /// Milliseconds since the Unix epoch; `None` lets Kafka stamp it.
    pub timestamp: Option<i64>,
}

impl SourceRecord {
    /// A record from `source_partition` at `source_offset`, with no key, no
    /// value (a tombstone until [`value`](Self::value) is set), no headers,
    /// sent to the configured topic.
    pub fn new(source_partition: impl Into<String>, source_offset: impl Into<String>) -> Self {
        Self {
            source_partition: source_partition.into(),
            source_offset: source_offset.into(),
            topic: None,
            kafka_partition: None,
            key: None,
            value: None,
            headers: Vec::new(),
            timestamp: None,
        }
    }

    /// Send to `topic` instead of the configured one.
    #[must_use]
    pub fn topic(mut self, topic: impl Into<String>) -> Self {
        self.topic = Some(topic.into());
        self
    }

    /// Send to this Kafka partition instead of letting the partitioner choose.
    #[must_use]
    pub fn kafka_partition(mut self, partition: i32) -> Self {
        self.kafka_partition = Some(partition);
        self
    }

    /// The record key (`&str`, `String`, `&[u8]` and `Vec<u8>` all work).
    #[must_use]
    pub fn key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The record value.
    #[must_use]
    pub fn value(mut self, value: impl Into<Vec<u8>>) -> Self {
        self.value = Some(value.into());
        self
    }

    /// Add a header.
    #[must_use]
    pub fn header(mut self, key: impl Into<String>, value: impl Into<Vec<u8>>) -> Self {
        self.headers.push(Header::new(key, value));
        self
    }

    /// The record timestamp, in milliseconds since the Unix epoch.
    #[must_use]
    pub fn timestamp(mut self, millis: i64) -> Self {
        self.timestamp = Some(millis);
        self
    }
}

/// A source partition with its offset, as stored by the host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourcePosition {
    /// The source partition.
    pub partition: String,
    /// The last committed offset in it.
    pub offset: String,
}

impl SourcePosition {
    /// A position.
    pub fn new(partition: impl Into<String>, offset: impl Into<String>) -> Self {
        Self {
            partition: partition.into(),
            offset: offset.into(),
        }
    }
}

/// A Kafka topic partition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
}

impl TopicPartition {
    /// A topic partition.
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        Self {
            topic: topic.into(),
            partition,
        }
    }
}

/// A topic partition with an offset: the offset of the *next* record to read
/// (Kafka's convention for committed offsets).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartitionOffset {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// The next offset to read.
    pub offset: i64,
}

impl TopicPartitionOffset {
    /// A topic partition offset.
    pub fn new(topic: impl Into<String>, partition: i32, offset: i64) -> Self {
        Self {
            topic: topic.into(),
            partition,
            offset,
        }
    }

    /// The topic partition, without the offset.
    pub fn topic_partition(&self) -> TopicPartition {
        TopicPartition::new(self.topic.clone(), self.partition)
    }
}

/// A record delivered to a sink task.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SinkRecord {
    /// Topic it was read from.
    pub topic: String,
    /// Partition it was read from.
    pub partition: i32,
    /// Its offset in that topic partition.
    pub offset: i64,
    /// Key bytes.
    pub key: Option<Vec<u8>>,
    /// Value bytes; `None` is a tombstone.
    pub value: Option<Vec<u8>>,
    /// Headers.
    pub headers: Vec<Header>,
    /// Milliseconds since the Unix epoch, as stored in Kafka.
    pub timestamp: Option<i64>,
}

impl SinkRecord {
    /// The topic partition it was read from.
    pub fn topic_partition(&self) -> TopicPartition {
        TopicPartition::new(self.topic.clone(), self.partition)
    }

    /// A stable, unique id of this record: `<topic>-<partition>-<offset>`.
    ///
    /// A record delivered again (after a failed `flush`, a rebalance or a
    /// restart) has the same id, so a sink that writes each record under its
    /// id (a document id, a primary key, an object name) overwrites instead
    /// of duplicating: idempotent writes, and with them exactly-once results
    /// on top of the host's at-least-once delivery.
    ///
    /// ```
    /// use copycat_sdk::SinkRecord;
    ///
    /// let record = SinkRecord {
    ///     topic: "orders".into(),
    ///     partition: 3,
    ///     offset: 42,
    ///     key: None,
    ///     value: Some(b"{}".to_vec()),
    ///     headers: Vec::new(),
    ///     timestamp: None,
    /// };
    /// assert_eq!(record.id(), "orders-3-42");
    /// ```
    pub fn id(&self) -> String {
        format!("{}-{}-{}", self.topic, self.partition, self.offset)
    }
}
