//! The lesson's own etcd, when no `--etcd` is given: one member on two free loopback ports,
//! its data in a fresh temporary directory, stopped and removed at the end.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::gateway::Etcd;
use super::http::Url;
use super::signal::{self, Signal};

/// How long etcd may take to start and elect itself.
const STARTUP: Duration = Duration::from_secs(15);
/// How long etcd may take to stop after SIGTERM before it is killed.
const SHUTDOWN: Duration = Duration::from_secs(5);

/// The `etcd` program on the PATH, if there is one.
pub fn find_etcd() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("etcd"))
        .find(|candidate| {
            fs::metadata(candidate).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            })
        })
}

/// A port no one listens on now (the system's choice of a free one).
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running private etcd.
pub struct PrivateEtcd {
    child: Option<Child>,
    dir: PathBuf,
    url: Url,
    peer_port: u16,
    version: String,
}

impl PrivateEtcd {
    /// Starts `etcd` with its data in a new directory named after `run_id` under the system's
    /// temporary directory, and waits until it serves. On failure nothing is left behind.
    pub fn start(program: &Path, run_id: &str) -> Result<PrivateEtcd, String> {
        let dir = std::env::temp_dir().join(format!("fencing-lab-live-{run_id}"));
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("could not make etcd's directory {}: {e}", dir.display()))?;
        let mut etcd = PrivateEtcd {
            child: None,
            dir,
            url: Url {
                host: "127.0.0.1".into(),
                port: 0,
            },
            peer_port: 0,
            version: String::new(),
        };
        // A port may be taken between choosing and binding: one more try with new ones.
        let mut last = String::new();
        for _ in 0..2 {
            match etcd.launch(program) {
                Ok(()) => return Ok(etcd),
                Err(why) => {
                    last = why;
                    etcd.kill();
                }
            }
        }
        Err(last)
    }

    fn launch(&mut self, program: &Path) -> Result<(), String> {
        let client = free_port().map_err(|e| format!("no free port for etcd: {e}"))?;
        let peer = free_port().map_err(|e| format!("no free port for etcd: {e}"))?;
        self.url.port = client;
        self.peer_port = peer;
        let data = self.dir.join("data");
        let log = fs::File::create(self.dir.join("etcd.log"))
            .map_err(|e| format!("could not write etcd's log: {e}"))?;
        let client_url = self.url.to_string();
        let peer_url = format!("http://127.0.0.1:{peer}");
        let child = Command::new(program)
            .arg("--name=fencing-lab")
            .arg(format!("--data-dir={}", data.display()))
            .arg(format!("--listen-client-urls={client_url}"))
            .arg(format!("--advertise-client-urls={client_url}"))
            .arg(format!("--listen-peer-urls={peer_url}"))
            .arg(format!("--initial-advertise-peer-urls={peer_url}"))
            .arg(format!("--initial-cluster=fencing-lab={peer_url}"))
            .args(["--logger=zap", "--log-level=error"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            // Its own process group: a Ctrl-C in the terminal reaches the lesson, which stops
            // etcd itself, in order.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", program.display()))?;
        self.child = Some(child);
        let mut probe = Etcd::new(
            std::slice::from_ref(&self.url),
            Duration::from_millis(500),
            Duration::from_millis(300),
        );
        let started = Instant::now();
        loop {
            if let Ok(status) = probe.call("/v3/maintenance/status", &json!({})) {
                if status.get("leader").is_some() {
                    self.version = status
                        .get("version")
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_owned();
                    return Ok(());
                }
            }
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                return Err(format!(
                    "etcd exited as it started ({status}): {}",
                    self.log_tail()
                ));
            }
            if started.elapsed() > STARTUP {
                return Err(format!(
                    "etcd did not start serving within {} s: {}",
                    STARTUP.as_secs(),
                    self.log_tail()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last line etcd logged, for a failure's sentence.
    fn log_tail(&self) -> String {
        let text = fs::read_to_string(self.dir.join("etcd.log")).unwrap_or_default();
        let line = text.lines().rev().find(|l| !l.trim().is_empty());
        let line = line.unwrap_or("it logged nothing");
        // zap's JSON lines carry the message in "msg".
        serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| {
                let msg = v.get("msg")?.as_str()?.to_owned();
                let error = v.get("error").and_then(|e| e.as_str());
                Some(match error {
                    Some(error) => format!("{msg}: {error}"),
                    None => msg,
                })
            })
            .unwrap_or_else(|| line.chars().take(300).collect())
    }

    pub fn url(&self) -> &Url {
        &self.url
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// etcd's version, as it reported it.
    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The command that opens the kept data again, for `--until`.
    pub fn reopen_command(&self) -> String {
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        format!(
            "etcd --name fencing-lab --data-dir {} --listen-client-urls {url} \
             --advertise-client-urls {url} --listen-peer-urls {peer} \
             --initial-advertise-peer-urls {peer} --initial-cluster fencing-lab={peer}",
            self.dir.join("data").display(),
            url = self.url,
        )
    }

    /// Stops etcd (SIGTERM, then SIGKILL after a while) and waits for it.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = signal::send(child.id(), Signal::Term);
            let started = Instant::now();
            while started.elapsed() < SHUTDOWN {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops etcd and removes its directory.
    pub fn stop(mut self) -> Result<(), String> {
        self.kill();
        let dir = std::mem::take(&mut self.dir);
        fs::remove_dir_all(&dir)
            .map_err(|e| format!("could not remove etcd's directory {}: {e}", dir.display()))
    }

    /// Stops etcd and keeps its directory (for `--until`); where it is.
    pub fn stop_keeping_data(mut self) -> PathBuf {
        self.kill();
        std::mem::take(&mut self.dir)
    }
}

impl Drop for PrivateEtcd {
    /// Whatever happens (a panic included), etcd is stopped and its directory removed.
    fn drop(&mut self) {
        self.kill();
        if !self.dir.as_os_str().is_empty() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}
