//! The connector config definitions the REST API answers with (`GET
//! /connector-plugins/{p}/config` and `PUT .../config/validate`): Kafka
//! Connect 4.4's framework keys (its ConnectorConfig, SourceConnectorConfig
//! and SinkConnectorConfig: same names, types, defaults, groups, order and
//! documentation, with a "Copycat:" note where Copycat does less or more),
//! Copycat's own keys in groups of their own ("Copycat Sandbox", "Copycat
//! Limits", "Copycat Restart", "Copycat Polling"), and, for validation, the
//! `transforms.<alias>.*` and `predicates.<alias>.*` keys a config names,
//! in "Transforms: <alias>" and "Predicates: <alias>" groups as Kafka
//! Connect adds them. The values checked are not checked here: the errors
//! come from [`super::ConnectorConfig::from_props`] and the plugin.

use serde_json::{Value, json};

use super::WorkerConfig;
use crate::connector::{Kind, Props};

/// Which connectors a framework key applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    All,
    Source,
    Sink,
}

impl Scope {
    fn covers(self, kind: Kind) -> bool {
        match self {
            Scope::All => true,
            Scope::Source => kind != Kind::Sink,
            Scope::Sink => kind == Kind::Sink,
        }
    }
}

/// A framework key as Kafka Connect defines it; `note`, when not empty, is
/// appended to the documentation: what Copycat does differently.
struct Def {
    name: &'static str,
    type_: &'static str,
    default: Option<&'static str>,
    importance: &'static str,
    documentation: &'static str,
    group: &'static str,
    order: i32,
    width: &'static str,
    display_name: &'static str,
    scope: Scope,
    note: &'static str,
}

/// One key's definition: Kafka Connect's ConfigKeyInfo, plus the values
/// validation recommends for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key.
    pub name: String,
    /// ConfigDef.Type's name: `STRING`, `INT`, `LONG`, `BOOLEAN`, `LIST`,
    /// `CLASS`, `PASSWORD`, ...
    pub type_: &'static str,
    /// Whether it must be set (it has no default).
    pub required: bool,
    /// The default as text; `None`: no default, or a null one.
    pub default: Option<String>,
    /// `HIGH`, `MEDIUM` or `LOW`.
    pub importance: &'static str,
    /// What it does.
    pub documentation: String,
    /// Its group; `None` for a plugin's own keys (they declare none).
    pub group: Option<String>,
    /// Its place in its group (-1 without a group).
    pub order: i32,
    /// `NONE`, `SHORT`, `MEDIUM` or `LONG`.
    pub width: &'static str,
    /// Its label.
    pub display_name: String,
    /// The values validation recommends (Copycat's accepted values).
    pub recommended: Vec<String>,
}

impl KeyInfo {
    /// Kafka Connect's ConfigKeyInfo JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "type": self.type_,
            "required": self.required,
            "default_value": self.default,
            "importance": self.importance,
            "documentation": self.documentation,
            "group": self.group,
            "order_in_group": self.order,
            "width": self.width,
            "display_name": self.display_name,
            "dependents": [],
        })
    }

    /// A plugin's own key (no group, as Kafka Connect shows a connector's
    /// keys that declare none).
    pub fn plugin_key(
        name: &str,
        type_: &'static str,
        required: bool,
        default: Option<String>,
        importance: &'static str,
        documentation: &str,
    ) -> Self {
        Self {
            name: name.to_owned(),
            type_,
            required: required && default.is_none(),
            default,
            importance,
            documentation: documentation.to_owned(),
            group: None,
            order: -1,
            width: "NONE",
            display_name: name.to_owned(),
            recommended: Vec::new(),
        }
    }

    fn from_def(d: &Def) -> Self {
        let documentation = if d.note.is_empty() {
            d.documentation.to_owned()
        } else {
            format!("{} Copycat: {}", d.documentation, d.note)
        };
        Self {
            name: d.name.to_owned(),
            type_: d.type_,
            required: d.default.is_none() && matches!(d.name, "name" | "connector.class"),
            default: d.default.map(str::to_owned),
            importance: d.importance,
            documentation,
            group: Some(d.group.to_owned()),
            order: d.order,
            width: d.width,
            display_name: d.display_name.to_owned(),
            recommended: Vec::new(),
        }
    }
}

/// Kafka Connect 4.4's framework keys, in its order (ConnectorConfig's,
/// then SourceConnectorConfig's or SinkConnectorConfig's), with its text.
const KAFKA_CONNECT: &[Def] = &[
    Def {
        name: "name",
        type_: "STRING",
        default: None,
        importance: "HIGH",
        documentation: "Globally unique name to use for this connector.",
        group: "Common",
        order: 1,
        width: "MEDIUM",
        display_name: "Connector name",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "connector.class",
        type_: "STRING",
        default: None,
        importance: "HIGH",
        documentation: "Name or alias of the class for this connector. Must be a subclass of org.apache.kafka.connect.connector.Connector. If the connector is org.apache.kafka.connect.file.FileStreamSinkConnector, you can either specify this full name,  or use \"FileStreamSink\" or \"FileStreamSinkConnector\" to make the configuration a bit shorter",
        group: "Common",
        order: 2,
        width: "LONG",
        display_name: "Connector class",
        scope: Scope::All,
        note: "a plugin name (a .wasm component in plugin.path, or an uploaded plugin), a path to a .wasm component, or a Kafka Connect class name or alias of a connector Copycat ships (FileStreamSource, FileStreamSourceConnector, org.apache.kafka.connect.file.FileStreamSourceConnector, and the same for FileStreamSink).",
    },
    Def {
        name: "connector.plugin.version",
        type_: "STRING",
        default: Some("4.4.0"),
        importance: "MEDIUM",
        documentation: "Version of the connector.",
        group: "Common",
        order: 3,
        width: "MEDIUM",
        display_name: "Connector version",
        scope: Scope::All,
        note: "an exact version of the plugin (plugin.path's and the uploads'); unset, the latest. Changing it on a running connector hot-swaps it.",
    },
    Def {
        name: "tasks.max",
        type_: "INT",
        default: Some("1"),
        importance: "HIGH",
        documentation: "Maximum number of tasks to use for this connector.",
        group: "Common",
        order: 4,
        width: "SHORT",
        display_name: "Tasks max",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "tasks.max.enforce",
        type_: "BOOLEAN",
        default: Some("true"),
        importance: "LOW",
        documentation: "(Deprecated) Whether to enforce that the tasks.max property is respected by the connector. By default, connectors that generate too many tasks will fail, and existing sets of tasks that exceed the tasks.max property will also be failed. If this property is set to false, then connectors will be allowed to generate more than the maximum number of tasks, and existing sets of tasks that exceed the tasks.max property will be allowed to run. This property is deprecated and will be removed in an upcoming major release.",
        group: "Common",
        order: 5,
        width: "SHORT",
        display_name: "Enforce tasks max",
        scope: Scope::All,
        note: "only true is accepted: Copycat always enforces tasks.max.",
    },
    Def {
        name: "key.converter",
        type_: "CLASS",
        default: None,
        importance: "LOW",
        documentation: "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the keys in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro.",
        group: "Common",
        order: 6,
        width: "SHORT",
        display_name: "Key converter class",
        scope: Scope::All,
        note: "one of Copycat's built-in converters (the recommended values, or their short names); unset, the worker's key.converter (ByteArrayConverter if it names none).",
    },
    Def {
        name: "key.converter.plugin.version",
        type_: "STRING",
        default: None,
        importance: "LOW",
        documentation: "Version of the key converter.",
        group: "Common",
        order: 7,
        width: "SHORT",
        display_name: "Key converter version",
        scope: Scope::All,
        note: "refused: the converters are built in, in one version.",
    },
    Def {
        name: "value.converter",
        type_: "CLASS",
        default: None,
        importance: "LOW",
        documentation: "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the values in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro.",
        group: "Common",
        order: 8,
        width: "SHORT",
        display_name: "Value converter class",
        scope: Scope::All,
        note: "one of Copycat's built-in converters (the recommended values, or their short names); unset, the worker's value.converter (ByteArrayConverter if it names none).",
    },
    Def {
        name: "value.converter.plugin.version",
        type_: "STRING",
        default: None,
        importance: "LOW",
        documentation: "Version of the value converter.",
        group: "Common",
        order: 9,
        width: "SHORT",
        display_name: "Value converter version",
        scope: Scope::All,
        note: "refused: the converters are built in, in one version.",
    },
    Def {
        name: "header.converter",
        type_: "CLASS",
        default: None,
        importance: "LOW",
        documentation: "HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to Kafka. This controls the format of the header values in messages written to or read from Kafka, and since this is independent of connectors it allows any connector to work with any serialization format. Examples of common formats include JSON and Avro. By default, the SimpleHeaderConverter is used to serialize header values to strings and deserialize them by inferring the schemas.",
        group: "Common",
        order: 10,
        width: "SHORT",
        display_name: "Header converter class",
        scope: Scope::All,
        note: "one of Copycat's built-in header converters (the recommended values, or their short names); unset, the worker's header.converter (SimpleHeaderConverter if it names none).",
    },
    Def {
        name: "header.converter.plugin.version",
        type_: "STRING",
        default: None,
        importance: "LOW",
        documentation: "Version of the header converter.",
        group: "Common",
        order: 11,
        width: "SHORT",
        display_name: "Header converter version",
        scope: Scope::All,
        note: "refused: the converters are built in, in one version.",
    },
    Def {
        name: "transforms",
        type_: "LIST",
        default: Some(""),
        importance: "LOW",
        documentation: "Aliases for the transformations to be applied to records.",
        group: "Transforms",
        order: 12,
        width: "LONG",
        display_name: "Transforms",
        scope: Scope::All,
        note: "Kafka Connect's built-in transformations, and transform components (transforms.<alias>.type=wasm).",
    },
    Def {
        name: "predicates",
        type_: "LIST",
        default: Some(""),
        importance: "LOW",
        documentation: "Aliases for the predicates used by transformations.",
        group: "Predicates",
        order: 13,
        width: "LONG",
        display_name: "Predicates",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "config.action.reload",
        type_: "STRING",
        default: Some("restart"),
        importance: "LOW",
        documentation: "The action that Connect should take on the connector when changes in external configuration providers result in a change in the connector's configuration properties. A value of 'none' indicates that Connect will do nothing. A value of 'restart' indicates that Connect should restart/reload the connector with the updated configuration properties.The restart may actually be scheduled in the future if the external configuration provider indicates that a configuration value will expire in the future.",
        group: "Common",
        order: 14,
        width: "MEDIUM",
        display_name: "Reload Action",
        scope: Scope::All,
        note: "restart or none; neither has an effect, as none of Copycat's config providers' values expire.",
    },
    Def {
        name: "errors.retry.timeout",
        type_: "LONG",
        default: Some("0"),
        importance: "MEDIUM",
        documentation: "The maximum duration in milliseconds that a failed operation will be reattempted. The default is 0, which means no retries will be attempted. Use -1 for infinite retries.",
        group: "Error Handling",
        order: 1,
        width: "MEDIUM",
        display_name: "Retry Timeout for Errors",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "errors.retry.delay.max.ms",
        type_: "LONG",
        default: Some("60000"),
        importance: "MEDIUM",
        documentation: "The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to the delay once this limit is reached to prevent thundering herd issues.",
        group: "Error Handling",
        order: 2,
        width: "MEDIUM",
        display_name: "Maximum Delay Between Retries for Errors",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "errors.tolerance",
        type_: "STRING",
        default: Some("none"),
        importance: "MEDIUM",
        documentation: "Behavior for tolerating errors during connector operation. 'none' is the default value and signals that any error will result in an immediate connector task failure; 'all' changes the behavior to skip over problematic records.",
        group: "Error Handling",
        order: 3,
        width: "SHORT",
        display_name: "Error Tolerance",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "errors.log.enable",
        type_: "BOOLEAN",
        default: Some("false"),
        importance: "MEDIUM",
        documentation: "If true, write each error and the details of the failed operation and problematic record to the Connect application log. This is 'false' by default, so that only errors that are not tolerated are reported.",
        group: "Error Handling",
        order: 4,
        width: "SHORT",
        display_name: "Log Errors",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "errors.log.include.messages",
        type_: "BOOLEAN",
        default: Some("false"),
        importance: "MEDIUM",
        documentation: "Whether to include in the log the Connect record that resulted in a failure. For sink records, the topic, partition, offset, and timestamp will be logged. For source records, the key and value (and their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition, and source offset will be logged. This is 'false' by default, which will prevent record keys, values, and headers from being written to log files.",
        group: "Error Handling",
        order: 5,
        width: "SHORT",
        display_name: "Log Error Details",
        scope: Scope::All,
        note: "",
    },
    Def {
        name: "topic.creation.groups",
        type_: "LIST",
        default: Some(""),
        importance: "LOW",
        documentation: "Groups of configurations for topics created by source connectors",
        group: "Topic Creation",
        order: 1,
        width: "LONG",
        display_name: "Topic Creation Groups",
        scope: Scope::Source,
        note: "topic creation needs topic.creation.default.replication.factor and topic.creation.default.partitions; each group's topic.creation.<group>.* keys are read as in Kafka Connect (KIP-158).",
    },
    Def {
        name: "exactly.once.support",
        type_: "STRING",
        default: Some("requested"),
        importance: "MEDIUM",
        documentation: "Permitted values are requested, required. If set to \"required\", forces a preflight check for the connector to ensure that it can provide exactly-once semantics with the given configuration. Some connectors may be capable of providing exactly-once semantics but not signal to Connect that they support this; in that case, documentation for the connector should be consulted carefully before creating it, and the value for this property should be set to \"requested\". Additionally, if the value is set to \"required\" but the worker that performs preflight validation does not have exactly-once support enabled for source connectors, requests to create or validate the connector will fail.",
        group: "Exactly Once Support",
        order: 2,
        width: "SHORT",
        display_name: "Exactly once support",
        scope: Scope::Source,
        note: "'required' refuses a connector that does not run exactly-once (the worker's exactly.once.source.support=enabled, or delivery.guarantee=exactly-once).",
    },
    Def {
        name: "transaction.boundary",
        type_: "STRING",
        default: Some("poll"),
        importance: "MEDIUM",
        documentation: "Permitted values are: poll, interval, connector. If set to 'poll', a new producer transaction will be started and committed for every batch of records that each task from this connector provides to Connect. If set to 'connector', relies on connector-defined transaction boundaries; note that not all connectors are capable of defining their own transaction boundaries, and in that case, attempts to instantiate a connector with this value will fail. Finally, if set to 'interval', commits transactions only after a user-defined time interval has passed.",
        group: "Exactly Once Support",
        order: 3,
        width: "SHORT",
        display_name: "Transaction Boundary",
        scope: Scope::Source,
        note: "",
    },
    Def {
        name: "transaction.boundary.interval.ms",
        type_: "LONG",
        default: None,
        importance: "LOW",
        documentation: "If 'transaction.boundary' is set to 'interval', determines the interval for producer transaction commits by connector tasks. If unset, defaults to the value of the worker-level 'offset.flush.interval.ms' property. It has no effect if a different transaction.boundary is specified.",
        group: "Exactly Once Support",
        order: 4,
        width: "SHORT",
        display_name: "Transaction boundary interval",
        scope: Scope::Source,
        note: "",
    },
    Def {
        name: "offsets.storage.topic",
        type_: "STRING",
        default: None,
        importance: "LOW",
        documentation: "The name of a separate offsets topic to use for this connector. If empty or not specified, the worker’s global offsets topic name will be used. If specified, the offsets topic will be created if it does not already exist on the Kafka cluster targeted by this connector (which may be different from the one used for the worker's global offsets topic if the bootstrap.servers property of the connector's producer has been overridden from the worker's). Only applicable in distributed mode; in standalone mode, setting this property will have no effect.",
        group: "offsets.topic",
        order: 1,
        width: "LONG",
        display_name: "Offsets topic",
        scope: Scope::Source,
        note: "refused: a connector's own offsets topic is not implemented; every connector's source offsets are kept in the worker's offset.storage.topic.",
    },
    Def {
        name: "topics",
        type_: "LIST",
        default: Some(""),
        importance: "HIGH",
        documentation: "List of topics to consume, separated by commas",
        group: "Common",
        order: 4,
        width: "LONG",
        display_name: "Topics",
        scope: Scope::Sink,
        note: "",
    },
    Def {
        name: "topics.regex",
        type_: "STRING",
        default: Some(""),
        importance: "HIGH",
        documentation: "Regular expression giving topics to consume. Under the hood, the regex is compiled to a <code>java.util.regex.Pattern</code>. Only one of topics or topics.regex should be specified.",
        group: "Common",
        order: 4,
        width: "LONG",
        display_name: "Topics regex",
        scope: Scope::Sink,
        note: "",
    },
    Def {
        name: "errors.deadletterqueue.topic.name",
        type_: "STRING",
        default: Some(""),
        importance: "MEDIUM",
        documentation: "The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an error when processed by this sink connector, or its transformations or converters. The topic name is blank by default, which means that no messages are to be recorded in the DLQ.",
        group: "Error Handling",
        order: 6,
        width: "MEDIUM",
        display_name: "Dead Letter Queue Topic Name",
        scope: Scope::Sink,
        note: "",
    },
    Def {
        name: "errors.deadletterqueue.topic.replication.factor",
        type_: "SHORT",
        default: Some("3"),
        importance: "MEDIUM",
        documentation: "Replication factor used to create the dead letter queue topic when it doesn't already exist.",
        group: "Error Handling",
        order: 7,
        width: "MEDIUM",
        display_name: "Dead Letter Queue Topic Replication Factor",
        scope: Scope::Sink,
        note: "",
    },
    Def {
        name: "errors.deadletterqueue.context.headers.enable",
        type_: "BOOLEAN",
        default: Some("false"),
        importance: "MEDIUM",
        documentation: "If true, add headers containing error context to the messages written to the dead letter queue. To avoid clashing with headers from the original record, all error context header keys, all error context header keys will start with <code>__connect.errors.</code>",
        group: "Error Handling",
        order: 8,
        width: "MEDIUM",
        display_name: "Enable Error Context Headers",
        scope: Scope::Sink,
        note: "",
    },
];

/// A Copycat key: (name, type, importance, documentation, display name);
/// its group, scope and default are given where the table is used.
type Own = (&'static str, &'static str, &'static str, &'static str, &'static str);

/// "Copycat Sandbox": what a connector's component may reach.
const SANDBOX: &[Own] = &[
    (
        "grants.fs.read",
        "LIST",
        "HIGH",
        "Comma-separated absolute paths of existing directories the connector may read (WASI preopens, under the same path inside). Deny-by-default: without it, no files.",
        "Readable directories",
    ),
    (
        "grants.fs.write",
        "LIST",
        "HIGH",
        "Comma-separated absolute paths of existing directories the connector may read and write.",
        "Writable directories",
    ),
    (
        "grants.net.connect",
        "LIST",
        "HIGH",
        "Comma-separated host:port, ip:port or cidr:port (the port may be *) the connector may open TCP connections to.",
        "TCP destinations",
    ),
    (
        "grants.http.hosts",
        "LIST",
        "HIGH",
        "Comma-separated host or host:port the connector may send wasi:http requests to.",
        "HTTP hosts",
    ),
    (
        "grants.env",
        "LIST",
        "MEDIUM",
        "Comma-separated names of the worker's environment variables passed to the connector.",
        "Environment variables",
    ),
    (
        "connector.digest",
        "STRING",
        "MEDIUM",
        "sha256:<64 lowercase hex digits>: the component is refused unless its SHA-256 digest is this one.",
        "Component digest",
    ),
];

/// "Copycat Limits": per-task limits over the worker's defaults.
const LIMITS: &[Own] = &[
    (
        "task.memory.max.bytes",
        "LONG",
        "MEDIUM",
        "Most bytes of linear memory one task's component instance may have (at least 1048576).",
        "Memory",
    ),
    (
        "task.call.timeout.ms",
        "LONG",
        "MEDIUM",
        "Longest one guest call (poll, put, validate, ...) may take, time waiting in the host included.",
        "Call timeout",
    ),
    (
        "task.fuel.per.call",
        "LONG",
        "LOW",
        "Wasm fuel (about one unit per instruction) of one guest call; 0: not metered. Needs the worker's task.fuel.per.call set.",
        "Fuel per call",
    ),
    (
        "task.record.max.bytes",
        "LONG",
        "MEDIUM",
        "Largest source record (key, value and headers), in bytes.",
        "Record size",
    ),
    (
        "task.batch.max.bytes",
        "LONG",
        "MEDIUM",
        "Most bytes one poll may return; a sink's put batch stops growing there (at least task.record.max.bytes).",
        "Batch size",
    ),
    (
        "task.log.max.lines.per.second",
        "INT",
        "LOW",
        "Lines of stdout and of stderr, and records of the logging import, logged per second; the rest are dropped and counted.",
        "Log lines per second",
    ),
    (
        "task.host.handles.max",
        "INT",
        "LOW",
        "Most host resources (WASI and wasi:http handles) the instance may hold at once (at least 16).",
        "Host handles",
    ),
    (
        "task.http.fields.max.bytes",
        "INT",
        "LOW",
        "Largest content of one wasi:http fields resource (headers), in bytes (at least 1024).",
        "HTTP fields size",
    ),
    (
        "task.offset.max.bytes",
        "INT",
        "LOW",
        "Largest source partition plus source offset, in bytes (at least 64).",
        "Offset size",
    ),
    (
        "task.offset.partitions.max",
        "INT",
        "LOW",
        "Most source partitions one source task may have offsets for.",
        "Offset partitions",
    ),
    (
        "task.transform.records.max",
        "INT",
        "LOW",
        "Most records one transform component may return for a batch.",
        "Transform records",
    ),
];

/// "Copycat Restart": what happens when a task fails.
const RESTART: &[Own] = &[
    (
        "task.restart.max.attempts",
        "INT",
        "MEDIUM",
        "Automatic restarts of a failed task before it stays FAILED; 0: never restarted automatically.",
        "Restart attempts",
    ),
    (
        "task.restart.backoff.initial.ms",
        "LONG",
        "LOW",
        "Pause before the first automatic restart; each next pause doubles.",
        "Initial restart pause",
    ),
    (
        "task.restart.backoff.max.ms",
        "LONG",
        "LOW",
        "Longest pause between automatic restarts; a task that then runs this long without failing gets its full budget back.",
        "Longest restart pause",
    ),
];

/// "Copycat Polling": how a task is driven.
const POLLING: &[Own] = &[
    (
        "poll.max.records",
        "INT",
        "MEDIUM",
        "Sources: most records asked of one poll; sinks: most records per put.",
        "Records per call",
    ),
    (
        "poll.idle.backoff.ms",
        "LONG",
        "LOW",
        "Pause after a poll returned nothing; it doubles with every further empty poll.",
        "Idle pause",
    ),
    (
        "poll.idle.backoff.max.ms",
        "LONG",
        "LOW",
        "Longest pause after consecutive empty polls (at least poll.idle.backoff.ms).",
        "Longest idle pause",
    ),
    (
        "connector.monitor.interval.ms",
        "LONG",
        "LOW",
        "Dynamic connectors: how often the connector's instance looks at its source (at least 10).",
        "Monitor interval",
    ),
];

/// "Copycat Delivery" (sources).
const DELIVERY: &[Own] = &[
    (
        "delivery.guarantee",
        "STRING",
        "MEDIUM",
        "Sources: at-most-once (offsets committed before the records are sent), at-least-once (after Kafka acknowledged them) or exactly-once (records and offsets in one transaction). Default: exactly-once when the worker has exactly.once.source.support=enabled, else at-least-once.",
        "Delivery guarantee",
    ),
    (
        "topic",
        "STRING",
        "MEDIUM",
        "Sources: the topic of records that name none.",
        "Default topic",
    ),
];

/// The groups of Copycat's own keys, in order.
pub const COPYCAT_GROUPS: &[&str] = &[
    "Copycat Sandbox",
    "Copycat Limits",
    "Copycat Restart",
    "Copycat Polling",
    "Copycat Delivery",
];

fn ms(d: std::time::Duration) -> String {
    d.as_millis().to_string()
}

/// The default of a Copycat key on `worker`.
fn own_default(name: &str, worker: &WorkerConfig) -> Option<String> {
    let l = &worker.limits;
    let r = &worker.restart;
    Some(match name {
        "task.memory.max.bytes" => l.memory_bytes.to_string(),
        "task.call.timeout.ms" => ms(l.call_timeout),
        "task.fuel.per.call" => l.fuel_per_call.unwrap_or(0).to_string(),
        "task.record.max.bytes" => l.record_max_bytes.to_string(),
        "task.batch.max.bytes" => l.batch_max_bytes.to_string(),
        "task.log.max.lines.per.second" => l.log_lines_per_second.to_string(),
        "task.host.handles.max" => l.host_handles_max.to_string(),
        "task.http.fields.max.bytes" => l.http_fields_max_bytes.to_string(),
        "task.offset.max.bytes" => l.offset_max_bytes.to_string(),
        "task.offset.partitions.max" => l.offset_partitions_max.to_string(),
        "task.transform.records.max" => l.transform_records_max.to_string(),
        "task.restart.max.attempts" => r.max_attempts.to_string(),
        "task.restart.backoff.initial.ms" => ms(r.initial_backoff),
        "task.restart.backoff.max.ms" => ms(r.max_backoff),
        "poll.max.records" => worker
            .consumer
            .get(super::MAX_POLL_RECORDS)
            .cloned()
            .unwrap_or_else(|| "2000".to_owned()),
        "poll.idle.backoff.ms" => "50".to_owned(),
        "poll.idle.backoff.max.ms" => "1000".to_owned(),
        "connector.monitor.interval.ms" => "5000".to_owned(),
        "delivery.guarantee" if worker.exactly_once_source => "exactly-once".to_owned(),
        "delivery.guarantee" => "at-least-once".to_owned(),
        "grants.fs.read" | "grants.fs.write" | "grants.net.connect" | "grants.http.hosts" | "grants.env" => {
            String::new()
        }
        _ => return None,
    })
}

/// What a connector of `kind` is: its plugin's keys, version and versions.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// Source or sink.
    pub kind: Kind,
    /// The version described (the default of `connector.plugin.version`).
    pub version: String,
    /// Every version installed (its recommended values).
    pub versions: Vec<String>,
    /// The plugin's own config definition.
    pub keys: Vec<KeyInfo>,
}

/// The framework's keys for `plugin` on `worker`: Kafka Connect's, then
/// Copycat's own (without the keys the plugin defines itself).
pub fn framework(plugin: &Plugin, worker: &WorkerConfig) -> Vec<KeyInfo> {
    let mut out: Vec<KeyInfo> = KAFKA_CONNECT
        .iter()
        .filter(|d| d.scope.covers(plugin.kind))
        .map(|d| {
            let mut k = KeyInfo::from_def(d);
            k.recommended = recommended(d.name, plugin);
            if d.name == "connector.plugin.version" {
                k.default = Some(plugin.version.clone());
            }
            k
        })
        .collect();
    let groups: [(&str, &[Own], bool); 5] = [
        ("Copycat Sandbox", SANDBOX, true),
        ("Copycat Limits", LIMITS, true),
        ("Copycat Restart", RESTART, true),
        ("Copycat Polling", POLLING, true),
        ("Copycat Delivery", DELIVERY, plugin.kind != Kind::Sink),
    ];
    for (group, keys, applies) in groups {
        if !applies {
            continue;
        }
        let mut order = 0;
        for &(name, type_, importance, doc, display) in keys {
            if plugin.keys.iter().any(|k| k.name == name) {
                continue;
            }
            order += 1;
            out.push(KeyInfo {
                name: name.to_owned(),
                type_,
                required: false,
                default: own_default(name, worker),
                importance,
                documentation: doc.to_owned(),
                group: Some(group.to_owned()),
                order,
                width: "MEDIUM",
                display_name: display.to_owned(),
                recommended: recommended(name, plugin),
            });
        }
    }
    out
}

/// The values validation recommends for a framework key: those Copycat
/// accepts where it accepts a few.
fn recommended(name: &str, plugin: &Plugin) -> Vec<String> {
    let list = |v: &[&str]| -> Vec<String> { v.iter().map(|s| (*s).to_owned()).collect() };
    match name {
        "connector.plugin.version" => plugin.versions.clone(),
        "key.converter" | "value.converter" => list(&super::converters::class_names(false)),
        "header.converter" => list(&super::converters::class_names(true)),
        "tasks.max.enforce" => list(&["true"]),
        "config.action.reload" => list(&["restart", "none"]),
        "errors.tolerance" => list(&["none", "all"]),
        "errors.log.enable" | "errors.log.include.messages" | "errors.deadletterqueue.context.headers.enable" => {
            list(&["true", "false"])
        }
        "exactly.once.support" => list(&["requested", "required"]),
        "transaction.boundary" => list(&["poll", "interval", "connector"]),
        "delivery.guarantee" => list(&["at-most-once", "at-least-once", "exactly-once"]),
        _ => Vec::new(),
    }
}

/// The plugin's own keys but those Kafka Connect's framework defines for
/// its kind (a sink's `topics`, say): the framework's definition of those
/// is the one listed.
fn own_keys(plugin: &Plugin) -> impl Iterator<Item = &KeyInfo> {
    plugin.keys.iter().filter(|k| {
        !KAFKA_CONNECT
            .iter()
            .any(|d| d.name == k.name && d.scope.covers(plugin.kind))
    })
}

/// `GET /connector-plugins/{p}/config`: the plugin's keys, then the
/// framework's (Kafka Connect's order).
pub fn config_definitions(plugin: &Plugin, worker: &WorkerConfig) -> Vec<KeyInfo> {
    let mut out: Vec<KeyInfo> = own_keys(plugin).cloned().collect();
    out.extend(framework(plugin, worker));
    out
}

fn transform_key(k: &copycat_transforms::KeyDef, prefix: &str, group: &str, order: i32) -> KeyInfo {
    KeyInfo {
        name: format!("{prefix}{}", k.name),
        type_: k.kind.name(),
        required: k.required(),
        default: k.default_text().map(str::to_owned),
        importance: k.importance.name(),
        documentation: k.doc.to_owned(),
        group: Some(group.to_owned()),
        order,
        width: "NONE",
        display_name: k.name.to_owned(),
        recommended: Vec::new(),
    }
}

/// The keys of the transforms (`predicates = false`) or predicates a
/// config names, in "Transforms: <alias>" ("Predicates: <alias>") groups:
/// `type`, the class's own settings, and a transform's `negate` and
/// `predicate`, with Kafka Connect's text and order (its `plugin.version`,
/// order 1, is only a transform component's in Copycat and is not listed).
pub fn chain_keys(props: &Props, predicates: bool) -> Vec<KeyInfo> {
    let (list, what, label) = if predicates {
        ("predicates", "predicate", "Predicates")
    } else {
        ("transforms", "transformation", "Transforms")
    };
    let aliases: Vec<&str> = props
        .get(list)
        .map(|v| v.split(',').map(str::trim).filter(|a| !a.is_empty()).collect())
        .unwrap_or_default();
    let classes: Vec<String> = copycat_transforms::registry::all()
        .into_iter()
        .filter(|p| p.is_predicate() == predicates)
        .map(|p| p.class.to_owned())
        .collect();
    let mut out = Vec::new();
    for alias in aliases {
        let prefix = format!("{list}.{alias}.");
        let group = format!("{label}: {alias}");
        let title = if predicates { "Predicate" } else { "Transformation" };
        out.push(KeyInfo {
            name: format!("{prefix}type"),
            type_: "CLASS",
            required: true,
            default: None,
            importance: "HIGH",
            documentation: format!("Class for the '{alias}' {what}."),
            group: Some(group.clone()),
            order: 0,
            width: "LONG",
            display_name: format!("{title} type for {alias}"),
            recommended: classes.clone(),
        });
        let mut order = 2;
        if let Some(plugin) = props
            .get(&format!("{prefix}type"))
            .and_then(|t| copycat_transforms::registry::find(t.trim()))
        {
            for k in plugin.config {
                out.push(transform_key(k, &prefix, &group, order));
                order += 1;
            }
        }
        if !predicates {
            let mut negate = KeyInfo::plugin_key(
                &format!("{prefix}negate"),
                "BOOLEAN",
                false,
                Some("false".to_owned()),
                "MEDIUM",
                "Whether the configured predicate should be negated.",
            );
            let mut predicate = KeyInfo::plugin_key(
                &format!("{prefix}predicate"),
                "STRING",
                false,
                None,
                "MEDIUM",
                "The alias of a predicate used to determine whether to apply this transformation.",
            );
            for (k, display) in [(&mut negate, "negate"), (&mut predicate, "predicate")] {
                k.group = Some(group.clone());
                k.order = order;
                k.display_name = display.to_owned();
                order += 1;
            }
            out.push(negate);
            out.push(predicate);
        }
    }
    out
}

/// What the worker's converter `key` is when a config names none.
fn converter_default(key: &str, worker: &WorkerConfig) -> Option<&'static str> {
    let c = &worker.converters;
    match key {
        "key.converter" => Some(c.key.class.class_name()),
        "value.converter" => Some(c.value.class.class_name()),
        "header.converter" => Some(c.header.class.class_name()),
        _ => None,
    }
}

/// `PUT /connector-plugins/{p}/config/validate`'s answer, Kafka Connect's
/// ConfigInfos: `name` (the connector class), every definition (the
/// converters' defaults being the worker's converters here, as in Kafka
/// Connect's validation; the
/// framework's, the transforms' and predicates' the config names, the
/// plugin's) with its value, the recommended values and the `problems`
/// under their key; a key with problems that no definition lists gets an
/// entry of its own. `hidden`: keys whose value is never echoed.
pub fn validation(
    name: &str,
    plugin: &Plugin,
    worker: &WorkerConfig,
    props: &Props,
    problems: &[(String, String)],
    hidden: impl Fn(&str) -> bool,
) -> Value {
    let mut defs = framework(plugin, worker);
    // As Kafka Connect validates: a converter's default is the worker's.
    for d in &mut defs {
        if let Some(class) = converter_default(&d.name, worker) {
            d.default = Some(class.to_owned());
        }
    }
    defs.extend(chain_keys(props, false));
    defs.extend(chain_keys(props, true));
    defs.extend(own_keys(plugin).cloned());
    for (key, _) in problems {
        if !defs.iter().any(|d| d.name == *key) {
            defs.push(KeyInfo::plugin_key(key, "STRING", false, None, "HIGH", ""));
        }
    }
    let mut groups: Vec<&str> = Vec::new();
    for g in defs.iter().filter_map(|d| d.group.as_deref()) {
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let configs: Vec<Value> = defs
        .iter()
        .map(|d| {
            let value = match props.get(&d.name) {
                Some(_) if hidden(&d.name) || d.type_ == "PASSWORD" => Some("[hidden]".to_owned()),
                Some(v) => Some(v.clone()),
                None => d.default.clone(),
            };
            let errors: Vec<&str> = problems
                .iter()
                .filter(|(k, _)| *k == d.name)
                .map(|(_, m)| m.as_str())
                .collect();
            json!({
                "definition": d.to_json(),
                "value": {
                    "name": d.name,
                    "value": value,
                    "recommended_values": d.recommended,
                    "errors": errors,
                    "visible": true,
                },
            })
        })
        .collect();
    json!({
        "name": name,
        "error_count": problems.len(),
        "groups": groups,
        "configs": configs,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn plugin(kind: Kind) -> Plugin {
        Plugin {
            kind,
            version: "1.2.3".into(),
            versions: vec!["1.0.0".into(), "1.2.3".into()],
            keys: vec![KeyInfo::plugin_key("topic", "STRING", true, None, "HIGH", "Where to")],
        }
    }

    fn names(keys: &[KeyInfo]) -> Vec<&str> {
        keys.iter().map(|k| k.name.as_str()).collect()
    }

    #[test]
    fn sources_and_sinks_get_their_own_framework_keys() {
        let worker = WorkerConfig::for_bootstrap("b:9092").unwrap();
        let source = config_definitions(&plugin(Kind::Source), &worker);
        let sink = config_definitions(&plugin(Kind::Sink), &worker);
        assert_eq!(source[0].name, "topic", "the plugin's keys first");
        assert_eq!(source[0].group, None);
        for k in [
            "exactly.once.support",
            "topic.creation.groups",
            "delivery.guarantee",
            "grants.fs.read",
        ] {
            assert!(names(&source).contains(&k), "{k}");
        }
        for k in [
            "topics",
            "topics.regex",
            "errors.deadletterqueue.topic.name",
            "grants.fs.read",
        ] {
            assert!(names(&sink).contains(&k), "{k}");
            assert!(!names(&source).contains(&k) || k.starts_with("grants"), "{k}");
        }
        assert!(!names(&sink).contains(&"exactly.once.support"));
        assert_eq!(
            source.iter().filter(|k| k.name == "topic").count(),
            1,
            "a key the plugin defines is not repeated"
        );
        let version = source.iter().find(|k| k.name == "connector.plugin.version").unwrap();
        assert_eq!(version.default.as_deref(), Some("1.2.3"));
        let memory = source.iter().find(|k| k.name == "task.memory.max.bytes").unwrap();
        assert_eq!(memory.group.as_deref(), Some("Copycat Limits"));
        assert_eq!(memory.default, Some(worker.limits.memory_bytes.to_string()));
        let name = &source[1];
        assert_eq!((name.name.as_str(), name.required, name.order), ("name", true, 1));
    }

    #[test]
    fn validation_puts_errors_under_their_key_and_lists_the_chain() {
        let worker = WorkerConfig::for_bootstrap("b:9092").unwrap();
        let props: Props = [
            ("transforms", "route"),
            (
                "transforms.route.type",
                "org.apache.kafka.connect.transforms.RegexRouter",
            ),
            ("predicates", "tomb"),
            ("predicates.tomb.type", "RecordIsTombstone"),
            ("grants.env", "SECRET"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let problems = vec![
            ("tasks.max".to_owned(), "must be at least 1".to_owned()),
            ("producer.override.x".to_owned(), "unknown".to_owned()),
        ];
        let v = validation("c", &plugin(Kind::Source), &worker, &props, &problems, |k| {
            k == "grants.env"
        });
        assert_eq!(v["error_count"], json!(2));
        let groups: Vec<&str> = v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        assert_eq!(&groups[..3], ["Common", "Transforms", "Predicates"]);
        assert!(
            groups.contains(&"Transforms: route") && groups.contains(&"Predicates: tomb"),
            "{groups:?}"
        );
        assert!(groups.contains(&"Copycat Sandbox"), "{groups:?}");
        let entry = |key: &str| {
            v["configs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["definition"]["name"] == json!(key))
                .cloned()
                .unwrap_or_else(|| panic!("{key} missing"))
        };
        assert_eq!(entry("tasks.max")["value"]["errors"], json!(["must be at least 1"]));
        assert_eq!(entry("producer.override.x")["value"]["errors"], json!(["unknown"]));
        assert_eq!(entry("name")["value"]["errors"], json!([]));
        assert_eq!(
            entry("transforms.route.regex")["definition"]["group"],
            json!("Transforms: route")
        );
        assert_eq!(
            entry("transforms.route.regex")["definition"]["order_in_group"],
            json!(2)
        );
        assert_eq!(
            entry("transforms.route.predicate")["definition"]["order_in_group"],
            json!(5)
        );
        assert_eq!(entry("grants.env")["value"]["value"], json!("[hidden]"));
        assert_eq!(
            entry("errors.tolerance")["value"]["value"],
            json!("none"),
            "the default"
        );
        assert_eq!(
            entry("errors.tolerance")["value"]["recommended_values"],
            json!(["none", "all"])
        );
        assert_eq!(
            entry("header.converter")["value"]["value"],
            json!("org.apache.kafka.connect.storage.SimpleHeaderConverter"),
            "the worker's converter"
        );
    }
}
