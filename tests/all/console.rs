//! The web console (`/ui`) in a real browser: Debian's Chromium, headless,
//! driven through chromedriver (WebDriver). Each step asserts what the page
//! shows and then what the REST API reports.
//!
//! With `COPYCAT_CONSOLE_SCREENSHOTS=<dir>` each page is also saved there
//! as a PNG (`just console-screenshots` regenerates docs/console/).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use copycat_tests::*;
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(45);

/// A headless Chromium session through its own chromedriver, on `base`
/// (the worker's URL).
struct Browser {
    driver: Option<Client>,
    _chromedriver: Reaped,
    base: String,
    shots: Option<PathBuf>,
}

fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// A key as the text WebDriver types.
fn key(k: Key) -> String {
    char::from(k).to_string()
}

impl Browser {
    async fn start(base: &str) -> Self {
        let port = free_port();
        let chromedriver =
            std::process::Command::new(std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned()))
                .arg(format!("--port={port}"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("chromedriver runs (Debian: apt-get install chromium chromium-driver; .ci/run installs them)");
        let chromedriver = Reaped(chromedriver);
        let mut chrome = json!({"args": [
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--window-size=1366,768",
            "--hide-scrollbars",
        ]});
        if let Ok(bin) = std::env::var("CHROMIUM") {
            chrome["binary"] = json!(bin);
        } else if std::path::Path::new("/usr/bin/chromium").exists() {
            chrome["binary"] = json!("/usr/bin/chromium");
        }
        let mut caps = serde_json::Map::new();
        caps.insert("goog:chromeOptions".into(), chrome);
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + WAIT;
        let driver = loop {
            match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(d) => break d,
                Err(e) => {
                    assert!(Instant::now() < deadline, "no WebDriver session from chromedriver: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        };
        Self {
            driver: Some(driver),
            _chromedriver: chromedriver,
            base: base.trim_end_matches('/').to_owned(),
            shots: std::env::var_os("COPYCAT_CONSOLE_SCREENSHOTS").map(PathBuf::from),
        }
    }

    fn driver(&self) -> &Client {
        self.driver.as_ref().unwrap()
    }

    async fn open(&self, path: &str) {
        self.driver().goto(&format!("{}{path}", self.base)).await.unwrap();
    }

    /// The element with this `data-testid`, once it is there.
    async fn el(&self, id: &str) -> Element {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(e) = self.driver().find(Locator::Css(&testid(id))).await {
                return e;
            }
            if Instant::now() >= deadline {
                let page = self.evidence(id).await;
                panic!("timed out after {WAIT:?} waiting for [data-testid={id}]; {page}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Where the browser is and what the page says, with a screenshot
    /// in the temp directory, for a failure's message.
    async fn evidence(&self, id: &str) -> String {
        let d = self.driver();
        let url = d.current_url().await.map(|u| u.to_string()).unwrap_or_default();
        let text = match d.find(Locator::Css("body")).await {
            Ok(b) => b.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        let shot = std::env::temp_dir().join(format!("copycat-console-{}.png", id.replace(['/', ':'], "_")));
        if let Ok(png) = d.screenshot().await {
            let _ = std::fs::write(&shot, png);
        }
        format!("at {url}, screenshot {}, the page says:\n{text}", shot.display())
    }

    async fn present(&self, id: &str) -> bool {
        self.driver().find(Locator::Css(&testid(id))).await.is_ok()
    }

    /// The element's text once `check` accepts it.
    async fn text_until(&self, id: &str, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        let mut last = String::new();
        loop {
            if let Ok(e) = self.driver().find(Locator::Css(&testid(id))).await
                && let Ok(t) = e.text().await
            {
                if check(&t) {
                    return t;
                }
                last = t;
            }
            if Instant::now() >= deadline {
                let page = self.evidence(id).await;
                panic!(
                    "timed out after {WAIT:?} waiting for [data-testid={id}] to show {what}; it showed {last:?}; {page}"
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn click(&self, id: &str) {
        self.el(id).await.click().await.unwrap();
    }

    /// Replace an input's value by typing (so the page sees input events).
    async fn type_into(&self, id: &str, text: &str) {
        let e = self.el(id).await;
        e.clear().await.unwrap();
        // clear() fires no input event: select all and type over it.
        e.send_keys(&(Key::Control + "a")).await.unwrap();
        e.send_keys(text).await.unwrap();
    }

    /// Choose an option of a `<select>` from the keyboard, as a user
    /// without a mouse does: focus it and type the option's text. (The
    /// page may re-render meanwhile: a stale element is looked up again.)
    async fn select(&self, id: &str, value: &str) {
        async fn choose(b: &Browser, e: &Element, value: &str) -> Result<bool, fantoccini::error::CmdError> {
            let mut has = false;
            for o in e.find_all(Locator::Css("option")).await? {
                has |= o.prop("value").await?.as_deref() == Some(value);
            }
            if !has {
                return Ok(false);
            }
            b.focus(e).await;
            e.send_keys(value).await?;
            Ok(e.prop("value").await?.as_deref() == Some(value))
        }
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(true) = choose(self, &self.el(id).await, value).await {
                return;
            }
            if Instant::now() >= deadline {
                let page = self.evidence(id).await;
                panic!("[data-testid={id}] never offered or took {value}; {page}");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Give `e` the keyboard focus.
    async fn focus(&self, e: &Element) {
        let arg = serde_json::to_value(e).unwrap();
        self.driver().execute("arguments[0].focus()", vec![arg]).await.unwrap();
    }

    /// Wait until the browser is at `path` (`what` says why it should be).
    async fn wait_path(&self, path: &str, what: &str) {
        let deadline = Instant::now() + WAIT;
        while self.path().await != path {
            assert!(
                Instant::now() < deadline,
                "{what}: at {}, not {path}",
                self.path().await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn path(&self) -> String {
        self.driver().current_url().await.unwrap().path().to_owned()
    }

    async fn shot(&self, name: &str) {
        if let Some(dir) = &self.shots {
            std::fs::create_dir_all(dir).unwrap();
            // Let live charts and badges settle on their final values.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let png = self.driver().screenshot().await.unwrap();
            std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
        }
    }

    async fn quit(mut self) {
        if let Some(d) = self.driver.take() {
            let _ = d.close().await;
        }
    }
}

fn get(w: &Standalone, path: &str) -> (u16, Value) {
    http(w.addr, "GET", path, None)
}

fn connector_state(w: &Standalone, name: &str) -> Option<String> {
    let (code, status) = get(w, &format!("/connectors/{name}/status"));
    (code == 200).then(|| status["connector"]["state"].as_str().unwrap_or_default().to_owned())
}

fn upload(w: &Standalone, name: &str, version: &str, file: &std::path::Path) {
    let bytes = std::fs::read(file).unwrap();
    let (code, body) = http_bytes(
        w.addr,
        "PUT",
        &format!("/connector-plugins/{name}/versions/{version}"),
        "application/wasm",
        &bytes,
    );
    assert!(code == 201 || code == 200, "upload {name} {version}: {code} {body}");
}

/// Create a connector from the generated form (a validation error fixed on
/// the way), watch it run, upload v2 of its plugin and swap to it, see a
/// failing connector's trace, stop it and reset its offsets; the errors and
/// log-level pages too.
#[test]
fn console_drives_connectors_plugins_and_offsets() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let w = Standalone::start(dir.path(), "");
    upload(&w, "tagged", "1.0.0", &fixture("tagged-v1"));
    upload(&w, "flaky", env!("CARGO_PKG_VERSION"), &fixture("flaky"));
    let v2 = fixture("tagged-v2");
    let name = unique("ui-tagged");
    let topic = unique("ui-topic");
    let flaky = unique("ui-flaky");
    let flaky_topic = unique("ui-flaky-topic");

    block_on(async {
        // tagged writes to partitions 0 and 1 (`streams` defaults to 2).
        create_topic(&topic, 2).await;
        let b = Browser::start(&w.url).await;

        // The cluster: this one worker, standalone.
        b.open("/ui/").await;
        b.text_until("cluster-mode", "standalone", |t| t.contains("standalone"))
            .await;
        let (_, me) = get(&w, "/cluster");
        let id = me["worker_id"].as_str().unwrap().to_owned();
        b.el(&format!("worker-{id}")).await;
        b.shot("cluster").await;

        // No connectors yet: the list says so.
        b.click("nav-connectors").await;
        b.el("connectors-empty").await;

        // A connector from the form; `rate` must be a number.
        b.click("nav-new").await;
        b.select("plugin-select", "tagged").await;
        b.type_into("connector-name", &name).await;
        b.type_into("field-topic", &topic).await;
        b.type_into("field-rate", "fast").await;
        let err = b
            .text_until("error-rate", "an error for rate", |t| !t.trim().is_empty())
            .await;
        assert!(
            err.to_lowercase().contains("rate") || err.contains("fast") || err.to_lowercase().contains("double"),
            "{err}"
        );
        b.text_until("validation-summary", "an error count", |t| t.contains("error"))
            .await;
        b.shot("new-connector").await;
        b.type_into("field-rate", "50").await;
        b.text_until("error-rate", "no error", |t| t.trim().is_empty()).await;
        b.click("create").await;
        let page = format!("/ui/connectors/{name}");
        b.wait_path(&page, "create leads to the connector's page").await;
        b.text_until("connector-state", "RUNNING", |t| t.trim() == "RUNNING")
            .await;
        b.text_until("task-state-0", "RUNNING", |t| t.trim() == "RUNNING").await;
        assert_eq!(connector_state(&w, &name).as_deref(), Some("RUNNING"));
        let (_, cfg) = get(&w, &format!("/connectors/{name}/config"));
        assert_eq!(cfg["rate"], json!("50"), "{cfg}");
        assert_eq!(cfg["topic"], json!(topic), "{cfg}");
        b.text_until("connector-version", "1.0.0", |t| t.contains("1.0.0"))
            .await;
        b.shot("connector").await;

        // Upload v2 of the plugin.
        b.click("nav-plugins").await;
        b.el("plugin-tagged").await;
        b.select("upload-plugin", "tagged").await;
        b.type_into("upload-version", "2.0.0").await;
        b.el("upload-file").await.send_keys(v2.to_str().unwrap()).await.unwrap();
        b.click("upload-submit").await;
        b.text_until("upload-result", "the new digest", |t| t.contains("sha256:"))
            .await;
        b.el("version-tagged-2.0.0").await;
        let (_, versions) = get(&w, "/connector-plugins/tagged/versions");
        let digest = versions
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["version"] == "2.0.0")
            .map(|v| v["digest"].as_str().unwrap().to_owned())
            .expect("2.0.0 uploaded");
        b.text_until("digest-tagged-2.0.0", "its digest", |t| t.contains(&digest[7..19]))
            .await;
        b.shot("plugins").await;

        // Swap the connector to it and watch the swap.
        b.open(&page).await;
        b.select("swap-version", "2.0.0").await;
        b.click("swap-submit").await;
        b.text_until("swap-result", "SWAPPED", |t| t.contains("SWAPPED")).await;
        b.text_until("connector-version", "2.0.0", |t| t.contains("2.0.0"))
            .await;
        let (_, status) = get(&w, &format!("/connectors/{name}/status"));
        assert_eq!(status["connector"]["version"], json!("2.0.0"), "{status}");
        assert_eq!(status["connector"]["digest"], json!(digest), "{status}");
        assert_eq!(status["last_swap"]["outcome"], json!("SWAPPED"), "{status}");
        b.shot("connector").await;

        // A connector that commits offsets, then is edited into failing.
        let (code, body) = http(
            w.addr,
            "POST",
            "/connectors",
            Some(&json!({"name": flaky, "config": {
                "connector.class": "flaky", "topic": flaky_topic, "mode": "retriable", "count": "3",
                "task.restart.max.attempts": "0",
            }})),
        );
        assert_eq!(code, 201, "{body}");
        eventually("flaky commits offset 2", WAIT, || {
            let (_, o) = get(&w, &format!("/connectors/{flaky}/offsets"));
            (o["offsets"].as_array().is_some_and(|a| !a.is_empty()) && o.to_string().contains("\"2\"")).then_some(())
        });
        let flaky_page = format!("/ui/connectors/{flaky}");
        b.open(&flaky_page).await;
        b.text_until("connector-state", "RUNNING", |t| t.trim() == "RUNNING")
            .await;
        b.el("offset-row").await;
        let reset = b.el("offsets-reset").await;
        assert!(
            !reset.is_enabled().await.unwrap(),
            "reset is disabled while the connector runs"
        );
        b.text_until("offsets-reset-hint", "why", |t| {
            t.contains("STOPPED") || t.to_lowercase().contains("stop")
        })
        .await;
        // Stopped, edited into failing (a running connector's replacement
        // that fails is rolled back), resumed: its task fails.
        b.click("action-stop").await;
        b.text_until("connector-state", "STOPPED", |t| t.trim() == "STOPPED")
            .await;
        assert_eq!(connector_state(&w, &flaky).as_deref(), Some("STOPPED"));
        b.click("action-edit").await;
        b.type_into("field-mode", "fatal").await;
        b.text_until("validation-summary", "valid", |t| !t.contains("error"))
            .await;
        let typed = b.el("field-mode").await.prop("value").await.unwrap();
        assert_eq!(typed.as_deref(), Some("fatal"), "the form kept what was typed");
        b.click("save").await;
        let deadline = Instant::now() + WAIT;
        loop {
            let (_, cfg) = get(&w, &format!("/connectors/{flaky}/config"));
            if cfg["mode"] == "fatal" {
                break;
            }
            if Instant::now() >= deadline {
                let page = b.evidence("save").await;
                panic!("the edit never reached the worker: {cfg}; {page}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        b.click("action-resume").await;
        b.text_until("task-state-0", "FAILED", |t| t.trim() == "FAILED").await;
        b.el("trace-0").await.click().await.unwrap();
        b.text_until("trace-0", "the fatal error", |t| {
            t.contains("the source is gone for good")
        })
        .await;
        let (_, status) = get(&w, &format!("/connectors/{flaky}/status"));
        assert_eq!(status["tasks"][0]["state"], json!("FAILED"), "{status}");
        assert!(
            status["tasks"][0]["trace"]
                .as_str()
                .unwrap()
                .contains("the source is gone for good")
        );
        b.shot("failing-connector").await;

        // The errors page lists the failure.
        b.click("nav-errors").await;
        b.el(&format!("failure-{flaky}-0")).await;
        b.shot("errors").await;

        // Stop the failed connector and reset its offsets.
        b.open(&flaky_page).await;
        b.el("offset-row").await;
        b.click("action-stop").await;
        b.text_until("connector-state", "STOPPED", |t| t.trim() == "STOPPED")
            .await;
        assert_eq!(connector_state(&w, &flaky).as_deref(), Some("STOPPED"));
        let deadline = Instant::now() + WAIT;
        while !b.el("offsets-reset").await.is_enabled().await.unwrap() {
            assert!(Instant::now() < deadline, "reset is enabled once STOPPED");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let offsets = serde_json::to_value(b.el("offsets").await).unwrap();
        b.driver()
            .execute("arguments[0].scrollIntoView()", vec![offsets])
            .await
            .unwrap();
        b.shot("offsets").await;
        b.click("offsets-reset").await;
        b.text_until("offsets-message", "the reset's answer", |t| !t.trim().is_empty())
            .await;
        let (_, offsets) = get(&w, &format!("/connectors/{flaky}/offsets"));
        assert_eq!(offsets, json!({"offsets": []}), "reset through the console");
        let deadline = Instant::now() + WAIT;
        while b.present("offset-row").await {
            assert!(Instant::now() < deadline, "the page shows no offsets after the reset");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        // Log levels: set one through the page, read it back from the API.
        b.click("nav-loggers").await;
        b.el("logger-root").await;
        b.type_into("logger-name", "copycat_runtime::task").await;
        b.select("logger-level", "DEBUG").await;
        b.click("logger-submit").await;
        b.text_until("logger-result", "the change", |t| !t.trim().is_empty())
            .await;
        let (_, level) = get(&w, "/admin/loggers/copycat_runtime::task");
        assert_eq!(level["level"], json!("DEBUG"), "{level}");
        b.shot("loggers").await;

        // The connectors list with both, and their states.
        b.click("nav-connectors").await;
        b.text_until(&format!("connector-state-{name}"), "RUNNING", |t| t.trim() == "RUNNING")
            .await;
        b.text_until(&format!("connector-state-{flaky}"), "STOPPED", |t| {
            t.trim() == "STOPPED"
        })
        .await;
        b.shot("connectors").await;

        b.quit().await;
    });
}

/// With REST authentication on, nothing of the console is served without
/// credentials, and with them the console works (its API calls included).
#[test]
fn console_needs_the_rest_api_credentials() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.properties");
    std::fs::write(&users, "admin=s3cret\n").unwrap();
    let w = Standalone::start(
        dir.path(),
        &format!("rest.auth.type=basic\nrest.auth.basic.users.file={}", users.display()),
    );
    for path in ["/ui", "/ui/", "/ui/connectors", "/ui/index.html", "/ui/assets/x.js"] {
        let (code, body) = get(&w, path);
        assert_eq!(code, 401, "{path} without credentials: {body}");
    }
    block_on(async {
        let b = Browser::start(&w.url).await;
        b.open("/ui/").await;
        let source = b.driver().source().await.unwrap();
        assert!(
            !source.contains("data-testid"),
            "no console without credentials: {source}"
        );
        assert!(!b.present("nav-cluster").await);

        // WebDriver cannot type into the browser's credentials prompt: a
        // first visit with them in the URL puts them in the browser's
        // cache, as the prompt does, and the next visits use them (the
        // page's own API calls included).
        let with_user = w.url.replacen("://", "://admin:s3cret@", 1);
        b.driver().goto(&format!("{with_user}/ui/")).await.unwrap();
        b.open("/ui/connectors").await;
        b.el("connectors-empty").await;
        b.el("nav-cluster").await.click().await.unwrap();
        b.text_until("cluster-mode", "standalone", |t| t.contains("standalone"))
            .await;
        b.quit().await;
    });
}

/// `rest.console.enable=false`: `/ui` is a JSON 404 saying so; the API
/// is unchanged.
#[test]
fn console_can_be_turned_off() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let w = Standalone::start(dir.path(), "rest.console.enable=false");
    for path in ["/ui", "/ui/connectors", "/ui/assets/x.js"] {
        let (code, body) = get(&w, path);
        assert_eq!(code, 404, "{path}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains("rest.console.enable"),
            "{body}"
        );
    }
    assert_eq!(get(&w, "/connectors"), (200, json!([])));
}

/// With bearer tokens, the console's pages lead to its sign-in form (and
/// nothing else is served); a wrong token is refused there, the right one
/// signs the browser in and the console's API calls work with its cookie.
#[test]
fn console_signs_in_with_a_bearer_token() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, "t0ken-for-the-console\n").unwrap();
    let w = Standalone::start(
        dir.path(),
        &format!(
            "rest.auth.type=bearer\nrest.auth.bearer.tokens.file={}",
            tokens.display()
        ),
    );
    assert_eq!(get(&w, "/connectors").0, 401);
    assert_eq!(get(&w, "/ui/assets/x.js").0, 401);
    block_on(async {
        let b = Browser::start(&w.url).await;
        b.open("/ui/connectors").await;
        b.wait_path("/ui/login", "sent to the sign-in form").await;
        assert!(!b.present("nav-cluster").await);
        let token = b.driver().find(Locator::Id("token")).await.unwrap();
        token.send_keys("not-the-token").await.unwrap();
        b.click("login-submit").await;
        b.text_until("login-error", "the refusal", |t| t.contains("Invalid bearer token"))
            .await;
        b.shot("login").await;
        assert!(!b.present("nav-cluster").await);
        let token = b.driver().find(Locator::Id("token")).await.unwrap();
        token.send_keys("t0ken-for-the-console").await.unwrap();
        b.click("login-submit").await;
        b.text_until("cluster-mode", "standalone", |t| t.contains("standalone"))
            .await;
        b.click("nav-connectors").await;
        b.el("connectors-empty").await;
        b.quit().await;
    });
    // The cookie is the browser's: the API itself still wants the token.
    assert_eq!(get(&w, "/connectors").0, 401);
}

/// In distributed mode the cluster page shows every worker and which tasks
/// it runs, the same from either worker, as `GET /cluster` and the statuses
/// report.
#[test]
fn console_shows_the_cluster_and_its_assignment() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let group = unique("ui-cluster");
    let extra = "session.timeout.ms=6000\nheartbeat.interval.ms=1000";
    let workers = [
        ClusterWorker::start(dir.path(), "w0", &group, extra),
        ClusterWorker::start(dir.path(), "w1", &group, extra),
    ];
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    eventually("both workers in the group", WAIT, || {
        let (_, c) = workers[0].get("/cluster");
        let listed: Vec<&str> = c["workers"]
            .as_array()?
            .iter()
            .filter_map(|w| w["id"].as_str())
            .collect();
        (c["mode"] == "distributed" && ids.iter().all(|id| listed.contains(&id.as_str()))).then_some(())
    });
    // Two one-task connectors: the assignment puts one task on each worker.
    let names = [unique("ui-spread-a"), unique("ui-spread-b")];
    for name in &names {
        let (code, body) = workers[0].send(
            "POST",
            "/connectors",
            &json!({"name": name, "config": {
                "connector.class": "tagged-v1", "topic": unique("ui-spread-topic"), "streams": "1", "rate": "5",
            }}),
        );
        assert_eq!(code, 201, "{body}");
    }
    // Where the REST API says each task runs.
    let placed: Vec<(String, String)> = eventually("the two tasks RUNNING, one on each worker", WAIT, || {
        let mut on = Vec::new();
        for name in &names {
            let (_, s) = workers[1].get(&format!("/connectors/{name}/status"));
            let t = &s["tasks"][0];
            if t["state"] != "RUNNING" {
                return None;
            }
            on.push((format!("{name}/0"), t["worker_id"].as_str()?.to_owned()));
        }
        (ids.iter().all(|id| on.iter().any(|(_, w)| w == id))).then_some(on)
    });
    block_on(async {
        for (i, w) in workers.iter().enumerate() {
            let b = Browser::start(&format!("http://{}", w.addr)).await;
            b.open("/ui/").await;
            b.text_until("cluster-mode", "distributed", |t| t.contains("distributed"))
                .await;
            for (task, on) in &placed {
                b.text_until(&format!("worker-{on}"), "its task", |t| t.contains(task.as_str()))
                    .await;
            }
            if i == 0 {
                b.shot("cluster-distributed").await;
            }
            b.quit().await;
        }
    });
}

/// Hostile text in what the console shows (a connector's name and config
/// values, echoed back in validation errors; guests' own messages reach the
/// page the same way) is shown as text: nothing in it runs or loads.
#[test]
fn console_shows_hostile_text_as_text() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let w = Standalone::start(dir.path(), "");
    let payload = r#"<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>"#;
    let name = format!("{}-{}", unique("ui-evil"), "<b>bold</b>");
    let (code, body) = http(
        w.addr,
        "POST",
        "/connectors",
        Some(&json!({"name": name, "config": {
            "connector.class": "datagen", "topic": unique("ui-evil-topic"), "rate": "1", "note.for.ops": payload,
        }})),
    );
    assert!(code == 201 || code == 400, "{code} {body}");
    block_on(async {
        let b = Browser::start(&w.url).await;
        if code == 201 {
            b.open("/ui/connectors").await;
            b.text_until(&format!("connector-row-{name}"), "the name as text", |t| {
                t.contains("<b>bold</b>")
            })
            .await;
        }
        // A config value echoed in a validation error.
        b.open("/ui/connectors/new").await;
        b.select("plugin-select", "datagen").await;
        b.type_into("connector-name", "evil").await;
        b.type_into("field-topic", payload).await;
        b.text_until("validation-summary", "an error", |t| t.contains("error"))
            .await;
        let page = b.driver().source().await.unwrap();
        assert!(!page.contains("<img src=\"x\""), "the payload became an element");
        let title = b.driver().title().await.unwrap();
        assert_ne!(title, "pwned", "script ran");
        let imgs = b.driver().find_all(Locator::Css("img[src='x']")).await.unwrap();
        assert!(imgs.is_empty(), "an <img> from the payload");
        b.quit().await;
    });
}

/// The worker gzips its answers for a client that asks (the console's
/// `/metrics` polls, Prometheus), and only then.
#[test]
fn answers_are_gzipped_when_asked() {
    use std::io::{Read as _, Write as _};
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let w = Standalone::start(dir.path(), "");
    let head = |encoding: &str| {
        let mut s = std::net::TcpStream::connect(w.addr).unwrap();
        write!(
            s,
            "GET /openapi.json HTTP/1.1\r\nHost: x\r\n{encoding}Connection: close\r\n\r\n"
        )
        .unwrap();
        let mut resp = Vec::new();
        s.read_to_end(&mut resp).unwrap();
        let text = String::from_utf8_lossy(&resp).to_lowercase();
        text.split("\r\n\r\n").next().unwrap().to_owned()
    };
    assert!(head("Accept-Encoding: gzip\r\n").contains("content-encoding: gzip"));
    assert!(!head("").contains("content-encoding"));
}

/// A failing task in its automatic-restart backoff: the connector page and
/// the errors page show it RESTARTING with its attempt and next restart, as
/// the status reports.
#[test]
fn console_shows_restarts_and_the_next_one() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let w = Standalone::start(dir.path(), "");
    upload(&w, "flaky", env!("CARGO_PKG_VERSION"), &fixture("flaky"));
    let name = unique("ui-restarting");
    let (code, body) = http(
        w.addr,
        "POST",
        "/connectors",
        Some(&json!({"name": name, "config": {
            "connector.class": "flaky", "topic": unique("ui-restarting-topic"), "mode": "fatal",
            "task.restart.max.attempts": "5", "task.restart.backoff.initial.ms": "600000",
            "task.restart.backoff.max.ms": "600000",
        }})),
    );
    assert_eq!(code, 201, "{body}");
    let status = eventually("the task in its restart backoff", WAIT, || {
        let (_, s) = get(&w, &format!("/connectors/{name}/status"));
        (s["tasks"][0]["state"] == "RESTARTING").then_some(s)
    });
    let attempts = status["tasks"][0]["attempts"].as_u64().expect("attempts");
    assert!(status["tasks"][0]["next_restart_ms"].as_u64().is_some(), "{status}");
    block_on(async {
        let b = Browser::start(&w.url).await;
        b.open(&format!("/ui/connectors/{name}")).await;
        b.text_until("task-state-0", "RESTARTING", |t| t.trim() == "RESTARTING")
            .await;
        b.text_until("task-attempts-0", "the attempt", |t| t.contains(&attempts.to_string()))
            .await;
        // Ten minutes of backoff: the next restart is minutes away.
        b.text_until("task-next-restart-0", "when", |t| t.contains("min") || t.contains("10"))
            .await;
        b.click("nav-errors").await;
        b.el(&format!("failure-{name}-0")).await;
        b.quit().await;
    });
}

/// Without a mouse: the first Tab stop is the skip link, links and buttons
/// answer Enter, options are chosen by typing, and Enter in a field submits
/// the new connector's form.
#[test]
fn console_works_from_the_keyboard() {
    let _broker = broker_stays_up();
    let dir = tempfile::tempdir().unwrap();
    let w = Standalone::start(dir.path(), "");
    let name = unique("ui-keys");
    block_on(async {
        let b = Browser::start(&w.url).await;
        b.open("/ui/").await;
        b.text_until("cluster-mode", "standalone", |t| t.contains("standalone"))
            .await;
        let body = b.driver().find(Locator::Css("body")).await.unwrap();
        body.send_keys(&key(Key::Tab)).await.unwrap();
        let first = b.driver().active_element().await.unwrap();
        assert!(
            first.text().await.unwrap().to_lowercase().contains("skip"),
            "the first Tab stop is the skip link: {:?}",
            first.html(false).await
        );
        b.focus(&b.el("nav-new").await).await;
        b.driver()
            .active_element()
            .await
            .unwrap()
            .send_keys(&key(Key::Enter))
            .await
            .unwrap();
        b.wait_path("/ui/connectors/new", "Enter on a link follows it").await;
        b.select("plugin-select", "datagen").await;
        b.type_into("connector-name", &name).await;
        b.type_into("field-topic", &unique("ui-keys-topic")).await;
        b.text_until("validation-summary", "valid", |t| !t.contains("error"))
            .await;
        b.el("field-topic").await.send_keys(&key(Key::Enter)).await.unwrap();
        let page = format!("/ui/connectors/{name}");
        b.wait_path(&page, "Enter submits the form").await;
        b.text_until("connector-state", "RUNNING", |t| t.trim() == "RUNNING")
            .await;
        b.quit().await;
    });
    assert_eq!(connector_state(&w, &name).as_deref(), Some("RUNNING"));
}
