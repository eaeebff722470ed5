//! Where a student's program may write, while `grade` runs a class: only its own folder (a
//! private copy). On Linux, where user and mount namespaces are open to an unprivileged process,
//! each program (and each build of one) starts in namespaces of its own in which the guarded
//! folders (the class's, the copies', the reports') are mounted read-only and its own copy alone
//! writable; elsewhere it runs in its private copy and `grade` checks the originals after.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The folders no program may write, as `grade` set them; none outside a grading.
static GUARDED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// How the programs of a grading are kept from each other's folders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// A private copy each, and the guarded folders read-only in namespaces of its own.
    Namespaces,
    /// A private copy each; the originals checked unchanged after.
    CopiesOnly,
}

impl Isolation {
    /// The sentence a class's report says of it.
    pub fn sentence(self) -> &'static str {
        match self {
            Isolation::Namespaces => {
                "each submission ran in a private copy of its folder, every other folder of \
                 the class read-only to it (Linux user and mount namespaces)"
            }
            Isolation::CopiesOnly => {
                "each submission ran in a private copy of its folder (this machine offers no \
                 namespaces to make the others read-only: every folder was checked unchanged \
                 after)"
            }
        }
    }
}

/// Guards `folders` from every program started from now on, and says how: with namespaces if
/// this machine lets a program be started in them, else by copies alone.
pub fn guard(folders: Vec<PathBuf>) -> Isolation {
    let folders: Vec<PathBuf> = folders
        .into_iter()
        .map(|f| f.canonicalize().unwrap_or(f))
        .collect();
    *GUARDED.lock().unwrap_or_else(|e| e.into_inner()) = folders;
    // FENCING_LAB_ISOLATION=copies grades by copies alone, as a machine without namespaces does.
    let copies_asked = std::env::var_os("FENCING_LAB_ISOLATION").is_some_and(|v| v == "copies");
    if !copies_asked && namespaces_work() {
        Isolation::Namespaces
    } else {
        GUARDED.lock().unwrap_or_else(|e| e.into_inner()).clear();
        Isolation::CopiesOnly
    }
}

/// Guards nothing any more (the grading is over).
pub fn release() {
    GUARDED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Whether a program started in the namespaces can write its own folder and not a guarded
/// one: tried on two folders of its own, never on the class's.
fn namespaces_work() -> bool {
    let probe = std::env::temp_dir().join(format!(
        "fencing-lab-probe-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let (own, guarded) = (probe.join("own"), probe.join("guarded"));
    let made = std::fs::create_dir_all(&own).and_then(|()| std::fs::create_dir_all(&guarded));
    let mut command = Command::new("sh");
    command
        .args([
            "-c",
            "touch mine && ! touch \"$1/theirs\" 2>/dev/null",
            "sh",
        ])
        .arg(&guarded)
        .current_dir(&own);
    apply_guarding(&mut command, std::slice::from_ref(&guarded));
    let worked = made.is_ok()
        && command.output().is_ok_and(|out| out.status.success())
        && own.join("mine").exists()
        && !guarded.join("theirs").exists();
    let _ = std::fs::remove_dir_all(&probe);
    worked
}

/// Starts `command` (whose working folder is its own) in namespaces where every guarded folder
/// is read-only but its own; nothing when no grading guards any.
pub fn apply(command: &mut Command) {
    let guarded = GUARDED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    apply_guarding(command, &guarded);
}

fn apply_guarding(command: &mut Command, guarded: &[PathBuf]) {
    let Some(own) = command.get_current_dir().map(Path::to_path_buf) else {
        return;
    };
    if guarded.is_empty() {
        return;
    }
    let own = own.canonicalize().unwrap_or(own);
    let c = |p: &Path| CString::new(p.as_os_str().as_encoded_bytes()).ok();
    let guarded: Option<Vec<CString>> = guarded.iter().map(|g| c(g)).collect();
    let (Some(own), Some(guarded)) = (c(&own), guarded) else {
        return;
    };
    // SAFETY: getuid and getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // Root outside is nobody inside: a uid of 0 there would keep the capabilities to undo the
    // read-only mounts across exec.
    let inside = |id: u32| if id == 0 { 65534 } else { id };
    let uid_map = CString::new(format!("{} {uid} 1", inside(uid))).unwrap_or_default();
    let gid_map = CString::new(format!("{} {gid} 1", inside(gid))).unwrap_or_default();
    // SAFETY: the closure runs in the child between fork and exec, and makes only system calls
    // on strings made before the fork: it allocates nothing and takes no lock.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(command, move || {
            enter(&own, &guarded, &uid_map, &gid_map)
        });
    }
}

/// In the child: new user and mount namespaces, each guarded folder bound read-only onto
/// itself, its own folder bound writable onto itself, and its working folder entered again
/// through the new mounts (the old one's `..` would lead past them).
fn enter(
    own: &CString,
    guarded: &[CString],
    uid_map: &CString,
    gid_map: &CString,
) -> std::io::Result<()> {
    // SAFETY: each call gets valid NUL-terminated strings that outlive it.
    unsafe {
        checked(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
        write_file(c"/proc/self/setgroups", c"deny")?;
        write_file(c"/proc/self/uid_map", uid_map)?;
        write_file(c"/proc/self/gid_map", gid_map)?;
        checked(libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))?;
        for folder in guarded {
            bind_onto_itself(folder, libc::MS_RDONLY)?;
        }
        bind_onto_itself(own, 0)?;
        checked(libc::chdir(own.as_ptr()))
    }
}

/// Binds `folder` (and what is mounted below it) onto itself, then sets the new mount's
/// `flags` (read-only, or none: a bind copies the read-only flag of the mount it comes from).
unsafe fn bind_onto_itself(folder: &CString, flags: libc::c_ulong) -> std::io::Result<()> {
    let (none, at) = (std::ptr::null(), folder.as_ptr());
    checked(libc::mount(
        at,
        at,
        none,
        libc::MS_BIND | libc::MS_REC,
        std::ptr::null(),
    ))?;
    let remount = libc::MS_REMOUNT | libc::MS_BIND | flags;
    checked(libc::mount(none, at, none, remount, std::ptr::null()))
}

/// A system call's result: -1 is its error.
fn checked(result: libc::c_int) -> std::io::Result<()> {
    if result == -1 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes `text` to the file at `path`, with system calls only.
unsafe fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd == -1 {
        return Err(std::io::Error::last_os_error());
    }
    let bytes = text.to_bytes();
    let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    if written != bytes.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
