//! `http-sink`: a sink connector that sends record values to an HTTP
//! endpoint (`http.url`) with `http.method` (POST, PUT or PATCH): one value
//! a request, or with `batch.max.size` above 1 up to that many values a
//! request (a JSON array, or lines with `request.body.format=string`).
//! Contract `copycat:connector@0.3.0`; requests go out over `wasi:http`
//! (the `wstd` client), only to the host and port `grants.http.hosts`
//! names.
//!
//! - A 2xx answer delivers a request's records.
//! - Transport failures, 408, 429 and 5xx are retried, up to
//!   `max.retries` times, after `retry.backoff.ms` doubled at each retry
//!   (at most `retry.backoff.max.ms`), or later if the answer's
//!   `Retry-After` (seconds or an HTTP date) asks for more. After the last,
//!   `put` fails with a retriable error: the host redelivers the batch (for
//!   at most `errors.retry.timeout`, if set) and the records already
//!   delivered are skipped.
//! - Any other answer (4xx, 3xx) reports the request's record errant (the
//!   reason: the status and the start of the body), so the host sends it to
//!   the dead letter queue and, with `errors.tolerance=all`, goes on; a
//!   refused request of several records is sent again one record a request
//!   first, so that only the records refused alone are reported.
//! - A denied request (no grant) fails the task with the grant to add; a
//!   failed TLS handshake fails it with the reason (the worker trusts the
//!   public web PKI's roots only).
//!
//! `put` returns once every record is delivered or reported, so the
//! offsets the host commits after `flush` are of delivered records only:
//! at-least-once. See [`send`] for the invariants, docs/connectors/http-sink.md
//! for the keys.

pub mod body;
pub mod send;
pub mod settings;
#[cfg(target_arch = "wasm32")]
mod wasi;

use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Error, Importance, PluginInfo, SinkBatch, SinkRecord, SinkTask,
    TopicPartition, TopicPartitionOffset,
};

use crate::send::Sender;
use crate::settings::Settings;

#[cfg(target_arch = "wasm32")]
type Net = wasi::WasiHttp;
#[cfg(not(target_arch = "wasm32"))]
type Net = Offline;

/// Off WebAssembly there is no `wasi:http`: every request fails (unit
/// tests drive [`Sender`] with their own transport).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default)]
pub struct Offline;

#[cfg(not(target_arch = "wasm32"))]
impl send::Transport for Offline {
    fn send(&mut self, _: &send::Request<'_>) -> Result<send::Answer, send::Failure> {
        Err(send::Failure::Transport(
            "wasi:http exists only in the component".to_owned(),
        ))
    }
    fn sleep(&mut self, pause: std::time::Duration) {
        std::thread::sleep(pause);
    }
    fn now(&self) -> std::time::Instant {
        std::time::Instant::now()
    }
    fn unix_now(&self) -> i64 {
        0
    }
}

/// The http-sink connector.
pub struct HttpSink;

impl Connector for HttpSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("http-sink", env!("CARGO_PKG_VERSION"))
            .description(
                "Sends record values to an HTTP endpoint, one a request or batched as a JSON array; \
                 retries 5xx and 429 (Retry-After), reports refused records errant",
            )
            .config(
                ConfigKey::string("http.url")
                    .required()
                    .importance(Importance::High)
                    .doc(
                        "The endpoint, http://host[:port]/path or https://... Grant its host and port with \
                 grants.http.hosts=host:port",
                    ),
            )
            .config(
                ConfigKey::string("http.method")
                    .default_value("POST")
                    .doc("POST, PUT or PATCH"),
            )
            .config(ConfigKey::string("http.headers").doc(
                "Headers of every request, Name:Value pairs separated by | (Content-Type defaults to \
                 application/json, or text/plain with request.body.format=string)",
            ))
            .config(
                ConfigKey::password("http.authorization")
                    .importance(Importance::High)
                    .doc(
                        "The Authorization header's value, e.g. Bearer <token>; a config provider reference \
                 (${file:/path:key}) keeps the secret out of the config",
                    ),
            )
            .config(ConfigKey::string("request.body.format").default_value("json").doc(
                "How typed values are written: json (as JsonConverter writes them with \
                 schemas.enable=false and decimal.format=NUMERIC) or string (Java's toString()). \
                 Raw values (ByteArrayConverter) are sent as they are; null values are not sent",
            ))
            .config(ConfigKey::int("batch.max.size").default_value("1").doc(
                "Records per request: 1 sends the value alone; above, a JSON array of up to this many \
                 values (json) or the values one per line (string)",
            ))
            .config(ConfigKey::int("max.retries").default_value("10").doc(
                "Retries of a request that failed to connect or was answered 408, 429 or 5xx; then the \
                 put fails with a retriable error and the host redelivers the batch (bounded by \
                 errors.retry.timeout)",
            ))
            .config(
                ConfigKey::long("retry.backoff.ms")
                    .default_value("1000")
                    .doc("The pause before the first retry, doubled at each retry; a longer Retry-After wins"),
            )
            .config(
                ConfigKey::long("retry.backoff.max.ms")
                    .default_value("30000")
                    .doc("The longest pause retry.backoff.ms grows to"),
            )
            .config(ConfigKey::long("http.timeout.ms").default_value("5000").doc(
                "Connect, first-byte and between-bytes timeout of a request; at most 80% of \
                 task.call.timeout.ms",
            ))
            .config(
                ConfigKey::list("topics")
                    .importance(Importance::High)
                    .doc("Topics to consume (read by the worker)"),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        Settings::parse(config).err().unwrap_or_default()
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        // The consumer group spreads the topic partitions over the tasks.
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

/// An http-sink task.
pub struct HttpSinkTask {
    sender: Sender<Net>,
}

impl SinkTask for HttpSinkTask {
    fn start(config: Config) -> Result<Self, Error> {
        let settings = Settings::parse(&config).map_err(|problems| {
            let all: Vec<String> = problems
                .iter()
                .map(|p| format!("config '{}': {}", p.key, p.message))
                .collect();
            Error::config(all.join("; "))
        })?;
        Ok(Self {
            sender: Sender::new(settings, Net::default()),
        })
    }

    fn open(&mut self, _partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        Ok(Vec::new())
    }

    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        self.put_batch(&SinkBatch::from_records(&records)?)
    }

    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        self.sender.put(batch)
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        // `put` returned only once its records were delivered or reported.
        Ok(())
    }

    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        self.sender.close(&partitions);
        Ok(())
    }
}

copycat_sdk::v0_3::export_sink!(HttpSink, HttpSinkTask);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn bad_config_at_start_is_the_config_variant_naming_every_key() {
        let Err(e) = HttpSinkTask::start(Config::new().with("http.method", "GET")) else {
            panic!("started without http.url");
        };
        assert!(matches!(e, Error::Config(_)), "{e}");
        assert!(e.message().contains("config 'http.url': missing"), "{e}");
        assert!(e.message().contains("config 'http.method'"), "{e}");
        assert!(HttpSink::validate(&Config::new().with("http.url", "http://h:1/")).is_empty());
        assert_eq!(HttpSink::task_configs(&Config::new(), 3).unwrap().len(), 3);
    }
}
