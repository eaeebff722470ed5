//! A small Chrome DevTools Protocol client over `--remote-debugging-pipe`: headless Chromium reads
//! commands on fd 3 and answers on fd 4, one JSON message each, ended by a NUL byte. Enough to
//! load a page, click, press keys, read the DOM, count network requests and take screenshots.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Where Debian's Chromium is, if it is installed.
pub fn chromium() -> Option<std::path::PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
    })
}

pub struct Browser {
    child: Child,
    to: File,
    from: Receiver<Value>,
    next_id: u64,
    session: Option<String>,
    /// Events that arrived while waiting for an answer.
    pub events: VecDeque<Value>,
}

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two ints for pipe(2) to fill.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe(2) failed");
    (fds[0], fds[1])
}

impl Browser {
    /// Starts headless Chromium with every host name unresolvable, so nothing on a network can
    /// be reached even if the page asked.
    pub fn launch(exe: &Path, profile: &Path) -> Browser {
        let (cmd_read, cmd_write) = pipe();
        let (out_read, out_write) = pipe();
        let mut command = Command::new(exe);
        command
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                "--host-resolver-rules=MAP * ~NOTFOUND",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe dup2/close between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::dup2(cmd_read, 3) < 0 || libc::dup2(out_write, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                for fd in [cmd_read, cmd_write, out_read, out_write] {
                    if fd > 4 {
                        libc::close(fd);
                    }
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("chromium starts");
        // SAFETY: the parent owns these ends now; the child's copies are its own.
        let to = unsafe {
            libc::close(cmd_read);
            libc::close(out_write);
            File::from_raw_fd(cmd_write)
        };
        let reader = unsafe { File::from_raw_fd(out_read) };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        message.pop();
                        if let Ok(value) = serde_json::from_slice::<Value>(&message) {
                            if tx.send(value).is_err() {
                                break;
                            }
                        }
                    }
                }
            }
        });
        Browser {
            child,
            to,
            from: rx,
            next_id: 0,
            session: None,
            events: VecDeque::new(),
        }
    }

    /// Sends a command (to the attached page, once there is one) and waits for its answer.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(value) if value["id"] == json!(id) => {
                    assert!(
                        value.get("error").is_none(),
                        "{method} failed: {}",
                        value["error"]
                    );
                    return value["result"].clone();
                }
                Ok(value) => self.events.push_back(value),
                Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer {method}"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium went away during {method}"),
            }
        }
    }

    /// Waits for an event named `method`, keeping the others.
    pub fn wait_for(&mut self, method: &str) -> Value {
        if let Some(i) = self
            .events
            .iter()
            .position(|e| e["method"] == json!(method))
        {
            return self.events.remove(i).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from.recv_timeout(left) {
                Ok(value) if value["method"] == json!(method) => return value,
                Ok(value) => self.events.push_back(value),
                Err(_) => panic!("no {method} from chromium"),
            }
        }
    }

    /// Takes every event that has arrived so far.
    pub fn drain(&mut self) -> Vec<Value> {
        while let Ok(value) = self.from.try_recv() {
            self.events.push_back(value);
        }
        self.events.drain(..).collect()
    }

    /// Opens a page target and talks to it from now on.
    pub fn attach_page(&mut self) {
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        self.session = Some(attached["sessionId"].as_str().unwrap().to_owned());
    }

    /// Evaluates `expression` in the page, returning its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression} threw: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// A real mouse click at the middle of the element `selector` finds (scrolled into view).
    pub fn click(&mut self, selector: &str) {
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        assert!(at.is_array(), "nothing on the page matches {selector}");
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// A real key press.
    pub fn key(&mut self, key: &str, code: &str, key_code: u32) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code}),
            );
        }
    }

    /// The viewport as a PNG file.
    pub fn screenshot(&mut self, path: &Path, full_page: bool) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": full_page}),
        );
        let data = decode_base64(shot["data"].as_str().unwrap());
        std::fs::write(path, data).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64, as CDP sends images.
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

#[test]
fn base64_decodes_what_cdp_sends() {
    assert_eq!(decode_base64("aGVsbG8sIHdvcmxk"), b"hello, world");
    assert_eq!(decode_base64("YQ=="), b"a");
}
