//! The zoo of student solutions (tests/lab/zoo), each built from a fresh `lab init` starter and
//! the student's own files, and the tools its programs need.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

pub fn lab_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab")
}

/// A tool the test needs: present, or a loud skip (an error in CI, where `.ci/run` installs it).
pub fn require(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(
        std::env::var_os("FENCING_LAB_CI").is_none(),
        "{what} is missing, and .ci/run should have installed it"
    );
    eprintln!("SKIPPED: {what} is not installed; run .ci/run, which installs it");
    false
}

pub fn has(program: &str) -> bool {
    Command::new(program)
        .arg(if program == "javac" {
            "-version"
        } else {
            "--version"
        })
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The pinned TypeScript compiler of tests/lab/package-lock.json.
pub fn tsc() -> Option<PathBuf> {
    let tsc = lab_dir().join("node_modules/.bin/tsc");
    require("TypeScript (npm ci --prefix tests/lab)", tsc.is_file()).then_some(tsc)
}

/// One textual change of a mutant.
#[derive(Clone, Debug, Deserialize)]
pub struct Edit {
    pub find: String,
    pub replace: String,
}

/// One entry of a zoo manifest: a solution in a folder of its own, or a mutant of one.
#[derive(Clone, Debug, Deserialize)]
pub struct Entry {
    pub name: String,
    #[serde(default)]
    pub language: String,
    #[serde(default)]
    pub idiom: String,
    /// The rule it breaks (none: a correct solution).
    pub breaks: Option<String>,
    #[serde(default)]
    pub how: String,
    /// A mutant's solution.
    pub base: Option<String>,
    pub file: Option<String>,
    pub find: Option<String>,
    pub replace: Option<String>,
    #[serde(default)]
    pub edit: Vec<Edit>,
    /// Checks the bug must leave not judged (charged to the rule it breaks), not passed: those
    /// it breaks too, through the rule it breaks (a clock read elsewhere breaks every check of
    /// when a lease ends).
    #[serde(default)]
    pub not_judged: Vec<String>,
    /// The method, as the protocol's `op`, that still throws the starter's "not implemented
    /// yet": only the checks of the rules about it may fail, and those it lists in
    /// `not_judged` are not judged, every other named check passes.
    pub unwritten: Option<String>,
    /// Every check but the broken rule's own passes: the bug is one finding, not a cause of
    /// others' not being judged.
    #[serde(default)]
    pub alone: bool,
}

impl Entry {
    /// A correct solution: it breaks no rule and has every method written.
    pub fn is_correct(&self) -> bool {
        self.breaks.is_none() && self.unwritten.is_none()
    }
}

#[derive(Debug, Deserialize)]
struct Manifest {
    #[serde(default)]
    solution: Vec<Entry>,
    #[serde(default)]
    mutant: Vec<Entry>,
}

/// Every entry of the zoo's manifest for `language` (python, js, ts, rust, java).
pub fn zoo(language: &str) -> Vec<Entry> {
    let path = lab_dir().join("zoo").join(format!("{language}.toml"));
    let text = std::fs::read_to_string(&path).unwrap();
    let manifest: Manifest =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let solutions: Vec<Entry> = manifest.solution;
    let mut mutants = manifest.mutant;
    for m in &mut mutants {
        let base = solutions
            .iter()
            .find(|s| Some(&s.name) == m.base.as_ref())
            .unwrap_or_else(|| panic!("{}: no base", m.name));
        m.language = base.language.clone();
    }
    solutions.into_iter().chain(mutants).collect()
}

/// The starter language `lab init` takes for a zoo language, and the student's files there.
fn layout(language: &str) -> (&'static str, &'static [(&'static str, &'static str)]) {
    match language {
        "python" => ("python", &[("lock_service.py", "lock_service.py")]),
        "js" => ("js", &[("lock_service.mjs", "lock_service.mjs")]),
        "ts" => ("js", &[("lock_service.mts", "lock_service.mts")]),
        "rust" => ("rust", &[("lib.rs", "src/lib.rs")]),
        "java" => (
            "java",
            &[
                ("LockService.java", "LockService.java"),
                ("FencedStorage.java", "FencedStorage.java"),
            ],
        ),
        other => panic!("no zoo language {other}"),
    }
}

/// The tool `language`'s programs need, checked once.
pub fn can_run(language: &str) -> bool {
    match language {
        "python" => require("python3", has("python3")),
        "js" => require("node", has("node")),
        "ts" => require("node", has("node")) && tsc().is_some(),
        "rust" => true,
        "java" => require("a JDK (javac and java)", has("javac") && has("java")),
        other => panic!("no zoo language {other}"),
    }
}

/// The entry as a student's folder: a fresh starter with the student's files (a mutant's with
/// its edits, each of which must match exactly once); TypeScript compiled.
/// The zoo's entry of `language` named `name`.
pub fn entry(language: &str, name: &str) -> Entry {
    zoo(language)
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no zoo entry {name} in {language}"))
}

/// `entry` built into `into` as the folder `folder` (a student's submission, say).
pub fn build_as(entry: &Entry, into: &Path, folder: &str) -> PathBuf {
    let dir = into.join(folder);
    std::fs::rename(build(entry, into), &dir).unwrap();
    dir
}

pub fn build(entry: &Entry, into: &Path) -> PathBuf {
    let (starter, files) = layout(&entry.language);
    let dir = into.join(entry.name.replace('/', "--"));
    fencing_lab::lab::starter::init(starter, &dir).unwrap();
    let source = lab_dir()
        .join("zoo")
        .join(entry.base.as_deref().unwrap_or(&entry.name));
    for (from, to) in files {
        let mut text = std::fs::read_to_string(source.join(from))
            .unwrap_or_else(|e| panic!("{}: {from}: {e}", entry.name));
        if entry.file.as_deref() == Some(*from) || (entry.file.is_none() && entry.base.is_some()) {
            let mut edits = entry.edit.clone();
            if let (Some(find), Some(replace)) = (&entry.find, &entry.replace) {
                edits.push(Edit {
                    find: find.clone(),
                    replace: replace.clone(),
                });
            }
            for edit in edits {
                let found = text.matches(edit.find.as_str()).count();
                assert_eq!(
                    found, 1,
                    "{}: `{}` matches {found} times",
                    entry.name, edit.find
                );
                text = text.replace(&edit.find, &edit.replace);
            }
        }
        std::fs::write(dir.join(to), text).unwrap();
    }
    if entry.language == "java" {
        // A Java student may add classes of their own (a lease class, an exception), or write
        // their own Lease in place of the starter's record: every other .java file is theirs.
        for file in std::fs::read_dir(&source).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".java") && !files.iter().any(|(from, _)| *from == name) {
                std::fs::copy(&path, dir.join(&name)).unwrap();
            }
        }
    }
    if entry.language == "ts" {
        let tsc = tsc().expect("tsc");
        let status = Command::new(tsc)
            .args([
                "--strict",
                "--target",
                "es2022",
                "--module",
                "nodenext",
                "lock_service.mts",
            ])
            .current_dir(&dir)
            .status()
            .unwrap();
        assert!(status.success(), "{}: tsc failed", entry.name);
    }
    dir
}
