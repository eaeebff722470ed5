//! Files written whole: a temporary file beside the target, synced, then renamed into place, so
//! a reader (or a crash) never sees half a file, and an older file survives a failed write.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` whole or not at all, with the writer injected (tests make it fail).
pub fn write_whole_with(
    path: &Path,
    bytes: &[u8],
    write: impl FnOnce(&mut std::fs::File, &[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let temporary = temporary_beside(path);
    let result = std::fs::File::create(&temporary).and_then(|mut file| {
        write(&mut file, bytes)?;
        file.sync_all()
    });
    let result = result.and_then(|()| std::fs::rename(&temporary, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// Writes `bytes` to `path` whole or not at all.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_whole_with(path, bytes, |file, bytes| file.write_all(bytes))
}

/// The folder a file goes in (`.` for a bare name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Where a file is written before it is renamed to `path`: hidden, beside it, this process's.
pub fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    folder_of(path).join(format!(".{name}.{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_file_is_hidden_beside_its_target() {
        assert_eq!(folder_of(Path::new("new.json")), PathBuf::from("."));
        assert_eq!(
            folder_of(Path::new("/tmp/a/new.json")),
            PathBuf::from("/tmp/a")
        );
        assert_eq!(
            temporary_beside(Path::new("/tmp/a/new.json")),
            PathBuf::from(format!("/tmp/a/.new.json.{}.tmp", std::process::id()))
        );
    }

    #[test]
    fn a_failed_write_leaves_the_older_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        write_whole(&path, b"old").unwrap();
        let failed = write_whole_with(&path, b"new", |file, bytes| {
            file.write_all(&bytes[..1])?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_whole(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }
}
