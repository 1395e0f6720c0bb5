//! `copycat connectors …`: `/connectors/...` of the REST API.

use std::io::Write;

use serde_json::{Map, Value, json};
use ureq::http::Method;

use super::files::read_connector_file;
use super::http::{Answer, Body, segment};
use super::output::{cell, first_line, print_json, print_table, table};
use super::{Api, ClientError, ConnectorsCommand, InitialState, Outcome, Output};

fn path(name: &str, rest: &str) -> String {
    format!("/connectors/{}{rest}", segment(name))
}

/// Run one command, printing to `out`.
pub fn run(api: &Api, output: Output, command: ConnectorsCommand, out: &mut dyn Write) -> Result<Outcome, ClientError> {
    use ConnectorsCommand as C;
    let json = output == Output::Json;
    match command {
        C::List => {
            let answer = api.get("/connectors?expand=status&expand=info")?;
            if json {
                return print_answer(out, &answer);
            }
            list_table(out, answer.body.as_ref())?;
        }
        C::Get { name } => {
            let answer = api.get(&path(&name, ""))?;
            if json {
                return print_answer(out, &answer);
            }
            info_table(out, answer.body.as_ref())?;
        }
        C::Create { file, initial_state } => {
            let f = read_connector_file(&file)?;
            let name = f.name.ok_or_else(|| {
                ClientError::file(
                    &file,
                    "no connector name: set `name` (or {\"name\": .., \"config\": {..}})",
                )
            })?;
            let mut body = json!({"name": name, "config": f.config});
            if let Some(s) = initial_state {
                body["initial_state"] = json!(match s {
                    InitialState::Running => "RUNNING",
                    InitialState::Paused => "PAUSED",
                    InitialState::Stopped => "STOPPED",
                });
            }
            let answer = api.call(Method::POST, "/connectors", Some(Body::Json(body)))?;
            if json {
                return print_answer(out, &answer);
            }
            writeln!(out, "Created connector {name}")?;
            info_table(out, answer.body.as_ref())?;
        }
        C::Config { name, set, unset, file } => {
            let answer = if let Some(file) = file {
                let f = read_connector_file(&file)?;
                api.call(Method::PUT, &path(&name, "/config"), Some(Body::Json(json!(f.config))))?
            } else if !set.is_empty() || !unset.is_empty() {
                let mut patch = Map::new();
                for k in unset {
                    patch.insert(k, Value::Null);
                }
                for (k, v) in set {
                    patch.insert(k, Value::String(v));
                }
                api.call(
                    Method::PATCH,
                    &path(&name, "/config"),
                    Some(Body::Json(Value::Object(patch))),
                )?
            } else {
                let answer = api.get(&path(&name, "/config"))?;
                if json {
                    return print_answer(out, &answer);
                }
                return config_table(out, answer.body.as_ref()).map(|()| Outcome::Ok);
            };
            if json {
                return print_answer(out, &answer);
            }
            let verb = if answer.status == 201 { "Created" } else { "Updated" };
            writeln!(out, "{verb} the config of connector {name}")?;
            config_table(out, answer.body.as_ref().and_then(|b| b.get("config")))?;
        }
        C::Status { name } => {
            let answer = api.get(&path(&name, "/status"))?;
            if json {
                return print_answer(out, &answer);
            }
            status_table(out, answer.body.as_ref())?;
        }
        C::Pause { name } => target(api, out, output, &name, "pause", "Pausing")?,
        C::Resume { name } => target(api, out, output, &name, "resume", "Resuming")?,
        C::Stop { name } => target(api, out, output, &name, "stop", "Stopping")?,
        C::Restart {
            name,
            include_tasks,
            only_failed,
        } => {
            let query = format!("/restart?includeTasks={include_tasks}&onlyFailed={only_failed}");
            let answer = api.call(Method::POST, &path(&name, &query), None)?;
            if json {
                return print_answer(out, &answer);
            }
            match answer.body {
                Some(status) => {
                    writeln!(out, "Restarting connector {name}")?;
                    status_table(out, Some(&status))?;
                }
                None => writeln!(out, "Restarted connector {name}")?,
            }
        }
        C::RestartTask { name, task } => {
            let answer = api.call(Method::POST, &path(&name, &format!("/tasks/{task}/restart")), None)?;
            if json {
                return print_answer(out, &answer);
            }
            writeln!(out, "Restarted task {task} of connector {name}")?;
        }
        C::Delete { name } => {
            let answer = api.call(Method::DELETE, &path(&name, ""), None)?;
            if json {
                return print_answer(out, &answer);
            }
            writeln!(out, "Deleted connector {name}")?;
        }
        C::Offsets { name, reset, file } => {
            let answer = if reset {
                api.call(Method::DELETE, &path(&name, "/offsets"), None)?
            } else if let Some(file) = file {
                let text = std::fs::read_to_string(&file).map_err(|e| ClientError::file(&file, e))?;
                let doc: Value = serde_json::from_str(&text)
                    .map_err(|e| ClientError::file(&file, format!("not valid JSON: {e}")))?;
                api.call(Method::PATCH, &path(&name, "/offsets"), Some(Body::Json(doc)))?
            } else {
                let answer = api.get(&path(&name, "/offsets"))?;
                if json {
                    return print_answer(out, &answer);
                }
                return offsets_table(out, answer.body.as_ref()).map(|()| Outcome::Ok);
            };
            if json {
                return print_answer(out, &answer);
            }
            writeln!(out, "{}", cell(answer.body.as_ref().and_then(|b| b.get("message"))))?;
        }
        C::Topics { name, reset: true } => {
            target(
                api,
                out,
                output,
                &name,
                "topics/reset",
                "Resetting the active topics of",
            )?;
        }
        C::Topics { name, reset: false } => {
            let answer = api.get(&path(&name, "/topics"))?;
            if json {
                return print_answer(out, &answer);
            }
            let mut t = table(&["TOPIC"]);
            let topics = answer
                .body
                .as_ref()
                .and_then(|b| b.get(&name))
                .and_then(|c| c.get("topics"))
                .and_then(Value::as_array);
            for topic in topics.into_iter().flatten() {
                t.add_row(vec![cell(Some(topic))]);
            }
            print_table(out, &t)?;
        }
    }
    Ok(Outcome::Ok)
}

/// JSON mode: the answer as it is (nothing for an empty body).
pub(crate) fn print_answer(out: &mut dyn Write, answer: &Answer) -> Result<Outcome, ClientError> {
    if let Some(body) = &answer.body {
        print_json(out, body)?;
    }
    Ok(Outcome::Ok)
}

fn target(
    api: &Api,
    out: &mut dyn Write,
    output: Output,
    name: &str,
    action: &str,
    doing: &str,
) -> Result<(), ClientError> {
    let answer = api.call(Method::PUT, &path(name, &format!("/{action}")), None)?;
    if output == Output::Json {
        print_answer(out, &answer)?;
    } else {
        writeln!(out, "{doing} connector {name}")?;
    }
    Ok(())
}

fn tasks_of(status: &Value) -> (usize, usize) {
    let tasks = status.get("tasks").and_then(Value::as_array);
    let total = tasks.map_or(0, Vec::len);
    let running = tasks
        .into_iter()
        .flatten()
        .filter(|t| t.get("state").and_then(Value::as_str) == Some("RUNNING"))
        .count();
    (running, total)
}

fn list_table(out: &mut dyn Write, body: Option<&Value>) -> Result<(), ClientError> {
    let mut t = table(&["NAME", "TYPE", "STATE", "TASKS", "PLUGIN"]);
    let entries = body
        .and_then(Value::as_object)
        .ok_or_else(|| unexpected("GET /connectors?expand=..", body))?;
    for (name, entry) in entries {
        let status = entry.get("status").unwrap_or(&Value::Null);
        let info = entry.get("info").unwrap_or(&Value::Null);
        let (running, total) = tasks_of(status);
        let kind = status.get("type").or_else(|| info.get("type"));
        t.add_row(vec![
            name.clone(),
            cell(kind),
            cell(status.get("connector").and_then(|c| c.get("state"))),
            format!("{running}/{total}"),
            cell(info.get("config").and_then(|c| c.get("connector.class"))),
        ]);
    }
    print_table(out, &t)
}

fn info_table(out: &mut dyn Write, body: Option<&Value>) -> Result<(), ClientError> {
    let info = body.ok_or_else(|| unexpected("connector info", body))?;
    let tasks: Vec<String> = info
        .get("tasks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| cell(t.get("task")))
        .collect();
    let mut t = table(&["NAME", "TYPE", "TASKS"]);
    t.add_row(vec![cell(info.get("name")), cell(info.get("type")), tasks.join(",")]);
    print_table(out, &t)?;
    writeln!(out)?;
    config_table(out, info.get("config"))
}

fn config_table(out: &mut dyn Write, config: Option<&Value>) -> Result<(), ClientError> {
    let map = config
        .and_then(Value::as_object)
        .ok_or_else(|| unexpected("a config", config))?;
    let mut t = table(&["KEY", "VALUE"]);
    for (k, v) in map {
        t.add_row(vec![k.clone(), cell(Some(v))]);
    }
    print_table(out, &t)
}

fn status_table(out: &mut dyn Write, body: Option<&Value>) -> Result<(), ClientError> {
    let status = body.ok_or_else(|| unexpected("a status", body))?;
    let mut t = table(&["ID", "STATE", "WORKER", "TRACE"]);
    let connector = status.get("connector").unwrap_or(&Value::Null);
    t.add_row(vec![
        format!("connector {}", cell(status.get("name"))),
        cell(connector.get("state")),
        cell(connector.get("worker_id")),
        first_line(&cell(connector.get("trace"))).to_owned(),
    ]);
    for task in status.get("tasks").and_then(Value::as_array).into_iter().flatten() {
        t.add_row(vec![
            format!("task {}", cell(task.get("id"))),
            cell(task.get("state")),
            cell(task.get("worker_id")),
            first_line(&cell(task.get("trace"))).to_owned(),
        ]);
    }
    print_table(out, &t)
}

fn offsets_table(out: &mut dyn Write, body: Option<&Value>) -> Result<(), ClientError> {
    let offsets = body
        .and_then(|b| b.get("offsets"))
        .and_then(Value::as_array)
        .ok_or_else(|| unexpected("offsets", body))?;
    if offsets.is_empty() {
        writeln!(out, "No offsets committed")?;
        return Ok(());
    }
    let mut t = table(&["PARTITION", "OFFSET"]);
    for o in offsets {
        t.add_row(vec![cell(o.get("partition")), cell(o.get("offset"))]);
    }
    print_table(out, &t)
}

pub(crate) fn unexpected(what: &str, body: Option<&Value>) -> ClientError {
    ClientError::Invalid(format!(
        "unexpected answer for {what}: {}",
        body.map_or_else(|| "(empty)".to_owned(), Value::to_string)
    ))
}
