//! A class graded from private copies: before any program runs, each submission is read whole
//! (its build caches apart) and copied into a folder of the grader's own, and its program runs
//! in its copy, so a program that deletes `../other` deletes nothing of another student's. Where
//! the machine allows it the other folders are read-only to it too ([`confine`]); either way a
//! copy is made again from what was read if anything changed it before its turn, and after the
//! class each original is compared with what was read, and what a program changed put back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{check_in, Submission};
use crate::lab::check::{Plan, Report};
use crate::lab::program::confine::{self, Isolation};
use crate::lab::wire::ProtocolError;
use crate::sim::text::printable;

/// The folders a grader keeps in a submission for itself (build caches): copied in and back,
/// and not part of what must stay unchanged.
const CACHES: [&str; 2] = [".fencing-lab", "target"];

/// The most a submission may hold, its build caches apart, since every one is held in memory
/// while its class is graded: a lab folder's sources are a few tens of KB; more is what the lab
/// does not need (a `node_modules`, build outputs) or a submission meant to exhaust the grader.
const LARGEST_SUBMISSION: u64 = 4 * 1024 * 1024;

/// What a folder holds (its build caches apart): each path in it (relative), and what is there.
type Fingerprint = BTreeMap<PathBuf, Held>;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Held {
    Folder,
    /// Its bytes and its mode.
    File(Vec<u8>, u32),
    Link(PathBuf),
}

/// The class's copies, removed with it.
pub struct Copies {
    root: PathBuf,
    pub isolation: Isolation,
    /// Per submission: what its folder held when the grading began.
    held: Vec<Fingerprint>,
    /// Per submission: the links out of its folder, left out of its copy.
    pub links_out: Vec<Vec<String>>,
    /// Per submission: why it cannot be graded at all (its folder is a link out of the class's).
    refused: Vec<Option<String>>,
}

impl Copies {
    /// Reads and copies every submission of the class in `class`, and guards the class's folder,
    /// the copies' and `also` (say `-o DIR`) from every program started until it is dropped.
    pub fn make(
        class: &Path,
        submissions: &[Submission],
        also: &[PathBuf],
    ) -> Result<Copies, String> {
        let root = private_root().map_err(|e| {
            format!("grade: could not make a private folder for the class's copies ({e})")
        })?;
        let class = class.canonicalize().unwrap_or_else(|_| class.to_owned());
        let mut copies = Copies {
            root,
            isolation: Isolation::CopiesOnly,
            held: Vec::new(),
            links_out: Vec::new(),
            refused: Vec::new(),
        };
        for (i, submission) in submissions.iter().enumerate() {
            let real = real(&submission.dir);
            let refused = (!real.starts_with(&class)).then(|| {
                format!(
                    "its folder is a link out of the class's folder (to {}): only what is \
                     inside the class's folder is graded",
                    printable(&real.display().to_string())
                )
            });
            let mut links_out = Vec::new();
            let mut held = Fingerprint::new();
            let mut refused = refused;
            if refused.is_none() {
                let Some(read) = read_folder(&submission.dir, &real, &mut links_out) else {
                    refused = Some(format!(
                        "its folder holds more than the {} MiB a lab submission may (its build \
                         caches apart): remove what the lab does not need, such as node_modules \
                         or build outputs",
                        LARGEST_SUBMISSION / (1024 * 1024)
                    ));
                    copies.held.push(held);
                    copies.links_out.push(links_out);
                    copies.refused.push(refused);
                    continue;
                };
                held = read;
                let made = write_folder(&copies.dir(i), &held)
                    .and_then(|()| copy_caches(&submission.dir, &copies.dir(i)));
                made.map_err(|e| {
                    format!(
                        "grade: could not copy {} to a private folder ({e})",
                        printable(&submission.name)
                    )
                })?;
            }
            copies.held.push(held);
            copies.links_out.push(links_out);
            copies.refused.push(refused);
        }
        let mut guarded = vec![class, copies.root.clone()];
        guarded.extend(also.iter().cloned());
        copies.isolation = confine::guard(guarded);
        Ok(copies)
    }

    fn dir(&self, i: usize) -> PathBuf {
        self.root.join(i.to_string())
    }

    /// Checks submission `i` in its copy, made again first if another program changed it.
    pub fn check(&self, i: usize, submission: &Submission, plan: &Plan) -> Report {
        if let Some(why) = &self.refused[i] {
            let named = super::named(submission);
            return Report::not_started(&named, plan, &ProtocolError::new(why.clone()));
        }
        let copy = self.dir(i);
        if read_folder(&copy, &real(&copy), &mut Vec::new()).as_ref() != Some(&self.held[i]) {
            // Changed since it was copied: by another program, where no namespace guards it.
            let _ = std::fs::remove_dir_all(&copy);
            let _ = write_folder(&copy, &self.held[i])
                .and_then(|()| copy_caches(&submission.dir, &copy));
        }
        let report = check_in(submission, &copy, plan);
        // The build caches go back, so that the next grading need not build again.
        let _ = copy_caches(&copy, &submission.dir);
        let _ = std::fs::remove_dir_all(&copy);
        report
    }

    /// The submissions whose folders a program changed while the class was graded, each put
    /// back as it was (what was changed or removed; what was added stays), with how many of its
    /// paths differed.
    pub fn restore_changed(&self, submissions: &[Submission]) -> Vec<(String, usize)> {
        let mut changed = Vec::new();
        for ((submission, before), refused) in submissions.iter().zip(&self.held).zip(&self.refused)
        {
            if refused.is_some() {
                continue;
            }
            let now = read_folder(&submission.dir, &real(&submission.dir), &mut Vec::new())
                .unwrap_or_default();
            let differ = before
                .keys()
                .chain(now.keys())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .filter(|path| before.get(*path) != now.get(*path))
                .count();
            if differ > 0 {
                let _ = write_folder(&submission.dir, before);
                changed.push((submission.name.clone(), differ));
            }
        }
        changed
    }
}

impl Drop for Copies {
    fn drop(&mut self) {
        confine::release();
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn real(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_owned())
}

/// A folder of the grader's alone (mode 700) for the class's copies.
fn private_root() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("fencing-lab-grade-{}-{nanos}", std::process::id());
    let root = std::env::temp_dir().join(name);
    std::fs::DirBuilder::new().mode(0o700).create(&root)?;
    Ok(root)
}

/// What `dir` holds, its build caches apart: folders, files with their modes, and links that
/// stay inside `top` (the submission's real folder); a link out of it is left out and named in
/// `links_out`. `None` if its files come to more than [`LARGEST_SUBMISSION`] (told by their
/// sizes before any is read).
fn read_folder(dir: &Path, top: &Path, links_out: &mut Vec<String>) -> Option<Fingerprint> {
    use std::os::unix::fs::PermissionsExt;
    let mut held = Fingerprint::new();
    let mut bytes = 0;
    let mut folders = vec![PathBuf::new()];
    while let Some(at) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(dir.join(&at)) else {
            continue;
        };
        for entry in entries.flatten() {
            let relative = at.join(entry.file_name());
            if at.as_os_str().is_empty() && CACHES.iter().any(|c| entry.file_name() == *c) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let what = if kind.is_symlink() {
                if !path.canonicalize().is_ok_and(|to| to.starts_with(top)) {
                    links_out.push(printable(&relative.display().to_string()).into_owned());
                    continue;
                }
                Held::Link(std::fs::read_link(&path).unwrap_or_default())
            } else if kind.is_dir() {
                folders.push(relative.clone());
                Held::Folder
            } else if kind.is_file() {
                let metadata = entry.metadata().ok();
                bytes += metadata.as_ref().map_or(0, |m| m.len());
                if bytes > LARGEST_SUBMISSION {
                    return None;
                }
                let mode = metadata.map_or(0o644, |m| m.permissions().mode());
                Held::File(std::fs::read(&path).unwrap_or_default(), mode)
            } else {
                continue;
            };
            held.insert(relative, what);
        }
    }
    Some(held)
}

/// Writes what a folder held into `dir` (made if need be), over what is there.
fn write_folder(dir: &Path, held: &Fingerprint) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir)?;
    // In path order a folder comes before what is in it.
    for (relative, what) in held {
        let path = dir.join(relative);
        match what {
            Held::Folder => std::fs::create_dir_all(&path)?,
            Held::File(bytes, mode) => {
                if path.is_dir() && !path.is_symlink() {
                    std::fs::remove_dir_all(&path)?;
                }
                if std::fs::read(&path).ok().as_ref() != Some(bytes) {
                    let _ = std::fs::remove_file(&path);
                    std::fs::write(&path, bytes)?;
                }
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode))?;
            }
            Held::Link(to) => {
                if std::fs::read_link(&path).ok().as_ref() != Some(to) {
                    let _ = std::fs::remove_file(&path);
                    std::os::unix::fs::symlink(to, &path)?;
                }
            }
        }
    }
    Ok(())
}

/// Copies the build caches of folder `from` into folder `to`, replacing `to`'s.
fn copy_caches(from: &Path, to: &Path) -> std::io::Result<()> {
    for cache in CACHES {
        let (source, target) = (from.join(cache), to.join(cache));
        if !source.is_dir() || source.is_symlink() || target.is_symlink() {
            continue;
        }
        let _ = std::fs::remove_dir_all(&target);
        copy_tree(&source, &target)?;
    }
    // The build's records name its outputs by inode: they are made to name the copies.
    crate::lab::target::carry_records(from, to);
    Ok(())
}

/// Copies folder `from` to `to` as it is, a file at a time (a build cache may be large).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)?.flatten() {
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}
