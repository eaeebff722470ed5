//! The three client processes: started from this binary's hidden `live-client` command, each
//! in a process group of its own (a Ctrl-C reaches only the conductor, which stops them in
//! order), ordered through their standard input, heard through their standard output, frozen
//! with SIGSTOP, thawed with SIGCONT, crashed with SIGKILL, and never left behind.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::orders::{Order, Reply};
use super::signal::{self, Signal};
use crate::sim::ClientId;

/// How long the processes may take to start and say they are ready.
const STARTUP: Duration = Duration::from_secs(15);

/// What the conductor hears from a client process.
#[derive(Debug)]
pub enum Heard {
    /// A reply, from the process's `generation`-th start.
    Reply(ClientId, u32, Reply),
    /// The process's standard output closed: it ended (or was killed). Its last stderr line.
    Ended(ClientId, u32, String),
}

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    generation: u32,
    stopped: bool,
}

/// The client processes of one run.
pub struct Fleet {
    exe: PathBuf,
    args: Vec<String>,
    procs: [Option<Proc>; 3],
    generations: [u32; 3],
    tx: Sender<Heard>,
    rx: Receiver<Heard>,
}

impl Fleet {
    /// Starts the three processes of run `run` (the same binary, `exe`) and waits until each
    /// says it is ready.
    pub fn start(exe: &Path, endpoints: &str, prefix: &str, run: &str) -> Result<Fleet, String> {
        let (tx, rx) = mpsc::channel();
        let mut fleet = Fleet {
            exe: exe.to_owned(),
            args: vec![
                "live-client".into(),
                format!("--etcd={endpoints}"),
                format!("--prefix={prefix}"),
                format!("--run={run}"),
            ],
            procs: [None, None, None],
            generations: [0; 3],
            tx,
            rx,
        };
        for client in ClientId::ALL {
            fleet.spawn(client)?;
        }
        let mut ready = 0;
        let started = Instant::now();
        while ready < 3 {
            let left = STARTUP.saturating_sub(started.elapsed());
            match fleet.rx.recv_timeout(left) {
                Ok(Heard::Reply(_, _, Reply::Ready { .. })) => ready += 1,
                Ok(Heard::Ended(client, _, last)) => {
                    return Err(format!(
                        "{client}'s process ended as it started{}",
                        said(&last)
                    ))
                }
                Ok(_) => {}
                Err(_) => {
                    return Err(format!(
                        "the client processes did not start within {} s",
                        STARTUP.as_secs()
                    ))
                }
            }
        }
        Ok(fleet)
    }

    /// Starts (or restarts) `client`'s process; its pid. Its replies come through [`recv`].
    pub fn spawn(&mut self, client: ClientId) -> Result<u32, String> {
        let i = client.index();
        self.generations[i] += 1;
        let generation = self.generations[i];
        let mut child = Command::new(&self.exe)
            .args(&self.args)
            .arg(format!("--client={}", client.number()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("could not start {client}'s process: {e}"))?;
        let pid = child.id();
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let last = Arc::new(Mutex::new(String::new()));
        let last_err = Arc::clone(&last);
        let errors = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !line.trim().is_empty() {
                    *last_err.lock().unwrap_or_else(|p| p.into_inner()) = line;
                }
            }
        });
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let heard = match serde_json::from_str::<Reply>(&line) {
                    Ok(reply) => Heard::Reply(client, generation, reply),
                    Err(_) => Heard::Reply(
                        client,
                        generation,
                        Reply::Failed {
                            doing: "answering".into(),
                            error: format!("it printed something that is not a reply: {line}"),
                        },
                    ),
                };
                if tx.send(heard).is_err() {
                    return;
                }
            }
            let _ = errors.join();
            let last = last.lock().unwrap_or_else(|p| p.into_inner()).clone();
            let _ = tx.send(Heard::Ended(client, generation, last));
        });
        self.procs[i] = Some(Proc {
            stdin: child.stdin.take(),
            child,
            generation,
            stopped: false,
        });
        Ok(pid)
    }

    /// `client`'s process id, while it runs.
    pub fn pid(&self, client: ClientId) -> Option<u32> {
        self.procs[client.index()].as_ref().map(|p| p.child.id())
    }

    /// The generation of `client`'s running process (replies of an older one are stale).
    pub fn generation(&self, client: ClientId) -> Option<u32> {
        self.procs[client.index()].as_ref().map(|p| p.generation)
    }

    /// Sends `order` to `client` (a frozen process reads it when it thaws).
    pub fn order(&mut self, client: ClientId, order: &Order) -> Result<(), String> {
        let proc = self.procs[client.index()]
            .as_mut()
            .ok_or_else(|| format!("{client}'s process is not running"))?;
        let stdin = proc.stdin.as_mut().expect("open while running");
        let line = serde_json::to_string(order).expect("an order is always JSON");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("could not give {client} its order: {e}"))
    }

    /// Freezes `client`'s process (SIGSTOP).
    pub fn stop(&mut self, client: ClientId) -> Result<u32, String> {
        let proc = self.procs[client.index()]
            .as_mut()
            .ok_or_else(|| format!("{client}'s process is not running"))?;
        signal::send(proc.child.id(), Signal::Stop)?;
        proc.stopped = true;
        Ok(proc.child.id())
    }

    /// Thaws `client`'s process (SIGCONT).
    pub fn cont(&mut self, client: ClientId) -> Result<u32, String> {
        let proc = self.procs[client.index()]
            .as_mut()
            .ok_or_else(|| format!("{client}'s process is not running"))?;
        signal::send(proc.child.id(), Signal::Cont)?;
        proc.stopped = false;
        Ok(proc.child.id())
    }

    /// Kills `client`'s process (SIGKILL) and waits for it: a crash.
    pub fn crash(&mut self, client: ClientId) {
        if let Some(mut proc) = self.procs[client.index()].take() {
            let _ = proc.child.kill();
            let _ = proc.child.wait();
        }
    }

    /// Waits for `client`'s ended process and says how it ended ("killed by signal 9").
    pub fn reap(&mut self, client: ClientId) -> String {
        use std::os::unix::process::ExitStatusExt;
        let Some(mut proc) = self.procs[client.index()].take() else {
            return "ended".into();
        };
        match proc.child.wait() {
            Ok(status) => match (status.code(), status.signal()) {
                (Some(code), _) => format!("exited with code {code}"),
                (None, Some(signal)) => format!("was killed by signal {signal}"),
                _ => "ended".into(),
            },
            Err(_) => "ended".into(),
        }
    }

    /// The next thing a process said, waiting at most `timeout`.
    pub fn recv(&self, timeout: Duration) -> Option<Heard> {
        if timeout.is_zero() {
            return self.rx.try_recv().ok();
        }
        self.rx.recv_timeout(timeout).ok()
    }

    /// Ends every process: thawed, told to quit, given a moment, then killed; all waited for.
    pub fn shutdown(&mut self) {
        for proc in self.procs.iter_mut().flatten() {
            if proc.stopped {
                let _ = signal::send(proc.child.id(), Signal::Cont);
            }
            if let Some(mut stdin) = proc.stdin.take() {
                let _ = writeln!(stdin, "{}", serde_json::to_string(&Order::Quit).unwrap());
            }
        }
        let started = Instant::now();
        for slot in self.procs.iter_mut() {
            let Some(mut proc) = slot.take() else {
                continue;
            };
            loop {
                match proc.child.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if started.elapsed() < Duration::from_secs(1) => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    _ => {
                        let _ = proc.child.kill();
                        let _ = proc.child.wait();
                        break;
                    }
                }
            }
        }
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// ": LAST" when a process said something on stderr before it ended.
pub fn said(last: &str) -> String {
    if last.is_empty() {
        String::new()
    } else {
        format!(" (its last words: {})", crate::sim::text::printable(last))
    }
}
