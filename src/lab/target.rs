//! What `check` runs: a student's folder (its language found from its files, run through its
//! adapter) or any command that speaks the protocol. A Rust crate is built and a Java folder
//! compiled first.

use super::program::confine;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::program::{Program, ProtocolError, Timeouts};

pub(crate) mod digest;
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

/// The files a student writes in `dir`, in the starter `check` runs there: the language (as
/// `lab init` names it) and each file's name (relative to `dir`) and text, by name; never the
/// adapter or the starter's helpers. A TypeScript source is read in place of the JavaScript
/// compiled from it. `None` where there is no starter or a file cannot be read.
pub fn student_files(dir: &Path) -> Option<(&'static str, Vec<(String, String)>)> {
    let (language, _) = starters_held(dir).next()?;
    let read = |name: &str| {
        Some((
            name.to_owned(),
            std::fs::read_to_string(dir.join(name)).ok()?,
        ))
    };
    let files: Vec<(String, String)> = match *language {
        "JavaScript" => {
            let source = ["lock_service.mts", "lock_service.ts", "lock_service.mjs"]
                .into_iter()
                .find(|name| dir.join(name).is_file())?;
            vec![read(source)?]
        }
        "Python" => vec![read("lock_service.py")?],
        "Rust" => {
            let mut names = Vec::new();
            let mut folders = vec![PathBuf::from("src")];
            while let Some(folder) = folders.pop() {
                for entry in std::fs::read_dir(dir.join(&folder)).ok()?.flatten() {
                    let relative = folder.join(entry.file_name());
                    if entry.file_type().ok()?.is_dir() {
                        folders.push(relative);
                    } else if relative.extension().is_some_and(|e| e == "rs")
                        && relative != Path::new("src/bin/adapter.rs")
                    {
                        names.push(relative.display().to_string());
                    }
                }
            }
            names.sort();
            names.iter().map(|n| read(n)).collect::<Option<_>>()?
        }
        _ => {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .ok()?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".java"))
                .filter(|n| {
                    !["Adapter.java", "Clock.java", "NotImplemented.java"].contains(&n.as_str())
                })
                .collect();
            names.sort();
            names.iter().map(|n| read(n)).collect::<Option<_>>()?
        }
    };
    let name = match *language {
        "JavaScript" => "js",
        "Python" => "python",
        "Rust" => "rust",
        _ => "java",
    };
    Some((name, files))
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
    let target = dir.join("target");
    // Cargo judges a crate's own sources by their times of change, so a copy that keeps its
    // times (or an edit that keeps size and time) would run the old build: where the contents
    // differ from the last build's, the crate's own build is cleaned first (its dependencies
    // stay built).
    let stamp_file = dir.join(".fencing-lab").join("built-from");
    let key = crate_key(dir);
    let built_from = |target: &Path| key.as_ref().map(|k| stamp(k, target));
    let fresh = built_from(&target)
        .is_some_and(|stamp| std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp));
    if !fresh {
        let _ = std::fs::remove_file(&stamp_file);
        if let (true, Some(package)) = (target.is_dir(), package_name(dir)) {
            let mut clean = Command::new("cargo");
            clean
                .args(["clean", "--release", "--quiet", "-p", &package])
                .current_dir(dir)
                .env("CARGO_TARGET_DIR", &target);
            confine::apply(&mut clean);
            let _ = clean.output();
        }
    }
    // A build runs the student's code too (build.rs): it is kept to its folder as the program is.
    let mut build = Command::new("cargo");
    build
        .args(["build", "--release", "--quiet", "--bin", "adapter"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target);
    confine::apply(&mut build);
    let output = build
        .output()
        .map_err(|e| fail(format!("could not run cargo to build {shown}: {e}")))?;
    if output.status.success() {
        // Only a record of what was built: a folder that cannot keep it is cleaned each time.
        if let Some(stamp) = built_from(&target) {
            let _ = std::fs::create_dir_all(dir.join(".fencing-lab"));
            let _ = std::fs::write(&stamp_file, stamp);
        }
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

/// The crate's package name, for `cargo clean -p`.
fn package_name(dir: &Path) -> Option<String> {
    let manifest: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()?
        .parse()
        .ok()?;
    Some(manifest.get("package")?.get("name")?.as_str()?.to_owned())
}

/// How many files, and bytes, a crate's key reads at most: past that it has none, and is built
/// as if changed each time.
const MOST_KEYED_FILES: usize = 10_000;
const MOST_KEYED_BYTES: u64 = 64 << 20;

/// What a Rust crate's build is made from: every file of the folder but its `target` and hidden
/// ones (`.git`, `.fencing-lab`), by name and contents. Cargo keys the toolchain itself.
fn crate_key(dir: &Path) -> Option<String> {
    let mut files = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(dir.join(&folder)).ok()? {
            let entry = entry.ok()?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.')
                || (folder.as_os_str().is_empty() && name == "target")
            {
                continue;
            }
            let relative = folder.join(&name);
            // Never through a link to a folder, which may lead back here.
            if entry.file_type().ok()?.is_dir() {
                folders.push(relative);
            } else if dir.join(&relative).is_file() {
                files.push(relative);
            }
        }
        if files.len() > MOST_KEYED_FILES {
            return None;
        }
    }
    files.sort();
    sources_key("cargo", dir, &files)
}

/// Each source's SHA-256 and name (relative to `dir`), under what compiles them: the same key
/// means the same sources, whatever their times of change. `None` if one cannot be read.
fn sources_key(tool: &str, dir: &Path, sources: &[PathBuf]) -> Option<String> {
    let mut key = format!("fencing-lab build key 1\ntool: {}\n", tool.trim());
    let mut bytes = 0;
    for source in sources {
        let path = dir.join(source);
        bytes += std::fs::metadata(&path).ok()?.len();
        if bytes > MOST_KEYED_BYTES {
            return None;
        }
        let contents = std::fs::read(&path).ok()?;
        let name = source.strip_prefix(dir).unwrap_or(source);
        key.push_str(&format!(
            "{} {}\n",
            digest::sha256_hex(&contents),
            name.display()
        ));
    }
    Some(key)
}

/// The record a build leaves: its key, and the folder it wrote by device and inode. A record
/// copied in with the folder (`cp -a`, a `.fencing-lab` committed to a student's repository)
/// names another folder than the one here, so the sources are built again rather than trusted
/// to match outputs this checker never wrote.
fn stamp(key: &str, outputs: &Path) -> String {
    #[cfg(unix)]
    let here = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(outputs).map_or_else(
            |_| "none".to_owned(),
            |m| format!("{}:{}", m.dev(), m.ino()),
        )
    };
    #[cfg(not(unix))]
    let here = outputs.display().to_string();
    format!("{key}outputs: {here}\n")
}

/// Each build record a folder may hold, and the outputs it names, both relative to the folder.
const RECORDS: [(&str, &str); 2] = [
    (".fencing-lab/built-from", "target"),
    (".fencing-lab/compiled-from", ".fencing-lab/classes"),
];

/// After a folder's build caches were copied from `from` to `to` (a grading's private copy, and
/// back), each record that was this checker's own in `from` is made so in `to`: it names the
/// copied outputs. A record that named other outputs in `from` is not carried over.
pub fn carry_records(from: &Path, to: &Path) {
    for (record, outputs) in RECORDS {
        let Ok(text) = std::fs::read_to_string(from.join(record)) else {
            continue;
        };
        let own = stamp("", &from.join(outputs));
        match text.strip_suffix(&own) {
            Some(key) if to.join(outputs).is_dir() => {
                let _ = std::fs::write(to.join(record), stamp(key, &to.join(outputs)));
            }
            _ => {
                let _ = std::fs::remove_file(to.join(record));
            }
        }
    }
}

/// The JDK `javac` belongs to: where it is, and its `release` file (which names its exact
/// version), else what `javac -version` says.
fn jdk() -> String {
    let javac = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|folder| folder.join("javac"))
        .find(|path| path.is_file())
        .and_then(|path| path.canonicalize().ok());
    let release = javac
        .as_ref()
        .and_then(|path| Some(path.parent()?.parent()?.join("release")))
        .and_then(|release| std::fs::read_to_string(release).ok());
    let version = release.unwrap_or_else(|| {
        Command::new("javac")
            .arg("-version")
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout).into_owned()
                    + &String::from_utf8_lossy(&o.stderr)
            })
            .unwrap_or_default()
    });
    let place = javac.map_or_else(String::new, |p| p.display().to_string());
    let version: Vec<&str> = version.split_whitespace().collect();
    format!("{place} {}", version.join(" "))
}

/// Compiles every `.java` file of the folder into `.fencing-lab/classes` inside it, unless the
/// classes there were compiled here, by this JDK, from sources of these very contents.
fn compile_java(dir: &Path, shown: &str) -> Result<PathBuf, ProtocolError> {
    let classes = dir.join(".fencing-lab").join("classes");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| fail(format!("could not read {shown}: {e}")))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "java") && p.is_file())
        .collect();
    sources.sort();
    let stamp_file = dir.join(".fencing-lab").join("compiled-from");
    let key = sources_key(&jdk(), dir, &sources);
    let compiled_from = |classes: &Path| key.as_ref().map(|k| stamp(k, classes));
    let fresh = classes.is_dir()
        && compiled_from(&classes)
            .is_some_and(|stamp| std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp));
    if fresh {
        return Ok(classes);
    }
    // A class of a source since deleted must not linger to be loaded.
    let _ = std::fs::remove_file(&stamp_file);
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes)
        .map_err(|e| fail(format!("could not make {}: {e}", classes.display())))?;
    let mut compile = Command::new("javac");
    compile
        .args(["-encoding", "UTF-8", "-nowarn", "-d"])
        .arg(&classes)
        .args(&sources)
        .current_dir(dir);
    confine::apply(&mut compile);
    let output = compile.output().map_err(|e| {
        fail(format!(
            "could not run javac to compile {shown} (a JDK 17 or newer is needed): {e}"
        ))
    })?;
    if output.status.success() {
        // Only a record of what was compiled: a folder that cannot keep it compiles each time.
        if let Some(stamp) = compiled_from(&classes) {
            let _ = std::fs::write(&stamp_file, stamp);
        }
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

    /// `path` rewritten by `edit` to the same size, its time of change put back as it was.
    fn edit_keeping_time(path: &Path, edit: impl Fn(&str) -> String) {
        let modified = fs::metadata(path).unwrap().modified().unwrap();
        let text = fs::read_to_string(path).unwrap();
        let edited = edit(&text);
        assert_ne!(edited, text, "the edit changes {}", path.display());
        assert_eq!(edited.len(), text.len(), "the edit keeps the size");
        fs::write(path, edited).unwrap();
        let file = fs::File::options().write(true).open(path).unwrap();
        file.set_modified(modified).unwrap();
        assert_eq!(fs::metadata(path).unwrap().modified().unwrap(), modified);
    }

    /// A Java starter with a class `Marker` that says `marker` (`old1` or `new2`).
    fn java_starter_saying(marker: &str) -> tempfile::TempDir {
        let starter = tempfile::tempdir().unwrap();
        crate::lab::starter::init("java", starter.path()).unwrap();
        fs::write(
            starter.path().join("Marker.java"),
            format!("class Marker {{ static final String SAYS = \"{marker}\"; }}\n"),
        )
        .unwrap();
        starter
    }

    /// What the compiled `Marker` says: the marker of the source it was compiled from.
    fn compiled_marker(dir: &Path) -> &'static str {
        let class = fs::read(dir.join(".fencing-lab/classes/Marker.class")).unwrap();
        let text = String::from_utf8_lossy(&class);
        ["old1", "new2"]
            .into_iter()
            .find(|m| text.contains(m))
            .unwrap_or("none")
    }

    /// The cache is keyed by the sources' contents: an edit that keeps a file's size and time
    /// of change (or a copy that keeps times: `cp -p`, `rsync -a`, `tar`) compiles again.
    #[test]
    fn a_java_edit_that_keeps_size_and_time_compiles_again() {
        if !jdk() {
            return;
        }
        let starter = java_starter_saying("old1");
        folder_command(starter.path()).unwrap();
        assert_eq!(compiled_marker(starter.path()), "old1");
        edit_keeping_time(&starter.path().join("Marker.java"), |t| {
            t.replace("old1", "new2")
        });
        folder_command(starter.path()).unwrap();
        assert_eq!(compiled_marker(starter.path()), "new2");
        let stamp = fs::read_to_string(starter.path().join(".fencing-lab/compiled-from")).unwrap();
        assert!(stamp.contains("tool: /"), "the JDK is in the key: {stamp}");
        assert!(!stamp.contains(&shown(starter.path())), "no path: {stamp}");
    }

    /// Classes copied in with a folder (`cp -a`, a `.fencing-lab` committed to a repository)
    /// are never trusted: a record names the folder its classes were written to, so the copy
    /// compiles its own even where its record matches its sources.
    #[test]
    fn classes_copied_in_with_their_record_are_compiled_again() {
        if !jdk() {
            return;
        }
        let original = java_starter_saying("old1");
        folder_command(original.path()).unwrap();
        let copy = tempfile::tempdir().unwrap();
        let status = Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", original.path().display()))
            .arg(copy.path())
            .status()
            .unwrap();
        assert!(status.success());
        // Classes that do not match the sources, beside a record that matches them.
        let forged = copy.path().join(".fencing-lab/classes/Marker.class");
        let class = fs::read(&forged).unwrap();
        let text = String::from_utf8_lossy(&class).replace("old1", "new2");
        fs::write(&forged, text.as_bytes()).unwrap();
        assert_eq!(compiled_marker(copy.path()), "new2");
        folder_command(copy.path()).unwrap();
        assert_eq!(compiled_marker(copy.path()), "old1");
        // The folder that compiled its classes keeps them.
        let adapter = original.path().join(".fencing-lab/classes/Adapter.class");
        let before = fs::metadata(&adapter).unwrap().modified().unwrap();
        folder_command(original.path()).unwrap();
        assert_eq!(fs::metadata(&adapter).unwrap().modified().unwrap(), before);
    }

    /// Cargo's own cache judges a crate by its files' times: where the contents differ from the
    /// last build's, the crate is built again whatever the times say.
    #[test]
    fn a_rust_edit_that_keeps_size_and_time_builds_again() {
        let starter = tempfile::tempdir().unwrap();
        crate::lab::starter::init("rust", starter.path()).unwrap();
        let lib = starter.path().join("src/lib.rs");
        let mut text = fs::read_to_string(&lib).unwrap();
        text.push_str("\npub const MARKER: &str = \"old1\";\n");
        fs::write(&lib, text).unwrap();
        let binary = starter.path().join("target/release/adapter");
        let built_at = || fs::metadata(&binary).unwrap().modified().unwrap();
        folder_command(starter.path()).unwrap();
        let first = built_at();
        edit_keeping_time(&lib, |t| t.replace("old1", "new2"));
        folder_command(starter.path()).unwrap();
        assert_ne!(built_at(), first, "the adapter is built again");
        let stamp = fs::read_to_string(starter.path().join(".fencing-lab/built-from")).unwrap();
        assert!(stamp.contains(" src/lib.rs\n"), "{stamp}");
        // The same contents again: cargo is left to its own cache, which builds nothing.
        let second = built_at();
        folder_command(starter.path()).unwrap();
        assert_eq!(built_at(), second);
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
