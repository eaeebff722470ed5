//! The lab's test double: a student's implementation in-process, correct unless told to make one
//! of the mistakes students make, so that the checker's own tests run in microseconds instead of
//! driving programs. Each mistake is named after what it gets wrong, and [`Mistake::breaks`]
//! names the one rule it breaks. Also the helpers the lab's tests share.

mod hangs;
mod mistake;
pub mod reports;
mod student;

pub use hangs::HangsWhenHeld;
pub use mistake::Mistake;
pub use student::Student;

/// How long a test waits for a program's answer: long enough for any answer on a busy
/// machine; only a broken test waits for it.
pub const PATIENT: std::time::Duration = std::time::Duration::from_secs(30);

/// Timeouts of [`PATIENT`] for a program's start and for each of its requests.
pub const PATIENTLY: crate::lab::wire::Timeouts = crate::lab::wire::Timeouts {
    startup: PATIENT,
    request: PATIENT,
};

/// A shell line that reads the `hello` request and answers it, as a program in `sh`.
pub const SH_HELLO: &str =
    r#"read l; echo '{"id":0,"hello":"fencing-lab-adapter","language":"sh"}'"#;

/// A program in `sh` that says hello, writes the first request it reads into a file of the
/// returned folder, answers it, then runs `then`: for tests that see when a request reached it
/// ([`first_request`]).
pub fn recording_first_request(then: &str) -> (tempfile::TempDir, std::process::Command) {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("got");
    let script = format!(
        r#"{SH_HELLO}
        read l; echo "$l" > '{}'; echo '{{"id":1,"done":true}}'
        {then}"#,
        file.display()
    );
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    (folder, command)
}

/// The first request a [`recording_first_request`] program read, once it has written it whole
/// (waiting [`PATIENT`] at most).
pub fn first_request(folder: &tempfile::TempDir) -> String {
    let file = folder.path().join("got");
    let got = || std::fs::read_to_string(&file).unwrap_or_default();
    let waited = std::time::Instant::now();
    while !got().ends_with('\n') && waited.elapsed() < PATIENT {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    got()
}

/// A file or folder under `tests/lab`: the lab's solutions and broken programs.
pub fn lab_path(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lab")
        .join(path)
}

/// Whether `python3` runs here, for the tests that drive the lab's Python solution: a loud skip
/// when it does not, and an error in CI, where `.ci/run` checks for it.
pub fn python3() -> bool {
    let present = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            std::env::var_os("FENCING_LAB_CI").is_none(),
            "python3 is missing, and .ci/run should have found it"
        );
        eprintln!("SKIPPED: python3 is not installed; run .ci/run, which checks for it");
    }
    present
}
