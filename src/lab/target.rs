//! What `check` runs: a student's folder (its language found from its files, run through its
//! adapter) or any command that speaks the protocol. A Rust crate is built first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::protocol::{Program, ProtocolError};
use crate::sim::text::printable;

/// The student's implementation.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Folder(PathBuf),
    Command(Vec<String>),
}

impl Target {
    /// How the report names it.
    pub fn describe(&self) -> String {
        match self {
            Target::Folder(dir) => printable(&dir.display().to_string()).into_owned(),
            Target::Command(words) => printable(&words.join(" ")).into_owned(),
        }
    }

    /// The command line that replays the check on this target.
    pub fn check_command(&self) -> String {
        match self {
            Target::Folder(_) => format!("fencing-lab check {}", self.describe()),
            Target::Command(_) => format!("fencing-lab check -- {}", self.describe()),
        }
    }

    /// Builds (for Rust) and starts the program, and greets it.
    pub fn start(&self, timeout: Duration) -> Result<Program, ProtocolError> {
        let command = match self {
            Target::Command(words) => {
                let (program, args) = words.split_first().ok_or_else(|| ProtocolError {
                    sentence: "`check --` needs a command to run".into(),
                })?;
                let mut command = Command::new(program);
                command.args(args);
                command
            }
            Target::Folder(dir) => folder_command(dir)?,
        };
        Program::start(command, timeout)
    }
}

fn fail(sentence: String) -> ProtocolError {
    ProtocolError { sentence }
}

/// The command that runs a student's folder, from the files `lab init` wrote.
fn folder_command(dir: &Path) -> Result<Command, ProtocolError> {
    let shown = printable(&dir.display().to_string()).into_owned();
    if !dir.is_dir() {
        return Err(fail(format!("{shown} is not a folder")));
    }
    let has = |name: &str| dir.join(name).is_file();
    if has("lock_service.mjs") && has("adapter.mjs") {
        let mut command = Command::new("node");
        command.arg("adapter.mjs").current_dir(dir);
        return Ok(command);
    }
    if has("adapter.mjs") && (has("lock_service.mts") || has("lock_service.ts")) {
        return Err(fail(format!(
            "{shown} holds TypeScript but no lock_service.mjs; compile it first with \
             `npx tsc --strict --target es2022 --module nodenext lock_service.mts` in that folder"
        )));
    }
    if has("lock_service.py") && has("adapter.py") {
        let mut command = Command::new("python3");
        command.arg("adapter.py").current_dir(dir);
        return Ok(command);
    }
    if has("Cargo.toml") && dir.join("src/bin/adapter.rs").is_file() {
        build_rust(dir, &shown)?;
        let mut command = Command::new(dir.join("target/release/adapter"));
        command.current_dir(dir);
        return Ok(command);
    }
    Err(fail(format!(
        "{shown} holds no lab starter: expected lock_service.mjs and adapter.mjs (JavaScript), \
         lock_service.py and adapter.py (Python), or Cargo.toml and src/bin/adapter.rs (Rust), \
         as `fencing-lab lab init` writes them"
    )))
}

fn build_rust(dir: &Path, shown: &str) -> Result<(), ProtocolError> {
    // The crate's own target folder: student crates share a package name, so one shared target
    // folder would reuse the first crate's build for all of them.
    let mut cargo = Command::new("cargo");
    cargo
        .args(["build", "--release", "--quiet", "--bin", "adapter"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"));
    super::cpu::unpinned(&mut cargo);
    let output = cargo
        .output()
        .map_err(|e| fail(format!("could not run cargo to build {shown}: {e}")))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first_error = stderr
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("cargo failed");
    let place = stderr
        .lines()
        .find(|l| l.trim_start().starts_with("-->"))
        .map(|l| format!(" at {}", l.trim_start().trim_start_matches("--> ")))
        .unwrap_or_default();
    Err(fail(format!(
        "{shown} does not build: {}{place} (run `cargo build` there to see every error)",
        printable(first_error)
    )))
}
