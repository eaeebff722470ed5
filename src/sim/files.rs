//! Files written whole: a temporary file beside the target, synced, then renamed into place, so
//! a reader (or a crash) never sees half a file, and an older file survives a failed write; and
//! text files read with a limit, never from a pipe or a device.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::text::printable;

/// Writes `bytes` to `path` whole or not at all, with the writer injected (tests make it fail).
pub fn write_whole_with(
    path: &Path,
    bytes: &[u8],
    write: impl FnOnce(&mut std::fs::File, &[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if let Some(why) = refusal(path) {
        return Err(std::io::Error::other(why));
    }
    let temporary = temporary_beside(path);
    // A file replaced keeps its permissions: a page kept private stays private.
    let kept = std::fs::metadata(path).ok().map(|m| m.permissions());
    let result = std::fs::File::create(&temporary).and_then(|mut file| {
        if let Some(permissions) = kept {
            file.set_permissions(permissions)?;
        }
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

/// Why `path` cannot be replaced by a file written whole, if it cannot. Only a regular file or
/// a new path is: a link would be replaced rather than the file it names, a FIFO would hang
/// whoever opens it, a device would take the bytes elsewhere.
pub fn refusal(path: &Path) -> Option<&'static str> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Some("it is a folder"),
        Ok(meta) if meta.file_type().is_symlink() => {
            Some("it is a link; give the file itself or a new path")
        }
        Ok(meta) if !meta.is_file() => Some("it is not a regular file (a FIFO or a device)"),
        _ => None,
    }
}

/// Whether a file can be written whole at `path`, checked before the work that makes it: the
/// target is a regular file or new, its folder exists and takes a new file. Why not, if not.
pub fn can_write(path: &Path) -> Result<(), String> {
    if let Some(why) = refusal(path) {
        return Err(why.to_owned());
    }
    let folder = folder_of(path);
    let shown = printable(&folder.display().to_string()).into_owned();
    if !folder.is_dir() {
        return Err(format!("the folder {shown} does not exist"));
    }
    // Prove the folder takes a new file: the write makes one beside the target, then renames.
    let probe = temporary_beside(path);
    std::fs::File::create(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| match e.kind() {
            // /proc and its like have folders that take no new file at all.
            std::io::ErrorKind::NotFound => format!("the folder {shown} takes no new files"),
            _ => format!("{e}"),
        })
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

/// Reads a text file of at most `max` bytes: only a regular file (a FIFO or a device would block
/// or never end), never more than `max + 1` bytes, a byte-order mark dropped.
pub fn read_text_file(path: &Path, max: u64, what: &str) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.is_dir() {
        return Err(format!("is a folder, not {what}"));
    }
    if !meta.is_file() {
        return Err(format!(
            "is not a regular file (a pipe or a device?), so it cannot be {what}"
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > max {
        let limit = if max.is_multiple_of(1024 * 1024) {
            format!("{} MiB", max / (1024 * 1024))
        } else {
            format!("{} KiB", max / 1024)
        };
        return Err(format!("is more than the {limit} {what} may have"));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
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

    /// A file written over keeps its permissions; a new one gets the usual ones.
    #[cfg(unix)]
    #[test]
    fn a_file_written_over_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("lesson.html");
        std::fs::write(&page, "old").unwrap();
        std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_whole(&page, b"new").unwrap();
        let mode = std::fs::metadata(&page).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "new");
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

    #[test]
    fn only_a_regular_file_or_a_new_path_is_written_never_a_link_a_fifo_or_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("page.html");
        std::fs::write(&file, "old").unwrap();
        let link = dir.path().join("link.html");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        for (path, why) in [
            (&link, "it is a link; give the file itself or a new path"),
            (&fifo, "it is not a regular file (a FIFO or a device)"),
            (&dir.path().to_path_buf(), "it is a folder"),
        ] {
            assert_eq!(refusal(path), Some(why));
            let error = write_whole(path, b"new").unwrap_err();
            assert_eq!(error.to_string(), why);
        }
        assert_eq!(
            std::fs::read(&file).unwrap(),
            b"old",
            "the link's file is untouched"
        );
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            refusal(Path::new("/dev/null")),
            Some("it is not a regular file (a FIFO or a device)")
        );
        assert_eq!(refusal(&file), None);
        assert_eq!(refusal(&dir.path().join("new.html")), None);
    }

    /// Before the work that makes a file: a folder that is missing, and one that exists but
    /// takes no new file (Linux's /proc), are each said so, not as the system's bare "No such
    /// file or directory"; a folder that takes files passes, with nothing left in it.
    #[test]
    fn a_folder_that_is_missing_or_takes_no_new_file_is_said_so_before_the_work() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(can_write(&dir.path().join("lesson.svg")), Ok(()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let missing = dir.path().join("nowhere");
        assert_eq!(
            can_write(&missing.join("lesson.svg")),
            Err(format!("the folder {} does not exist", missing.display()))
        );
        if cfg!(target_os = "linux") {
            assert_eq!(
                can_write(Path::new("/proc/self/lesson.svg")),
                Err("the folder /proc/self takes no new files".to_owned())
            );
        }
    }
}
