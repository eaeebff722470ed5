//! What `check` runs: a student's folder (its language found from its files, run through its
//! adapter) or any command that speaks the protocol. A Rust crate is built and a Java folder
//! compiled first.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::program::{Program, ProtocolError, Timeouts};
use crate::sim::text::{printable, shell_word};

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

    /// The words that name the target on a command line: the folder, or `--` and the command.
    fn words(&self) -> Vec<String> {
        match self {
            Target::Folder(dir) => vec![dir.display().to_string()],
            Target::Command(words) => std::iter::once("--".to_owned())
                .chain(words.iter().cloned())
                .collect(),
        }
    }

    /// A command line `fencing-lab WORDS... TARGET` that a shell runs as printed: `options` come
    /// before a command's `--`, so they stay fencing-lab's.
    fn command_line(&self, words: &[&str]) -> String {
        std::iter::once("fencing-lab".to_owned())
            .chain(words.iter().map(|w| (*w).to_owned()))
            .chain(self.words())
            .map(|w| shell_word(&printable(&w)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The command line that checks this target again, with `options` (`--only random`).
    pub fn check_command(&self, options: &[&str]) -> String {
        let mut words = vec!["check"];
        words.extend_from_slice(options);
        self.command_line(&words)
    }

    /// The command line that plays `scenario` with `seed` on this target in the UI.
    pub fn lesson_command(&self, scenario: &str, seed: u64) -> String {
        let seed = seed.to_string();
        let mut words = vec!["tui", scenario, "--seed", &seed];
        if matches!(self, Target::Folder(_)) {
            words.push("--impl");
        }
        self.command_line(&words)
    }

    /// Builds (Rust) or compiles (Java) the program, starts it and greets it.
    pub fn start(&self, timeouts: Timeouts) -> Result<Program, ProtocolError> {
        let command = match self {
            Target::Command(words) => {
                let (program, args) = words
                    .split_first()
                    .ok_or_else(|| ProtocolError::new("`check --` needs a command to run"))?;
                let mut command = Command::new(program);
                command.args(args);
                command
            }
            Target::Folder(dir) => folder_command(dir)?,
        };
        Program::start(command, timeouts)
    }
}

fn fail(sentence: String) -> ProtocolError {
    ProtocolError::new(sentence)
}

/// Whether `dir` holds a lab starter `lab init` wrote, in any language (nothing is built).
pub fn is_lab_folder(dir: &Path) -> bool {
    let has = |name: &str| dir.join(name).is_file();
    // A TypeScript starter counts too, before it is compiled to lock_service.mjs.
    starters_held(dir).next().is_some()
        || (has("adapter.mjs") && (has("lock_service.mts") || has("lock_service.ts")))
}

/// Each language's starter, by two of the files `lab init` writes, in the order `check` takes
/// them when a folder holds several: it runs the first (see `folder_command`).
const STARTERS: [(&str, [&str; 2]); 4] = [
    ("JavaScript", ["lock_service.mjs", "adapter.mjs"]),
    ("Python", ["lock_service.py", "adapter.py"]),
    ("Rust", ["Cargo.toml", "src/bin/adapter.rs"]),
    ("Java", ["LockService.java", "Adapter.java"]),
];

/// The starters `dir` holds whole, in the order `check` takes them.
fn starters_held(
    dir: &Path,
) -> impl Iterator<Item = &'static (&'static str, [&'static str; 2])> + '_ {
    STARTERS
        .iter()
        .filter(move |(_, files)| files.iter().all(|f| dir.join(f).is_file()))
}

/// A sentence naming the starters `dir` holds besides the one `check` runs, or `None` when it
/// holds one: a student who wrote the other one must not read its verdicts as theirs.
pub fn unchecked_starters(dir: &Path) -> Option<String> {
    let held: Vec<&(&str, [&str; 2])> = starters_held(dir).collect();
    let (checked, others) = held.split_first()?;
    if others.is_empty() {
        return None;
    }
    let others: Vec<String> = others
        .iter()
        .map(|(language, files)| format!("{language} ({})", files.join(", ")))
        .collect();
    Some(format!(
        "only the {} starter was checked; this folder also holds {}: a folder is checked in one \
         language, the first of JavaScript, Python, Rust and Java it holds",
        checked.0,
        others.join(" and ")
    ))
}

/// The command that runs a student's folder, from the files `lab init` wrote.
fn folder_command(dir: &Path) -> Result<Command, ProtocolError> {
    let shown = printable(&dir.display().to_string()).into_owned();
    if !dir.is_dir() {
        return Err(fail(format!("{shown} is not a folder")));
    }
    // Every path the tools get is absolute: they run in the folder, where a relative path
    // would be read twice over.
    let absolute = std::path::absolute(dir)
        .map_err(|e| fail(format!("could not find where {shown} is: {e}")))?;
    let dir = absolute.as_path();
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
    if has("Adapter.java") && has("LockService.java") {
        let classes = compile_java(dir, &shown)?;
        let mut command = Command::new("java");
        command
            .args(["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp"])
            .arg(classes)
            .arg("Adapter")
            .current_dir(dir);
        return Ok(command);
    }
    Err(fail(format!(
        "{shown} holds no lab starter: expected lock_service.mjs and adapter.mjs (JavaScript), \
         lock_service.py and adapter.py (Python), Cargo.toml and src/bin/adapter.rs (Rust), or \
         LockService.java and Adapter.java (Java), as `fencing-lab lab init` writes them"
    )))
}

fn build_rust(dir: &Path, shown: &str) -> Result<(), ProtocolError> {
    // The crate's own target folder: student crates share a package name, so one shared target
    // folder would reuse the first crate's build for all of them.
    let output = Command::new("cargo")
        .args(["build", "--release", "--quiet", "--bin", "adapter"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
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
        "{shown} does not build: {}{} (run `cargo build` there to see every error)",
        printable(first_error),
        printable(&place)
    )))
}

/// What the classes were compiled from: each source's name, size and time of change. The same
/// stamp means the same sources, so a check (or a class's 25 `--only` steps) compiles once.
fn sources_stamp(sources: &[PathBuf]) -> String {
    sources
        .iter()
        .map(|p| {
            let meta = std::fs::metadata(p).ok();
            let changed = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            let size = meta.map_or(0, |m| m.len());
            format!("{} {size} {changed}\n", p.display())
        })
        .collect()
}

/// Compiles every `.java` file of the folder into `.fencing-lab/classes` inside it, unless the
/// classes there were compiled from these very sources.
fn compile_java(dir: &Path, shown: &str) -> Result<PathBuf, ProtocolError> {
    let classes = dir.join(".fencing-lab").join("classes");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| fail(format!("could not read {shown}: {e}")))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "java") && p.is_file())
        .collect();
    sources.sort();
    let stamp_file = dir.join(".fencing-lab").join("compiled-from");
    let stamp = sources_stamp(&sources);
    if classes.is_dir() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(classes);
    }
    // A class of a source since deleted must not linger to be loaded.
    let _ = std::fs::remove_file(&stamp_file);
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes)
        .map_err(|e| fail(format!("could not make {}: {e}", classes.display())))?;
    let output = Command::new("javac")
        .args(["-encoding", "UTF-8", "-nowarn", "-d"])
        .arg(&classes)
        .args(&sources)
        .current_dir(dir)
        .output()
        .map_err(|e| {
            fail(format!(
                "could not run javac to compile {shown} (a JDK 17 or newer is needed): {e}"
            ))
        })?;
    if output.status.success() {
        // Only a record of what was compiled: a folder that cannot keep it compiles each time.
        let _ = std::fs::write(&stamp_file, stamp);
        return Ok(classes);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(fail(format!(
        "{shown} does not compile: {} (run `javac *.java` there to see every error)",
        printable(javac_first_error(&stderr, dir))
    )))
}

/// javac's first error ("LockService.java:12: error: ';' expected"), named from the folder;
/// else its first line that says anything.
fn javac_first_error<'a>(stderr: &'a str, dir: &Path) -> &'a str {
    let first = stderr
        .lines()
        .find(|l| l.contains(": error:"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("javac failed");
    first
        .strip_prefix(&format!("{}/", dir.display()))
        .unwrap_or(first)
        .trim()
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::fs;

    use super::*;
    use crate::lab::testing::{PATIENTLY, SH_HELLO};

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
             lock_service.py and adapter.py (Python), Cargo.toml and src/bin/adapter.rs (Rust), \
             or LockService.java and Adapter.java (Java), as `fencing-lab lab init` writes them",
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

    /// A replay line runs as printed: a path with a space is quoted, and the options come before
    /// a command's `--`, where they stay fencing-lab's.
    #[test]
    fn targets_are_named_and_checked_again_as_the_report_says() {
        let folder = Target::Folder(PathBuf::from("/home/ann/lab 1"));
        assert_eq!(folder.describe(), "/home/ann/lab 1");
        assert_eq!(
            folder.check_command(&[]),
            "fencing-lab check '/home/ann/lab 1'"
        );
        assert_eq!(
            folder.check_command(&["--only", "random"]),
            "fencing-lab check --only random '/home/ann/lab 1'"
        );
        assert_eq!(
            folder.lesson_command("chaos", 7),
            "fencing-lab tui chaos --seed 7 --impl '/home/ann/lab 1'"
        );
        let command = Target::Command(vec![
            "java".into(),
            "-cp".into(),
            "classes".into(),
            "Adapter".into(),
        ]);
        assert_eq!(command.describe(), "java -cp classes Adapter");
        assert_eq!(
            command.check_command(&["--only", "per-key"]),
            "fencing-lab check --only per-key -- java -cp classes Adapter"
        );
        assert_eq!(
            command.lesson_command("chaos", 3),
            "fencing-lab tui chaos --seed 3 -- java -cp classes Adapter"
        );
        assert_eq!(
            Target::Folder(PathBuf::from("lab\u{1b}[2J")).describe(),
            "lab\\u{1b}[2J"
        );
        assert_eq!(
            Target::Command(vec!["a\nb".into()]).check_command(&[]),
            "fencing-lab check -- 'a\\u{a}b'"
        );
    }

    #[test]
    fn a_command_target_runs_its_words_and_needs_at_least_one() {
        assert_eq!(
            Target::Command(vec![])
                .start(PATIENTLY)
                .err()
                .unwrap()
                .sentence,
            "`check --` needs a command to run"
        );
        let target = Target::Command(vec!["sh".into(), "-c".into(), SH_HELLO.into()]);
        assert_eq!(target.start(PATIENTLY).unwrap().language, "sh");
    }

    #[test]
    fn a_folder_target_runs_its_language_s_adapter() {
        if !crate::lab::testing::python3() {
            return;
        }
        let starter = tempfile::tempdir().unwrap();
        crate::lab::starter::init("python", starter.path()).unwrap();
        let program = Target::Folder(starter.path().to_owned())
            .start(PATIENTLY)
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
        // ... and says so, naming what it did not check.
        assert_eq!(
            unchecked_starters(mixed.path()).as_deref(),
            Some(
                "only the JavaScript starter was checked; this folder also holds Python \
                 (lock_service.py, adapter.py) and Rust (Cargo.toml, src/bin/adapter.rs): a \
                 folder is checked in one language, the first of JavaScript, Python, Rust and \
                 Java it holds"
            )
        );
        assert_eq!(unchecked_starters(js.path()), None);
        let java_too = folder(&[
            "lock_service.py",
            "adapter.py",
            "LockService.java",
            "Adapter.java",
        ]);
        assert!(unchecked_starters(java_too.path())
            .unwrap()
            .starts_with("only the Python starter was checked; this folder also holds Java"));

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
                .start(PATIENTLY)
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
            &["Adapter.java"],
            &["LockService.java"],
        ] {
            let none = folder(files);
            assert_eq!(
                folder_command(none.path()).unwrap_err().sentence,
                no_starter(none.path()),
                "{files:?}"
            );
        }
    }

    /// A lab folder holds a starter in some language, a TypeScript one counted before it is
    /// compiled; half a starter is no lab folder (`grade` then takes it for a class's folder).
    #[test]
    fn a_lab_folder_holds_a_whole_starter_typescript_before_it_is_compiled() {
        for (files, lab) in [
            (&["lock_service.py", "adapter.py"][..], true),
            (&["LockService.java", "Adapter.java"], true),
            (&["adapter.mjs", "lock_service.mts"], true),
            (&["adapter.mjs", "lock_service.ts"], true),
            (&["adapter.mjs"], false),
            (&["lock_service.mts"], false),
            (&["lock_service.ts"], false),
            (&["lock_service.py"], false),
            (&[], false),
        ] {
            assert_eq!(is_lab_folder(folder(files).path()), lab, "{files:?}");
        }
    }

    /// The error javac's output is summed up by: its first error, else its first words.
    #[test]
    fn javac_is_summed_up_by_its_first_error_else_its_first_words() {
        let dir = Path::new("/class/ada");
        let out = "Note: some input files use unchecked operations.\n\
                   /class/ada/LockService.java:12: error: ';' expected\n\
                   /class/ada/Adapter.java:3: error: cannot find symbol\n";
        assert_eq!(
            javac_first_error(out, dir),
            "LockService.java:12: error: ';' expected"
        );
        assert_eq!(
            javac_first_error("\n  \nerror: invalid flag: -x\n", dir),
            "error: invalid flag: -x"
        );
        assert_eq!(javac_first_error("", dir), "javac failed");
    }

    /// Whether a JDK runs here: a loud skip when it does not, an error in CI.
    fn jdk() -> bool {
        let present = std::process::Command::new("javac")
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !present {
            assert!(std::env::var_os("FENCING_LAB_CI").is_none(), "no JDK in CI");
            eprintln!("SKIPPED: javac is not installed");
        }
        present
    }

    /// A Java folder is compiled into its own `.fencing-lab/classes` and run from there; a
    /// compile error is one sentence with javac's first error, its file and line.
    #[test]
    fn a_java_folder_is_compiled_first_and_a_compile_error_names_javac_s_first_error() {
        if !jdk() {
            return;
        }
        let starter = tempfile::tempdir().unwrap();
        crate::lab::starter::init("java", starter.path()).unwrap();
        let program = Target::Folder(starter.path().to_owned())
            .start(PATIENTLY)
            .unwrap();
        assert!(
            program.language.starts_with("java "),
            "{}",
            program.language
        );
        assert!(starter
            .path()
            .join(".fencing-lab/classes/Adapter.class")
            .is_file());
        let storage = starter.path().join("FencedStorage.java");
        let source = fs::read_to_string(&storage).unwrap();
        fs::write(
            &storage,
            format!("{source}\nclass Broken {{ int x = ; }}\n"),
        )
        .unwrap();
        let error = folder_command(starter.path()).unwrap_err().sentence;
        let shown = shown(starter.path());
        assert!(
            error.starts_with(&format!("{shown} does not compile: FencedStorage.java:")),
            "{error}"
        );
        assert!(
            error.contains(": error: illegal start of expression"),
            "{error}"
        );
        assert!(
            error.ends_with("(run `javac *.java` there to see every error)"),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
    }

    /// The same sources compile once: a second start reuses the classes, and a changed source
    /// (or a deleted one, whose class must not linger) compiles again.
    #[test]
    fn a_java_folder_compiles_again_only_when_its_sources_change() {
        if !jdk() {
            return;
        }
        let starter = tempfile::tempdir().unwrap();
        crate::lab::starter::init("java", starter.path()).unwrap();
        let adapter_class = starter.path().join(".fencing-lab/classes/Adapter.class");
        let compiled_at = || fs::metadata(&adapter_class).unwrap().modified().unwrap();
        folder_command(starter.path()).unwrap();
        let first = compiled_at();
        folder_command(starter.path()).unwrap();
        assert_eq!(
            compiled_at(),
            first,
            "the same sources are not compiled again"
        );
        let extra = starter.path().join("Extra.java");
        fs::write(&extra, "class Extra {}\n").unwrap();
        folder_command(starter.path()).unwrap();
        assert_ne!(
            compiled_at(),
            first,
            "a new source compiles the folder again"
        );
        let extra_class = starter.path().join(".fencing-lab/classes/Extra.class");
        assert!(extra_class.is_file());
        fs::remove_file(&extra).unwrap();
        folder_command(starter.path()).unwrap();
        assert!(!extra_class.exists(), "a deleted source's class is gone");
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
