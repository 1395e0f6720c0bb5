//! What a task does with a `put`'s records: requests of up to
//! `batch.max.size` values, answers read, retries, errant reports. The
//! network and the clock are a [`Transport`] (`wasi:http` in the
//! component, a script in unit tests).
//!
//! Invariants:
//!
//! - `put` returns `Ok` only once every record it was given is delivered
//!   (a 2xx answer), reported errant, or has no value (a tombstone): the
//!   host commits offsets only of batches `put` returned `Ok` for, so no
//!   record is lost, and `flush` has nothing left to wait for.
//! - Per topic partition, `done` is the offset below which every record
//!   is delivered or reported; a batch the host redelivers after a
//!   retriable error skips them, so a record is neither sent nor reported
//!   twice by one task (a crash before the commit still resends them:
//!   at-least-once).
//! - A `put` keeps to `budget` (80% of the guest call deadline): a retry
//!   whose pause or a request whose time would not fit ends the `put`
//!   with a retriable error, and the host redelivers the batch; the pause
//!   still due (`not_before`, a `Retry-After`) and the retries counted
//!   carry over to it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use copycat_data::json::JsonConverter;
use copycat_sdk::v0_3::{Error, SinkBatch, SinkRecordRef, TopicPartition, log};
use http::header::{HeaderName, HeaderValue};
use http::uri::Uri;

use crate::body;
use crate::settings::{Method, Settings};

/// One request.
#[derive(Debug)]
pub struct Request<'a> {
    pub method: Method,
    pub url: &'a Uri,
    pub headers: &'a [(HeaderName, HeaderValue)],
    pub body: &'a [u8],
    /// Connect, first byte and between bytes.
    pub timeout: Duration,
}

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    /// The `Retry-After` header, as sent.
    pub retry_after: Option<String>,
    /// The start of the body, as text ([`excerpt`]).
    pub excerpt: String,
}

/// Why there is no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The host refused the request: `grants.http.hosts` does not name it.
    Denied,
    /// The TLS handshake failed (the server's certificate, most often).
    Tls(String),
    /// Connecting, sending or receiving failed, or timed out: retried.
    Transport(String),
}

/// The network and the clock.
pub trait Transport {
    fn send(&mut self, request: &Request<'_>) -> Result<Answer, Failure>;
    fn sleep(&mut self, pause: Duration);
    fn now(&self) -> Instant;
    /// Seconds since the Unix epoch (for a `Retry-After` date).
    fn unix_now(&self) -> i64;
}

/// The most of a response body quoted in a reason.
const EXCERPT_CHARS: usize = 256;

/// The start of a response body, as one line of text.
pub fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(EXCERPT_CHARS * 4)]);
    let mut out: String = text
        .chars()
        .take(EXCERPT_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() > EXCERPT_CHARS || body.len() > EXCERPT_CHARS * 4 {
        out.push('…');
    }
    out
}

/// Whether an answer is worth sending the same request again: 408, 429
/// and 5xx.
fn retryable(status: u16) -> bool {
    status == 408 || status == 429 || (500..=599).contains(&status)
}

/// The pause a `Retry-After` value asks for: delay-seconds, or an
/// HTTP-date (IMF-fixdate) relative to `unix_now`; `None` if unreadable.
pub fn retry_after(value: &str, unix_now: i64) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = http_date(value)?;
    Some(Duration::from_secs(u64::try_from(at - unix_now).unwrap_or(0)))
}

/// Seconds since the Unix epoch of an IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn http_date(value: &str) -> Option<i64> {
    let rest = value.split_once(", ")?.1;
    let mut it = rest.split(' ');
    let day: i64 = it.next()?.parse().ok()?;
    let month = match it.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = it.next()?.parse().ok()?;
    let mut hms = it.next()?.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if it.next()? != "GMT" || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

/// How one request ended.
enum Delivery {
    /// 2xx.
    Delivered,
    /// An answer that sending again cannot change (4xx but 408 and 429,
    /// 1xx, 3xx): why.
    Rejected(String),
}

/// A record waiting for its request, with its part of the body.
struct Pending<'a> {
    record: SinkRecordRef<'a>,
    part: Vec<u8>,
}

/// A task's sending state.
pub struct Sender<T> {
    settings: Settings,
    transport: T,
    json: JsonConverter,
    /// Per partition: every record below this offset is delivered or
    /// reported errant.
    done: BTreeMap<TopicPartition, i64>,
    /// Retries made of the request at the head (the first record not
    /// done) in this round of `max.retries`.
    attempts: u32,
    /// The head request is not sent again before this.
    not_before: Option<Instant>,
}

impl<T: Transport> Sender<T> {
    pub fn new(settings: Settings, transport: T) -> Self {
        Self {
            settings,
            transport,
            json: body::json_converter(),
            done: BTreeMap::new(),
            attempts: 0,
            not_before: None,
        }
    }

    /// The transport (for tests).
    #[cfg(test)]
    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// Deliver every record of `batch` not yet done.
    pub fn put(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        let deadline = self.transport.now() + self.settings.budget;
        let mut chunk: Vec<Pending<'_>> = Vec::new();
        for run in batch.runs() {
            let tp = TopicPartition::new(run.topic, run.partition);
            let done = self.done.get(&tp).copied().unwrap_or(i64::MIN);
            for record in run.records {
                if record.offset < done {
                    continue;
                }
                match body::part(&record.value, self.settings.format, &self.json) {
                    Ok(Some(part)) => chunk.push(Pending { record, part }),
                    Ok(None) => continue,
                    Err(why) => {
                        // What precedes it first, so that `done` only moves
                        // past delivered records.
                        self.send_chunk(&mut chunk, deadline)?;
                        self.errant(&record, &why)?;
                        continue;
                    }
                }
                if chunk.len() >= self.settings.batch_max {
                    self.send_chunk(&mut chunk, deadline)?;
                }
            }
        }
        self.send_chunk(&mut chunk, deadline)
    }

    /// Forget what was done on `partitions` (revoked).
    pub fn close(&mut self, partitions: &[TopicPartition]) {
        for tp in partitions {
            self.done.remove(tp);
        }
    }

    fn mark_done(&mut self, record: &SinkRecordRef<'_>) {
        let next = record.offset.saturating_add(1);
        self.done
            .entry(TopicPartition::new(record.topic, record.partition))
            .and_modify(|o| *o = (*o).max(next))
            .or_insert(next);
    }

    /// Report `record` errant (the dead letter queue, with
    /// `errors.tolerance=all`); without a reporter the task fails naming it.
    fn errant(&mut self, record: &SinkRecordRef<'_>, why: &str) -> Result<(), Error> {
        record.report_errant(why).map_err(|e| {
            Error::fatal(format!(
                "the record at topic {} partition {} offset {}: {why}, and it could not be reported: {e}",
                record.topic, record.partition, record.offset
            ))
        })?;
        self.mark_done(record);
        Ok(())
    }

    /// Send `chunk` as one request; a rejected chunk of several records is
    /// sent again one record a request, so that only the records the
    /// server refuses are reported errant. Empties `chunk` once done.
    fn send_chunk(&mut self, chunk: &mut Vec<Pending<'_>>, deadline: Instant) -> Result<(), Error> {
        if chunk.is_empty() {
            return Ok(());
        }
        let batched = self.settings.batch_max > 1;
        let format = self.settings.format;
        let body = body::join(chunk.iter().map(|p| p.part.as_slice()), format, batched);
        match self.deliver(&body, chunk.len(), deadline)? {
            Delivery::Delivered => {
                for p in chunk.iter() {
                    self.mark_done(&p.record);
                }
            }
            Delivery::Rejected(why) if chunk.len() == 1 => {
                let record = chunk[0].record.clone();
                self.errant(&record, &why)?;
            }
            Delivery::Rejected(why) => {
                log::info(format!(
                    "a request of {} records was refused ({why}); sending them one a request",
                    chunk.len()
                ));
                for p in chunk.iter() {
                    let body = body::join(std::iter::once(p.part.as_slice()), format, batched);
                    match self.deliver(&body, 1, deadline)? {
                        Delivery::Delivered => self.mark_done(&p.record),
                        Delivery::Rejected(why) => self.errant(&p.record, &why)?,
                    }
                }
            }
        }
        chunk.clear();
        Ok(())
    }

    /// Send `body` until it is answered for good, retrying transport
    /// failures, 408, 429 and 5xx.
    fn deliver(&mut self, body: &[u8], records: usize, deadline: Instant) -> Result<Delivery, Error> {
        let s = &self.settings;
        let target = format!("{} {}", s.method.as_str(), s.url);
        loop {
            if let Some(at) = self.not_before {
                let now = self.transport.now();
                if at >= deadline {
                    return Err(Error::retriable(format!(
                        "{target}: the next attempt is due in {} ms, past this put's time budget ({} ms); \
                         the host redelivers the batch",
                        at.saturating_duration_since(now).as_millis(),
                        self.settings.budget.as_millis()
                    )));
                }
                if at > now {
                    self.transport.sleep(at - now);
                }
                self.not_before = None;
            }
            let left = deadline.saturating_duration_since(self.transport.now());
            if left < MIN_REQUEST_TIME {
                return Err(Error::retriable(format!(
                    "this put's time budget ({} ms) is used up; the host redelivers the records not yet sent",
                    self.settings.budget.as_millis()
                )));
            }
            let request = Request {
                method: self.settings.method,
                url: &self.settings.url,
                headers: &self.settings.headers,
                body,
                timeout: self.settings.timeout.min(left),
            };
            let (why, asked) = match self.transport.send(&request) {
                Ok(a) if (200..=299).contains(&a.status) => {
                    self.attempts = 0;
                    return Ok(Delivery::Delivered);
                }
                Ok(a) => {
                    let why = format!("HTTP {}{} from {target}: {}", a.status, reason(a.status), a.excerpt);
                    if !retryable(a.status) {
                        self.attempts = 0;
                        return Ok(Delivery::Rejected(why));
                    }
                    let unix_now = self.transport.unix_now();
                    (why, a.retry_after.and_then(|v| retry_after(&v, unix_now)))
                }
                Err(Failure::Denied) => {
                    let authority = &self.settings.authority;
                    return Err(Error::config(format!(
                        "the request to {authority} was denied by the sandbox: grant it in the \
                         connector config with grants.http.hosts={authority}"
                    )));
                }
                Err(Failure::Tls(e)) => {
                    return Err(Error::fatal(format!(
                        "{target}: TLS failed ({e}); the worker verifies servers against the public \
                         web PKI's roots (webpki-roots): a certificate of a private CA or a \
                         self-signed one is refused"
                    )));
                }
                Err(Failure::Transport(e)) => (format!("{target} failed: {e}"), None),
            };
            self.attempts += 1;
            let pause = self.backoff(self.attempts).max(asked.unwrap_or_default());
            self.not_before = Some(self.transport.now() + pause);
            if self.attempts > self.settings.max_retries {
                self.attempts = 0;
                return Err(Error::retriable(format!(
                    "{why}; still failing after {} retries of a request of {records} records: the host \
                     redelivers the batch (errors.retry.timeout bounds for how long)",
                    self.settings.max_retries
                )));
            }
            log::warn(format!(
                "{why}; retry {} of {} in {} ms",
                self.attempts,
                self.settings.max_retries,
                pause.as_millis()
            ));
        }
    }

    /// The pause before retry `n` (from 1): `retry.backoff.ms` doubled at
    /// each retry, at most `retry.backoff.max.ms`.
    fn backoff(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.saturating_sub(1).min(31)).unwrap_or(u32::MAX);
        self.settings
            .backoff
            .saturating_mul(factor)
            .min(self.settings.backoff_max)
    }
}

/// Below this, a request is not started in a `put`'s budget.
const MIN_REQUEST_TIME: Duration = Duration::from_millis(50);

/// ` Reason` of a status, for messages.
fn reason(status: u16) -> String {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|r| format!(" {r}"))
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use std::collections::VecDeque;

    use copycat_sdk::errant;
    use copycat_sdk::v0_3::{Config, Schema, SchemaBuilder, SinkRecord, Struct, Value};

    use super::*;

    /// Answers in order (then 200), time that moves only by sleeps and a
    /// fixed cost per request.
    struct Script {
        answers: VecDeque<Result<Answer, Failure>>,
        /// Answer 400 to a body containing this.
        refuse: Option<&'static str>,
        sent: Vec<(Duration, String)>,
        slept: Vec<Duration>,
        base: Instant,
        elapsed: Duration,
        per_request: Duration,
    }

    impl Script {
        fn new(answers: Vec<Result<Answer, Failure>>) -> Self {
            Self {
                answers: answers.into(),
                refuse: None,
                sent: Vec::new(),
                slept: Vec::new(),
                base: Instant::now(),
                elapsed: Duration::ZERO,
                per_request: Duration::from_millis(1),
            }
        }
        fn bodies(&self) -> Vec<&str> {
            self.sent.iter().map(|(_, b)| b.as_str()).collect()
        }
    }

    fn status(status: u16) -> Result<Answer, Failure> {
        Ok(Answer {
            status,
            retry_after: None,
            excerpt: format!("body of {status}"),
        })
    }

    impl Transport for Script {
        fn send(&mut self, request: &Request<'_>) -> Result<Answer, Failure> {
            let body = String::from_utf8(request.body.to_vec()).unwrap();
            self.sent.push((self.elapsed, body.clone()));
            self.elapsed += self.per_request;
            if self.refuse.is_some_and(|r| body.contains(r)) {
                return status(400);
            }
            self.answers.pop_front().unwrap_or_else(|| status(200))
        }
        fn sleep(&mut self, pause: Duration) {
            self.slept.push(pause);
            self.elapsed += pause;
        }
        fn now(&self) -> Instant {
            self.base + self.elapsed
        }
        fn unix_now(&self) -> i64 {
            1_700_000_000 + i64::try_from(self.elapsed.as_secs()).unwrap()
        }
    }

    fn sender(pairs: &[(&str, &str)], script: Script) -> Sender<Script> {
        let config = pairs.iter().fold(
            Config::new().with("http.url", "http://127.0.0.1:8080/in"),
            |c, (k, v)| c.with(*k, *v),
        );
        Sender::new(Settings::parse(&config).unwrap(), script)
    }

    fn records(values: &[&str]) -> SinkBatch {
        let records: Vec<SinkRecord> = values
            .iter()
            .enumerate()
            .map(|(i, v)| SinkRecord::new("t", 0, i as i64).value(v.as_bytes()))
            .collect();
        SinkBatch::from_records(&records).unwrap()
    }

    #[test]
    fn one_value_a_request_or_json_arrays() {
        let mut s = sender(&[], Script::new(vec![]));
        s.put(&records(&["1", "{\"a\":2}", "3"])).unwrap();
        assert_eq!(s.transport().bodies(), ["1", "{\"a\":2}", "3"]);
        let mut s = sender(&[("batch.max.size", "2")], Script::new(vec![]));
        s.put(&records(&["1", "{\"a\":2}", "3"])).unwrap();
        assert_eq!(s.transport().bodies(), ["[1,{\"a\":2}]", "[3]"]);
    }

    #[test]
    fn typed_values_are_json_or_java_strings_and_tombstones_are_skipped() {
        let schema: Schema = SchemaBuilder::structure()
            .field("id", Schema::int64())
            .unwrap()
            .field("name", Schema::string())
            .unwrap()
            .build();
        let value = Value::Struct(
            Struct::new(&schema)
                .unwrap()
                .put("id", 7i64)
                .unwrap()
                .put("name", "seven")
                .unwrap(),
        );
        let batch = SinkBatch::from_records(&[
            SinkRecord::new("t", 0, 0).value((schema.clone(), value.clone())),
            SinkRecord::new("t", 0, 1),
            SinkRecord::new("t", 0, 2).value((schema, value)),
        ])
        .unwrap();
        let mut s = sender(&[("batch.max.size", "5")], Script::new(vec![]));
        s.put(&batch).unwrap();
        assert_eq!(
            s.transport().bodies(),
            [r#"[{"id":7,"name":"seven"},{"id":7,"name":"seven"}]"#]
        );
        let mut s = sender(&[("request.body.format", "string")], Script::new(vec![]));
        s.put(&batch).unwrap();
        assert_eq!(s.transport().bodies(), ["Struct{id=7,name=seven}"; 2]);
    }

    #[test]
    fn retries_5xx_with_exponential_backoff_then_hands_over_to_the_host() {
        let script = Script::new(vec![status(503), status(500), status(200)]);
        let mut s = sender(&[("retry.backoff.ms", "100")], script);
        s.put(&records(&["a"])).unwrap();
        assert_eq!(
            s.transport().slept,
            [Duration::from_millis(100), Duration::from_millis(200)]
        );
        assert_eq!(s.transport().sent.len(), 3);

        // Retries exhausted: retriable, and the redelivered batch starts
        // after what was delivered.
        let script = Script::new(vec![status(200), status(502), status(502), status(502)]);
        let mut s = sender(&[("retry.backoff.ms", "10"), ("max.retries", "2")], script);
        let e = s.put(&records(&["a", "b", "c"])).unwrap_err();
        assert!(e.is_retriable(), "{e}");
        assert!(
            e.message()
                .contains("HTTP 502 Bad Gateway from POST http://127.0.0.1:8080/in: body of 502"),
            "{e}"
        );
        assert!(e.message().contains("after 2 retries"), "{e}");
        s.put(&records(&["a", "b", "c"])).unwrap();
        assert_eq!(s.transport().bodies(), ["a", "b", "b", "b", "b", "c"]);
    }

    #[test]
    fn retry_after_seconds_or_date_is_honoured() {
        let mut answer = status(429).unwrap();
        answer.retry_after = Some("2".into());
        let mut dated = status(503).unwrap();
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT; 3 s later.
        dated.retry_after = Some("Tue, 14 Nov 2023 22:13:23 GMT".into());
        let mut s = sender(&[("retry.backoff.ms", "10")], Script::new(vec![Ok(answer), Ok(dated)]));
        s.put(&records(&["a"])).unwrap();
        let slept = &s.transport().slept;
        assert_eq!(slept[0], Duration::from_secs(2));
        // The date is 3 s after the clock's start; 2 s and a request later.
        assert!(
            slept[1] >= Duration::from_millis(990) && slept[1] <= Duration::from_secs(1),
            "{slept:?}"
        );
        assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(retry_after("soon", 0), None);
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_800),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn a_pause_past_the_budget_goes_back_to_the_host_and_is_kept() {
        let mut answer = status(503).unwrap();
        answer.retry_after = Some("60".into());
        let mut s = sender(&[], Script::new(vec![Ok(answer)]));
        let e = s.put(&records(&["a"])).unwrap_err();
        assert!(
            e.is_retriable() && e.message().contains("past this put's time budget"),
            "{e}"
        );
        assert!(s.transport().slept.is_empty());
        // Redelivered at once: still not due, nothing sent.
        assert!(s.put(&records(&["a"])).is_err());
        assert_eq!(s.transport().sent.len(), 1);
        s.transport.elapsed += Duration::from_secs(60);
        s.put(&records(&["a"])).unwrap();
        assert_eq!(s.transport().sent.len(), 2);
    }

    #[test]
    fn a_put_keeps_to_its_budget() {
        let mut script = Script::new(vec![]);
        script.per_request = Duration::from_millis(1000);
        let mut s = sender(&[("task.call.timeout.ms", "5000"), ("http.timeout.ms", "1000")], script);
        let values: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        let e = s.put(&records(&values)).unwrap_err();
        assert!(e.is_retriable() && e.message().contains("time budget (4000 ms)"), "{e}");
        assert_eq!(s.transport().sent.len(), 4);
        s.put(&records(&values)).unwrap_err();
        s.put(&records(&values)).unwrap();
        assert_eq!(s.transport().bodies(), values, "each once, in order");
    }

    #[test]
    fn refused_records_are_reported_errant_and_a_refused_batch_is_narrowed() {
        let mut script = Script::new(vec![]);
        script.refuse = Some("bad");
        let mut s = sender(&[("batch.max.size", "3")], script);
        errant::take_reported();
        s.put(&records(&["1", "\"bad\"", "3", "4"])).unwrap();
        assert_eq!(
            s.transport().bodies(),
            ["[1,\"bad\",3]", "[1]", "[\"bad\"]", "[3]", "[4]"]
        );
        let reported = errant::take_reported();
        assert_eq!(reported.len(), 1);
        assert_eq!(reported[0].0, 1);
        assert!(
            reported[0]
                .1
                .contains("HTTP 400 Bad Request from POST http://127.0.0.1:8080/in: body of 400"),
            "{reported:?}"
        );
        // Redelivered: nothing sent or reported again.
        s.put(&records(&["1", "\"bad\"", "3", "4"])).unwrap();
        assert_eq!(s.transport().sent.len(), 5);
        assert!(errant::take_reported().is_empty());
    }

    #[test]
    fn denied_and_tls_failures_fail_the_task_with_the_reason() {
        let mut s = sender(&[], Script::new(vec![Err(Failure::Denied)]));
        let e = s.put(&records(&["a"])).unwrap_err();
        assert!(!e.is_retriable());
        assert!(e.message().contains("grants.http.hosts=127.0.0.1:8080"), "{e}");
        let mut s = sender(&[], Script::new(vec![Err(Failure::Tls("TLS protocol error".into()))]));
        let e = s.put(&records(&["a"])).unwrap_err();
        assert!(e.message().contains("webpki-roots"), "{e}");
        // A connection refused is retried.
        let script = Script::new(vec![Err(Failure::Transport("connection refused".into()))]);
        let mut s = sender(&[("retry.backoff.ms", "1")], script);
        s.put(&records(&["a"])).unwrap();
        assert_eq!(s.transport().sent.len(), 2);
    }

    #[test]
    fn excerpts_are_one_bounded_line() {
        assert_eq!(excerpt(b"bad\r\nrequest"), "bad  request");
        let long = excerpt("é".repeat(1000).as_bytes());
        assert_eq!(long.chars().count(), EXCERPT_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
