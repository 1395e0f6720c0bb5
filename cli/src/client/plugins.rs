//! `copycat plugins …`: `/connector-plugins/...` of the REST API.

use std::io::Write;

use serde_json::{Value, json};
use ureq::http::Method;

use super::connectors::{print_answer, unexpected};
use super::files::read_connector_file;
use super::http::{Body, segment};
use super::output::{cell, print_table, table};
use super::{Api, ClientError, Outcome, Output, PluginsCommand};

/// Run one command, printing to `out`.
pub fn run(api: &Api, output: Output, command: PluginsCommand, out: &mut dyn Write) -> Result<Outcome, ClientError> {
    use PluginsCommand as P;
    let json = output == Output::Json;
    match command {
        P::List => {
            let answer = api.get("/connector-plugins")?;
            if json {
                return print_answer(out, &answer);
            }
            let mut t = table(&["CLASS", "TYPE", "VERSION"]);
            for p in array(answer.body.as_ref(), "GET /connector-plugins")? {
                t.add_row(vec![cell(p.get("class")), cell(p.get("type")), cell(p.get("version"))]);
            }
            print_table(out, &t)?;
        }
        P::Config { plugin } => {
            let answer = api.get(&format!("/connector-plugins/{}/config", segment(&plugin)))?;
            if json {
                return print_answer(out, &answer);
            }
            let mut t = table(&["NAME", "TYPE", "REQUIRED", "DEFAULT", "IMPORTANCE", "DOCUMENTATION"]);
            for k in array(answer.body.as_ref(), "a plugin's config")? {
                t.add_row(vec![
                    cell(k.get("name")),
                    cell(k.get("type")),
                    cell(k.get("required")),
                    cell(k.get("default_value")),
                    cell(k.get("importance")),
                    cell(k.get("documentation")),
                ]);
            }
            print_table(out, &t)?;
        }
        P::Validate { plugin, file } => {
            let f = read_connector_file(&file)?;
            let answer = api.call(
                Method::PUT,
                &format!("/connector-plugins/{}/config/validate", segment(&plugin)),
                Some(Body::Json(json!(f.config))),
            )?;
            let body = answer.body.clone().unwrap_or(Value::Null);
            let count = body
                .get("error_count")
                .and_then(Value::as_u64)
                .ok_or_else(|| unexpected("a validation", answer.body.as_ref()))?;
            let mut problems = Vec::new();
            let mut t = table(&["KEY", "VALUE", "ERRORS"]);
            for c in body.get("configs").and_then(Value::as_array).into_iter().flatten() {
                let value = c.get("value").unwrap_or(&Value::Null);
                let name = cell(value.get("name"));
                let errors: Vec<String> = value
                    .get("errors")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|e| cell(Some(e)))
                    .collect();
                for e in &errors {
                    problems.push(format!("{name}: {e}"));
                }
                t.add_row(vec![name, cell(value.get("value")), errors.join("; ")]);
            }
            if json {
                print_answer(out, &answer)?;
            } else {
                print_table(out, &t)?;
                writeln!(out, "{count} error(s)")?;
            }
            if count > 0 {
                eprintln!("error: the config of plugin {plugin} has {count} error(s):");
                for p in problems {
                    eprintln!("  {p}");
                }
                return Ok(Outcome::Failed);
            }
        }
        P::Upload { name, version, file } => {
            let bytes = std::fs::read(&file).map_err(|e| ClientError::file(&file, e))?;
            let answer = api.call(
                Method::PUT,
                &format!("/connector-plugins/{}/versions/{}", segment(&name), segment(&version)),
                Some(Body::Raw {
                    bytes,
                    content_type: "application/wasm",
                }),
            )?;
            if json {
                return print_answer(out, &answer);
            }
            let b = answer.body.as_ref();
            let mut t = table(&["NAME", "VERSION", "DIGEST", "TYPE"]);
            t.add_row(vec![
                cell(b.and_then(|b| b.get("name"))),
                cell(b.and_then(|b| b.get("version"))),
                cell(b.and_then(|b| b.get("digest"))),
                cell(b.and_then(|b| b.get("type"))),
            ]);
            print_table(out, &t)?;
        }
        P::Versions { name } => {
            let answer = api.get(&format!("/connector-plugins/{}/versions", segment(&name)))?;
            if json {
                return print_answer(out, &answer);
            }
            let mut t = table(&["VERSION", "DIGEST", "TYPE", "SOURCE"]);
            for v in array(answer.body.as_ref(), "a plugin's versions")? {
                t.add_row(vec![
                    cell(v.get("version")),
                    cell(v.get("digest")),
                    cell(v.get("type")),
                    cell(v.get("source")),
                ]);
            }
            print_table(out, &t)?;
        }
    }
    Ok(Outcome::Ok)
}

fn array<'a>(body: Option<&'a Value>, what: &str) -> Result<&'a Vec<Value>, ClientError> {
    body.and_then(Value::as_array).ok_or_else(|| unexpected(what, body))
}
