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

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::fs;

    use super::*;
    use crate::lab::script::double::{lab_path, PATIENT, SH_HELLO};

    /// A fresh folder holding empty `files` (paths relative to it).
    fn folder(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "").unwrap();
        }
        dir
    }

    fn shown(dir: &Path) -> String {
        dir.display().to_string()
    }

    fn no_starter(dir: &Path) -> String {
        format!(
            "{} holds no lab starter: expected lock_service.mjs and adapter.mjs (JavaScript), \
             lock_service.py and adapter.py (Python), or Cargo.toml and src/bin/adapter.rs \
             (Rust), as `fencing-lab lab init` writes them",
            shown(dir)
        )
    }

    fn typescript(dir: &Path) -> String {
        format!(
            "{} holds TypeScript but no lock_service.mjs; compile it first with `npx tsc --strict \
             --target es2022 --module nodenext lock_service.mts` in that folder",
            shown(dir)
        )
    }

    /// The program, arguments and folder of a command.
    fn parts(command: &Command) -> (&OsStr, Vec<&OsStr>, Option<&Path>) {
        (
            command.get_program(),
            command.get_args().collect(),
            command.get_current_dir(),
        )
    }

    #[test]
    fn targets_are_named_and_checked_again_as_the_report_says() {
        let folder = Target::Folder(PathBuf::from("/home/ann/lab 1"));
        assert_eq!(folder.describe(), "/home/ann/lab 1");
        assert_eq!(folder.check_command(), "fencing-lab check /home/ann/lab 1");
        let command = Target::Command(vec!["python3".into(), "adapter.py".into(), "-u".into()]);
        assert_eq!(command.describe(), "python3 adapter.py -u");
        assert_eq!(
            command.check_command(),
            "fencing-lab check -- python3 adapter.py -u"
        );
        assert_eq!(
            Target::Folder(PathBuf::from("lab\u{1b}[2J")).describe(),
            "lab\\u{1b}[2J"
        );
        assert_eq!(
            Target::Command(vec!["a\nb".into()]).check_command(),
            "fencing-lab check -- a\\u{a}b"
        );
    }

    #[test]
    fn a_command_target_runs_its_words_and_needs_at_least_one() {
        assert_eq!(
            Target::Command(vec![])
                .start(PATIENT)
                .err()
                .unwrap()
                .sentence,
            "`check --` needs a command to run"
        );
        let target = Target::Command(vec!["sh".into(), "-c".into(), SH_HELLO.into()]);
        assert_eq!(target.start(PATIENT).unwrap().language, "sh");
    }

    #[test]
    fn a_folder_target_runs_its_language_s_adapter() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let program = Target::Folder(lab_path("correct/python"))
            .start(PATIENT)
            .unwrap();
        assert!(
            program.language.starts_with("python 3."),
            "{}",
            program.language
        );

        let js = folder(&["lock_service.mjs", "adapter.mjs"]);
        let command = folder_command(js.path()).unwrap();
        let expected = (
            OsStr::new("node"),
            vec![OsStr::new("adapter.mjs")],
            Some(js.path()),
        );
        assert_eq!(parts(&command), expected);
        // JavaScript first, whatever else the folder holds.
        let all = [
            "lock_service.mjs",
            "adapter.mjs",
            "lock_service.mts",
            "lock_service.py",
            "adapter.py",
            "Cargo.toml",
            "src/bin/adapter.rs",
        ];
        let mixed = folder(&all);
        assert_eq!(
            parts(&folder_command(mixed.path()).unwrap()),
            (
                OsStr::new("node"),
                vec![OsStr::new("adapter.mjs")],
                Some(mixed.path())
            )
        );

        for files in [
            &["lock_service.py", "adapter.py"][..],
            &["lock_service.py", "adapter.py", "lock_service.mts"],
            &["lock_service.py", "adapter.py", "lock_service.ts"],
            &["lock_service.py", "adapter.py", "lock_service.mjs"],
        ] {
            let py = folder(files);
            assert_eq!(
                parts(&folder_command(py.path()).unwrap()),
                (
                    OsStr::new("python3"),
                    vec![OsStr::new("adapter.py")],
                    Some(py.path())
                ),
                "{files:?}"
            );
        }
    }

    #[test]
    fn a_folder_without_a_starter_says_what_it_expected() {
        let parent = tempfile::tempdir().unwrap();
        let missing = parent.path().join("missing");
        let sentence = format!("{} is not a folder", shown(&missing));
        assert_eq!(folder_command(&missing).unwrap_err().sentence, sentence);
        assert_eq!(
            Target::Folder(missing)
                .start(PATIENT)
                .err()
                .unwrap()
                .sentence,
            sentence
        );
        let holder = folder(&["lock_service.py"]);
        let file = holder.path().join("lock_service.py");
        assert_eq!(
            folder_command(&file).unwrap_err().sentence,
            format!("{} is not a folder", shown(&file))
        );

        for files in [
            &["adapter.mjs", "lock_service.mts"][..],
            &["adapter.mjs", "lock_service.ts"],
            &[
                "adapter.mjs",
                "lock_service.mts",
                "lock_service.py",
                "adapter.py",
            ],
        ] {
            let ts = folder(files);
            assert_eq!(
                folder_command(ts.path()).unwrap_err().sentence,
                typescript(ts.path()),
                "{files:?}"
            );
        }

        for files in [
            &[][..],
            &["lock_service.mjs"],
            &["adapter.mjs"],
            &["lock_service.mts"],
            &["lock_service.ts"],
            &["lock_service.py"],
            &["adapter.py"],
            &["lock_service.mjs", "adapter.py"],
            &["Cargo.toml"],
            &["src/bin/adapter.rs"],
            &["Cargo.toml", "src/adapter.rs"],
        ] {
            let none = folder(files);
            assert_eq!(
                folder_command(none.path()).unwrap_err().sentence,
                no_starter(none.path()),
                "{files:?}"
            );
        }
    }

    #[test]
    fn a_rust_folder_that_does_not_build_names_cargo_s_first_error() {
        let rust = folder(&["src/bin/adapter.rs"]);
        fs::write(
            rust.path().join("Cargo.toml"),
            "[package]\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        // As cargo sees it: without symbolic links.
        let dir = rust.path().canonicalize().unwrap();
        assert_eq!(
            folder_command(&dir).unwrap_err().sentence,
            format!(
                "{0} does not build: error: failed to parse manifest at `{0}/Cargo.toml` (run \
                 `cargo build` there to see every error)",
                shown(&dir)
            )
        );
    }
}
