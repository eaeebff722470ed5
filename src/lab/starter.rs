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

/// The languages `lab init` knows, with the file the student edits.
pub const LANGUAGES: [(&str, &str); 3] = [
    ("js", "lock_service.mjs"),
    ("python", "lock_service.py"),
    ("rust", "src/lib.rs"),
];

fn files(language: &str) -> Option<Files> {
    match language {
        "js" | "javascript" | "ts" | "typescript" => Some(JS),
        "python" | "py" => Some(PYTHON),
        "rust" | "rs" => Some(RUST),
        _ => None,
    }
}

/// Writes the starter into `dir` (created if missing). Refuses to overwrite any file, so a
/// student's work is never lost to a second `init`. Returns the paths written.
pub fn init(language: &str, dir: &Path) -> Result<Vec<String>, String> {
    let files = files(language).ok_or_else(|| {
        format!(
            "'{}' is not a lab language; use js (also for TypeScript), python or rust",
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
