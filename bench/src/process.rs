//! Child processes of the benchmarks that compare Copycat with Kafka
//! Connect (`kafka_connect`, `converters`): each in its own process group,
//! its output in a log file, killed with its group however the measurement
//! ends.
//!
//! Invariant: a [`Proc`] never outlives its owner: dropping it kills the
//! whole group (SIGKILL) and reaps the child.

use std::fs;
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

/// A child process in its own process group; the whole group is killed
/// (SIGKILL) when this is dropped, whatever happened.
pub struct Proc {
    child: Child,
    /// What runs, for messages.
    pub name: &'static str,
    /// Its stdout and stderr.
    pub log: PathBuf,
}

impl Proc {
    /// Start `cmd` in its own process group, its output to `log` (after a
    /// line saying when and what was spawned).
    pub fn spawn(name: &'static str, mut cmd: Command, log: &Path) -> Result<Self> {
        let mut out = fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
        // The spawn time, to line the process's own log timestamps up with.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        writeln!(out, "# spawned at unix time {:.3}: {cmd:?}", now.as_secs_f64())
            .with_context(|| format!("writing {}", log.display()))?;
        let err = out.try_clone().context("duplicating the log file handle")?;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .process_group(0);
        let child = cmd.spawn().with_context(|| format!("starting {name}: {cmd:?}"))?;
        Ok(Self {
            child,
            name,
            log: log.to_owned(),
        })
    }

    /// The process id (the group's).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails if the process has exited (with the end of its log).
    pub fn check_alive(&mut self) -> Result<()> {
        if let Some(status) = self.child.try_wait().context("waiting for a child")? {
            bail!(
                "{} exited early ({status}); last lines of {}:\n{}",
                self.name,
                self.log.display(),
                tail(&self.log, 30)
            );
        }
        Ok(())
    }

    /// SIGKILL to the group, then reap.
    pub fn kill(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // The group: the JVM and anything the script may have left.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last `n` lines of a file.
pub fn tail(path: &Path, n: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
