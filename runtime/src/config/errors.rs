//! A connector's error handling (Kafka Connect's `errors.*` keys, KIP-298):
//! whether a record that fails a stage fails the task or is skipped,
//! how long retriable failures are retried, whether failures are logged,
//! and the dead letter queue failed records go to. Same names, defaults
//! and meaning as Kafka Connect 4.4; a dead letter queue on a source
//! connector is Copycat's extension.

use std::time::Duration;

use super::reader::Reader;

/// `errors.tolerance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tolerance {
    /// `none`: the first failed record fails the task.
    #[default]
    None,
    /// `all`: failed records are skipped (and logged, and sent to the dead
    /// letter queue, if configured); the task goes on.
    All,
}

/// `errors.deadletterqueue.*`: where failed records go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetterQueue {
    /// `errors.deadletterqueue.topic.name`.
    pub topic: String,
    /// `errors.deadletterqueue.topic.replication.factor` (-1: the broker's
    /// default), used if the worker creates the topic.
    pub replication_factor: i16,
    /// `errors.deadletterqueue.context.headers.enable`: add the
    /// `__connect.errors.*` headers.
    pub context_headers: bool,
}

/// A connector's `errors.*` settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorsConfig {
    /// `errors.tolerance`.
    pub tolerance: Tolerance,
    /// `errors.retry.timeout`: how long a retriable failure is retried;
    /// `None`: without end (`-1`). Zero: not retried.
    pub retry_timeout: Option<Duration>,
    /// How long a connector's retriable error (from `put` or `poll`) is
    /// retried before the task fails: `errors.retry.timeout` when it is
    /// set; else `None`, without end (as Kafka Connect retries `put`).
    pub task_retry_timeout: Option<Duration>,
    /// `errors.retry.delay.max.ms`: the longest pause between retries.
    pub retry_delay_max: Duration,
    /// `errors.log.enable`.
    pub log: bool,
    /// `errors.log.include.messages`.
    pub log_messages: bool,
    /// The dead letter queue, if `errors.deadletterqueue.topic.name` is set.
    pub dead_letter_queue: Option<DeadLetterQueue>,
}

impl Default for ErrorsConfig {
    fn default() -> Self {
        Self {
            tolerance: Tolerance::None,
            retry_timeout: Some(Duration::ZERO),
            task_retry_timeout: None,
            retry_delay_max: Duration::from_millis(60_000),
            log: false,
            log_messages: false,
            dead_letter_queue: None,
        }
    }
}

fn boolean(r: &mut Reader<'_>, key: &str) -> bool {
    match r.str(key).map(|v| v.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) if v == "true" => true,
        Some(v) if v == "false" => false,
        Some(v) => {
            r.problems
                .push((key.to_owned(), format!("invalid value '{v}': expected true or false")));
            false
        }
    }
}

impl ErrorsConfig {
    /// Read the `errors.*` keys; problems name the key. `consumed`: the
    /// topics a sink consumes (the dead letter queue must not be one).
    pub(crate) fn read(r: &mut Reader<'_>, consumed: &[String], consumed_regex: Option<&regex::Regex>) -> Self {
        let tolerance = match r.str("errors.tolerance").map(|v| v.trim().to_ascii_lowercase()) {
            None => Tolerance::None,
            Some(v) if v == "none" => Tolerance::None,
            Some(v) if v == "all" => Tolerance::All,
            Some(v) => {
                r.problems.push((
                    "errors.tolerance".into(),
                    format!("invalid value '{v}': expected one of none, all"),
                ));
                Tolerance::None
            }
        };
        let timeout: i64 = r.parse("errors.retry.timeout", 0);
        let retry_timeout = match timeout {
            -1 => None,
            t if t >= 0 => Some(Duration::from_millis(t as u64)),
            t => {
                r.problems.push((
                    "errors.retry.timeout".into(),
                    format!("invalid value '{t}': must be -1 (retry without end) or at least 0"),
                ));
                Some(Duration::ZERO)
            }
        };
        let task_retry_timeout = if r.str("errors.retry.timeout").is_some() {
            retry_timeout
        } else {
            None
        };
        let delay: i64 = r.parse("errors.retry.delay.max.ms", 60_000);
        if delay < 0 {
            r.problems.push((
                "errors.retry.delay.max.ms".into(),
                format!("invalid value '{delay}': must be at least 0"),
            ));
        }
        let log = boolean(r, "errors.log.enable");
        let log_messages = boolean(r, "errors.log.include.messages");
        let context_headers = boolean(r, "errors.deadletterqueue.context.headers.enable");
        let replication_factor: i16 = r.parse("errors.deadletterqueue.topic.replication.factor", 3);
        if replication_factor == 0 || replication_factor < -1 {
            r.problems.push((
                "errors.deadletterqueue.topic.replication.factor".into(),
                format!("invalid value '{replication_factor}': must be -1 (the broker's default) or at least 1"),
            ));
        }
        let dead_letter_queue = r
            .str("errors.deadletterqueue.topic.name")
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|topic| DeadLetterQueue {
                topic: topic.to_owned(),
                replication_factor,
                context_headers,
            });
        if let Some(dlq) = &dead_letter_queue {
            let key = "errors.deadletterqueue.topic.name";
            if let Some(e) = crate::util::invalid_topic_name(&dlq.topic) {
                r.problems
                    .push((key.into(), format!("'{}' is not a valid topic name: {e}", dlq.topic)));
            }
            if consumed.iter().any(|t| t == &dlq.topic) {
                r.problems.push((
                    key.into(),
                    format!(
                        "the dead letter queue topic '{}' may not be one of the topics the connector consumes (topics)",
                        dlq.topic
                    ),
                ));
            }
            if consumed_regex.is_some_and(|re| re.is_match(&dlq.topic)) {
                r.problems.push((
                    key.into(),
                    format!(
                        "the dead letter queue topic '{}' may not be matched by the pattern of topics the connector consumes (topics.regex)",
                        dlq.topic
                    ),
                ));
            }
        }
        Self {
            tolerance,
            retry_timeout,
            task_retry_timeout,
            retry_delay_max: Duration::from_millis(delay.max(0) as u64),
            log,
            log_messages,
            dead_letter_queue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connector::Props;

    fn read(pairs: &[(&str, &str)], topics: &[&str]) -> (ErrorsConfig, Vec<String>) {
        let props: Props = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let mut r = Reader::new(&props);
        let topics: Vec<String> = topics.iter().map(|t| (*t).to_owned()).collect();
        let c = ErrorsConfig::read(&mut r, &topics, None);
        (c, r.problems.into_iter().map(|(k, _)| k).collect())
    }

    #[test]
    fn kafka_connects_defaults() {
        let (c, problems) = read(&[], &[]);
        assert!(problems.is_empty());
        assert_eq!(c, ErrorsConfig::default());
    }

    #[test]
    fn every_key_is_read_and_bad_values_name_their_key() {
        let (c, problems) = read(
            &[
                ("errors.tolerance", "ALL"),
                ("errors.retry.timeout", "-1"),
                ("errors.retry.delay.max.ms", "500"),
                ("errors.log.enable", "true"),
                ("errors.log.include.messages", "true"),
                ("errors.deadletterqueue.topic.name", "dlq"),
                ("errors.deadletterqueue.topic.replication.factor", "1"),
                ("errors.deadletterqueue.context.headers.enable", "true"),
            ],
            &["in"],
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.tolerance, Tolerance::All);
        assert_eq!(c.retry_timeout, None);
        assert_eq!(c.retry_delay_max, Duration::from_millis(500));
        assert!(c.log && c.log_messages);
        assert_eq!(
            c.dead_letter_queue,
            Some(DeadLetterQueue {
                topic: "dlq".into(),
                replication_factor: 1,
                context_headers: true
            })
        );
        let (_, problems) = read(
            &[
                ("errors.tolerance", "some"),
                ("errors.retry.timeout", "-2"),
                ("errors.log.enable", "yes"),
                ("errors.deadletterqueue.topic.name", "in"),
                ("errors.deadletterqueue.topic.replication.factor", "0"),
            ],
            &["in"],
        );
        assert_eq!(
            problems,
            [
                "errors.tolerance",
                "errors.retry.timeout",
                "errors.log.enable",
                "errors.deadletterqueue.topic.replication.factor",
                "errors.deadletterqueue.topic.name",
            ]
        );
    }
}
