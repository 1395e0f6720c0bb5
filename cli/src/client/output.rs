//! What the client prints: tables for people (comfy-table, no borders, like
//! `kubectl`) or the server's JSON as it is, pretty-printed.

use std::io::Write;

use clap::ValueEnum;
use comfy_table::{Table, presets};
use serde_json::Value;

use super::ClientError;

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Tables and short messages.
    Table,
    /// The server's JSON answer, pretty-printed.
    Json,
}

/// An empty table with these column headers.
pub fn table(headers: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING).set_header(headers.iter().copied());
    // Flush left, as `kubectl` does.
    if let Some(c) = t.column_mut(0) {
        c.set_padding((0, 1));
    }
    t
}

/// Print `table` (trailing spaces trimmed).
pub fn print_table(out: &mut dyn Write, table: &Table) -> Result<(), ClientError> {
    for line in table.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Print `value` as pretty JSON.
pub fn print_json(out: &mut dyn Write, value: &Value) -> Result<(), ClientError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| ClientError::Invalid(e.to_string()))?;
    writeln!(out, "{text}")?;
    Ok(())
}

/// A JSON value as a table cell: strings as they are, `null` empty, the
/// rest as compact JSON.
pub fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The first line of a (stack) trace.
pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tables_and_cells() {
        let mut t = table(&["NAME", "STATE"]);
        t.add_row(vec!["a", "RUNNING"]);
        let mut out = Vec::new();
        print_table(&mut out, &t).ok();
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("NAME") && text.contains("RUNNING"), "{text}");
        assert!(text.lines().all(|l| l == l.trim()), "{text:?}");
        assert_eq!(cell(Some(&json!("x"))), "x");
        assert_eq!(cell(Some(&json!({"a": 1}))), "{\"a\":1}");
        assert_eq!(cell(None), "");
        assert_eq!(first_line("boom\n  at x"), "boom");
    }
}
