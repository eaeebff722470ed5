//! `fencing-lab lab init LANGUAGE DIR`: the starter a student fills in, with its adapter.

use std::path::{Path, PathBuf};

use super::classroom;
use crate::sim::files;
use crate::sim::text::printable;

/// A starter's files: (path inside DIR, contents).
type Files = &'static [(&'static str, &'static str)];

const JS: Files = &[
    (
        "lock_service.mjs",
        include_str!("../../assets/lab/js/lock_service.mjs"),
    ),
    (
        "lock_service.d.ts",
        include_str!("../../assets/lab/js/lock_service.d.ts"),
    ),
    (
        "not_implemented.mjs",
        include_str!("../../assets/lab/js/not_implemented.mjs"),
    ),
    (
        "adapter.mjs",
        include_str!("../../assets/lab/js/adapter.mjs"),
    ),
    ("README.md", include_str!("../../assets/lab/js/README.md")),
];

const PYTHON: Files = &[
    (
        "lock_service.py",
        include_str!("../../assets/lab/python/lock_service.py"),
    ),
    (
        "not_implemented.py",
        include_str!("../../assets/lab/python/not_implemented.py"),
    ),
    (
        "adapter.py",
        include_str!("../../assets/lab/python/adapter.py"),
    ),
    (
        "README.md",
        include_str!("../../assets/lab/python/README.md"),
    ),
];

const RUST: Files = &[
    (
        "Cargo.toml",
        include_str!("../../assets/lab/rust/Cargo.toml"),
    ),
    (
        "Cargo.lock",
        include_str!("../../assets/lab/rust/Cargo.lock"),
    ),
    (
        "src/lib.rs",
        include_str!("../../assets/lab/rust/src/lib.rs"),
    ),
    (
        "src/bin/adapter.rs",
        include_str!("../../assets/lab/rust/src/bin/adapter.rs"),
    ),
    ("README.md", include_str!("../../assets/lab/rust/README.md")),
];

const JAVA: Files = &[
    (
        "LockService.java",
        include_str!("../../assets/lab/java/LockService.java"),
    ),
    (
        "FencedStorage.java",
        include_str!("../../assets/lab/java/FencedStorage.java"),
    ),
    (
        "Lease.java",
        include_str!("../../assets/lab/java/Lease.java"),
    ),
    (
        "Clock.java",
        include_str!("../../assets/lab/java/Clock.java"),
    ),
    (
        "NotImplemented.java",
        include_str!("../../assets/lab/java/NotImplemented.java"),
    ),
    (
        "Adapter.java",
        include_str!("../../assets/lab/java/Adapter.java"),
    ),
    ("README.md", include_str!("../../assets/lab/java/README.md")),
];

/// The languages `lab init` knows, with the file the student edits.
pub const LANGUAGES: [(&str, &str); 4] = [
    ("js", "lock_service.mjs"),
    ("python", "lock_service.py"),
    ("rust", "src/lib.rs"),
    ("java", "LockService.java and FencedStorage.java"),
];

fn files(language: &str) -> Option<Files> {
    match language {
        "js" | "javascript" | "ts" | "typescript" => Some(JS),
        "python" | "py" => Some(PYTHON),
        "rust" | "rs" => Some(RUST),
        "java" => Some(JAVA),
        _ => None,
    }
}

/// Writes the starter into `dir`: [`init_with`] without CI files.
pub fn init(language: &str, dir: &Path) -> Result<Vec<String>, String> {
    init_with(language, dir, None).map(|starter| starter.shown)
}

/// A starter just written: the paths, as `lab init` shows them, and what to remove to undo it.
#[derive(Debug)]
pub struct Written {
    pub shown: Vec<String>,
    files: Vec<PathBuf>,
    folders: Vec<PathBuf>,
}

impl Written {
    /// Removes what was written, the folders it made too: nothing half-made is left.
    pub fn remove(&self) {
        for path in self.files.iter().rev() {
            let _ = std::fs::remove_file(path);
        }
        for folder in self.folders.iter().rev() {
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// The CI files `lab init --ci` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ci {
    /// GitHub Classroom's workflow and tests, beside the starter.
    Github,
    /// A Gradescope autograder, in place of the starter: its `setup.sh`, `run_autograder` and
    /// `points.toml`.
    Gradescope,
}

/// Where a starter's CI files go, for `--ci github`.
pub const GITHUB_WORKFLOW: &str = ".github/workflows/classroom.yml";
pub const GITHUB_AUTOGRADING: &str = ".github/classroom/autograding.json";

/// The files of a Gradescope autograder, for `--ci gradescope`; the scripts are executable.
pub const GRADESCOPE_SETUP: &str = "setup.sh";
pub const GRADESCOPE_RUN: &str = "run_autograder";
pub const GRADESCOPE_POINTS: &str = "points.toml";

/// Writes the starter into `dir` (created if missing), with GitHub Classroom's workflow and
/// tests for `Ci::Github`; for `Ci::Gradescope`, the autograder in place of the starter (which
/// `run_autograder` makes afresh for each submission). Refuses to overwrite any file, so a
/// student's work is never lost to a second `init`; a failure part way (a full disk) removes
/// what this call wrote, so a retry starts clean. Returns what it wrote.
pub fn init_with(language: &str, dir: &Path, ci: Option<Ci>) -> Result<Written, String> {
    let starter = files(language).ok_or_else(|| {
        format!(
            "'{}' is not a lab language; use js (also for TypeScript), python, rust or java",
            printable(language)
        )
    })?;
    let mut files: Vec<(&str, String)> = starter
        .iter()
        .map(|(name, text)| (*name, (*text).to_owned()))
        .collect();
    let canonical = canonical_name(language);
    match ci {
        None => {}
        Some(Ci::Github) => {
            files.push((GITHUB_WORKFLOW, classroom::workflow(canonical)));
            files.push((GITHUB_AUTOGRADING, classroom::autograding_json()));
        }
        Some(Ci::Gradescope) => {
            files = vec![
                (GRADESCOPE_SETUP, classroom::gradescope_setup(canonical)),
                (GRADESCOPE_RUN, classroom::gradescope_run(canonical)),
                (GRADESCOPE_POINTS, classroom::gradescope_points()),
            ];
        }
    }
    let shown = printable(&dir.display().to_string()).into_owned();
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{shown} exists and is not a folder"));
    }
    // Never through a link: the starter would land wherever the link points.
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "{shown} is a link; give the folder itself, so the starter lands where you see it"
        ));
    }
    if let Some((name, _)) = files.iter().find(|(name, _)| dir.join(name).exists()) {
        return Err(format!(
            "{shown}/{name} already exists; lab init never overwrites a file, so pick an empty folder"
        ));
    }
    let mut written: Vec<PathBuf> = Vec::new();
    let mut made: Vec<PathBuf> = Vec::new();
    for (name, contents) in &files {
        let path = dir.join(name);
        let executable = [GRADESCOPE_SETUP, GRADESCOPE_RUN].contains(name);
        let written_new = write_new(&path, contents, &mut made).and_then(|()| match executable {
            true => make_executable(&path),
            false => Ok(()),
        });
        if let Err(why) = written_new {
            Written {
                shown: Vec::new(),
                files: written,
                folders: made,
            }
            .remove();
            return Err(why);
        }
        written.push(path);
    }
    Ok(Written {
        shown: files
            .iter()
            .map(|(name, _)| format!("{shown}/{name}"))
            .collect(),
        files: written,
        folders: made,
    })
}

/// The name `language` goes by in the CI files' set-up.
fn canonical_name(language: &str) -> &'static str {
    match language {
        "python" | "py" => "python",
        "rust" | "rs" => "rust",
        "java" => "java",
        _ => "js",
    }
}

/// A script Gradescope runs, readable and runnable by all.
fn make_executable(path: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(|e| {
            format!(
                "could not make {} executable: {e}",
                printable(&path.display().to_string())
            )
        })?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// One new file, whole: its missing folders made (and noted, to be removed on failure).
fn write_new(path: &Path, contents: &str, made: &mut Vec<PathBuf>) -> Result<(), String> {
    let shown = |p: &Path| printable(&p.display().to_string()).into_owned();
    let mut missing: Vec<PathBuf> = path
        .ancestors()
        .skip(1)
        .take_while(|folder| !folder.as_os_str().is_empty() && !folder.exists())
        .map(Path::to_owned)
        .collect();
    missing.reverse();
    for folder in missing {
        std::fs::create_dir(&folder)
            .map_err(|e| format!("could not create {}: {e}", shown(&folder)))?;
        made.push(folder);
    }
    files::write_whole(path, contents.as_bytes())
        .map_err(|e| format!("could not write {}: {e}", shown(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_writes_each_languages_starter_under_each_of_its_names() {
        let cases: [(&str, Files); 7] = [
            ("js", JS),
            ("javascript", JS),
            ("ts", JS),
            ("typescript", JS),
            ("python", PYTHON),
            ("py", PYTHON),
            ("rs", RUST),
        ];
        for (language, files) in cases {
            let root = tempfile::tempdir().unwrap();
            let dir = root.path().join(language);
            let written = init(language, &dir).unwrap();
            let shown = dir.display().to_string();
            let expected: Vec<String> = files
                .iter()
                .map(|(name, _)| format!("{shown}/{name}"))
                .collect();
            assert_eq!(written, expected, "{language}");
            for (name, contents) in files {
                assert_eq!(
                    std::fs::read_to_string(dir.join(name)).unwrap(),
                    *contents,
                    "{language}: {name}"
                );
            }
        }
        // Each language's own files.
        for (language, edited) in LANGUAGES {
            let files = files(language).unwrap();
            for edited in edited.split(" and ") {
                assert!(files.iter().any(|(name, _)| *name == edited), "{language}");
            }
        }
        assert!(JAVA.iter().any(|(name, _)| *name == "Adapter.java"));
        assert!(RUST.iter().any(|(name, _)| *name == "src/bin/adapter.rs"));
        assert!(PYTHON.iter().any(|(name, _)| *name == "adapter.py"));
        assert!(JS.iter().any(|(name, _)| *name == "adapter.mjs"));
    }

    #[test]
    fn init_never_overwrites_and_names_what_is_wrong() {
        assert_eq!(
            init("cobol", Path::new("x")).unwrap_err(),
            "'cobol' is not a lab language; use js (also for TypeScript), python, rust or java"
        );
        // An empty folder that exists is fine.
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        assert_eq!(init("python", dir).unwrap().len(), PYTHON.len());
        let shown = dir.display().to_string();
        assert_eq!(
            init("python", dir).unwrap_err(),
            format!(
                "{shown}/lock_service.py already exists; lab init never overwrites a file, so \
                 pick an empty folder"
            )
        );
        let file = dir.join("lock_service.py");
        assert_eq!(
            init("js", &file).unwrap_err(),
            format!("{shown}/lock_service.py exists and is not a folder")
        );
        // A link to a folder is refused: nothing is written where it points.
        #[cfg(unix)]
        {
            let elsewhere = root.path().join("elsewhere");
            std::fs::create_dir(&elsewhere).unwrap();
            let link = root.path().join("link");
            std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
            let error = init("python", &link).unwrap_err();
            assert!(
                error.ends_with(
                    "is a link; give the folder itself, so the starter lands where you see it"
                ),
                "{error}"
            );
            assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        }
    }

    #[test]
    fn a_failure_part_way_removes_what_it_wrote_so_a_retry_starts_clean() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("lab");
        std::fs::create_dir(&dir).unwrap();
        // Cargo.toml and Cargo.lock go in first; src/lib.rs cannot, `src` being a file.
        std::fs::write(dir.join("src"), "in the way").unwrap();
        let why = init("rust", &dir).unwrap_err();
        assert!(
            why.starts_with(&format!("could not write {}/src/lib.rs", dir.display())),
            "{why}"
        );
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            left,
            ["src"],
            "nothing of the starter is left, no temporary either"
        );
        std::fs::remove_file(dir.join("src")).unwrap();
        assert_eq!(init("rust", &dir).unwrap().len(), RUST.len());
    }

    #[test]
    fn github_ci_adds_the_workflow_and_classroom_tests_for_the_language() {
        for (language, canonical) in [
            ("py", "python"),
            ("ts", "js"),
            ("java", "java"),
            ("rust", "rust"),
        ] {
            let root = tempfile::tempdir().unwrap();
            let written = init_with(language, root.path(), Some(Ci::Github))
                .unwrap()
                .shown;
            let shown = root.path().display().to_string();
            assert!(
                written.contains(&format!("{shown}/{GITHUB_WORKFLOW}")),
                "{written:?}"
            );
            assert!(
                written.contains(&format!("{shown}/{GITHUB_AUTOGRADING}")),
                "{written:?}"
            );
            let workflow = std::fs::read_to_string(root.path().join(GITHUB_WORKFLOW)).unwrap();
            assert_eq!(workflow, classroom::workflow(canonical), "{language}");
            let tests = std::fs::read_to_string(root.path().join(GITHUB_AUTOGRADING)).unwrap();
            assert_eq!(tests, classroom::autograding_json());
        }
        let root = tempfile::tempdir().unwrap();
        assert!(!init("python", root.path())
            .unwrap()
            .iter()
            .any(|p| p.contains(".github")));
    }

    /// `--ci gradescope` writes the autograder in place of the starter, its scripts executable
    /// and for the language; never over a file.
    #[test]
    fn gradescope_ci_writes_the_autograder_for_the_language() {
        use std::os::unix::fs::PermissionsExt;
        for (language, canonical) in [("py", "python"), ("ts", "js"), ("java", "java")] {
            let root = tempfile::tempdir().unwrap();
            let written = init_with(language, root.path(), Some(Ci::Gradescope))
                .unwrap()
                .shown;
            let shown = root.path().display().to_string();
            let names = [GRADESCOPE_SETUP, GRADESCOPE_RUN, GRADESCOPE_POINTS];
            let expected: Vec<String> = names.iter().map(|n| format!("{shown}/{n}")).collect();
            assert_eq!(written, expected, "{language}");
            let read = |name: &str| std::fs::read_to_string(root.path().join(name)).unwrap();
            assert_eq!(
                read(GRADESCOPE_SETUP),
                classroom::gradescope_setup(canonical)
            );
            assert_eq!(read(GRADESCOPE_RUN), classroom::gradescope_run(canonical));
            assert_eq!(read(GRADESCOPE_POINTS), classroom::gradescope_points());
            for (name, mode) in [(GRADESCOPE_SETUP, 0o755), (GRADESCOPE_RUN, 0o755)] {
                let meta = std::fs::metadata(root.path().join(name)).unwrap();
                assert_eq!(meta.permissions().mode() & 0o777, mode, "{name}");
            }
            let again = init_with(language, root.path(), Some(Ci::Gradescope)).unwrap_err();
            assert!(again.ends_with("lab init never overwrites a file, so pick an empty folder"));
        }
    }
}
