//! `fencing-lab lab init LANGUAGE DIR`: the starter a student fills in, with its adapter.

use std::path::Path;

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

/// Writes the starter into `dir` (created if missing). Refuses to overwrite any file, so a
/// student's work is never lost to a second `init`. Returns the paths written.
pub fn init(language: &str, dir: &Path) -> Result<Vec<String>, String> {
    let files = files(language).ok_or_else(|| {
        format!(
            "'{}' is not a lab language; use js (also for TypeScript), python, rust or java",
            printable(language)
        )
    })?;
    let shown = printable(&dir.display().to_string()).into_owned();
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{shown} exists and is not a folder"));
    }
    if let Some((name, _)) = files.iter().find(|(name, _)| dir.join(name).exists()) {
        return Err(format!(
            "{shown}/{name} already exists; lab init never overwrites a file, so pick an empty folder"
        ));
    }
    let mut written = Vec::new();
    for (name, contents) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("could not create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, contents)
            .map_err(|e| format!("could not write {}: {e}", path.display()))?;
        written.push(format!("{shown}/{name}"));
    }
    Ok(written)
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
    }
}
