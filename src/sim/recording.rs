//! Record and replay: a session saved as JSON (scenario, seed, settings, every input with its
//! time) and loaded back into exactly the same run. Saving never destroys an older recording:
//! it writes a temporary file beside it and renames it into place.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::event::ClientId;
use super::files::read_text_file;
use super::files::{can_write, write_whole_with};
use super::input::{Input, InputKind};
use super::scenario::Scenario;
use super::session::Session;
use super::text::printable;
use super::time::{seconds, to_ms, MAX_MS};
use super::world::Setup;
use crate::FenceCheck;

const FORMAT: u32 = 1;

/// The largest recording read.
pub const MAX_RECORDING_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Recording {
    format: u32,
    /// A built-in name or the path the scenario was loaded from.
    scenario: String,
    seed: u64,
    fencing: bool,
    check: String,
    /// The folder of the student's implementation the session ran on; absent for this library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    implementation: Option<String>,
    inputs: Vec<RecordedInput>,
}

/// A loaded recording: the setup on this library, the inputs, and the folder of the student's
/// implementation it was made on, if any (the command line puts that program behind the setup).
pub struct Loaded {
    pub setup: Setup,
    pub inputs: Vec<Input>,
    pub implementation: Option<PathBuf>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct RecordedInput {
    /// Seconds.
    at: f64,
    /// pause, crash, delay, fencing or check.
    action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    check: Option<String>,
}

/// The session as recording JSON.
pub fn to_json(session: &Session) -> String {
    let inputs = session
        .inputs()
        .iter()
        .map(|input| {
            let (action, client, on, check) = match input.kind {
                InputKind::Pause { client } => ("pause", Some(client.number()), None, None),
                InputKind::Crash { client } => ("crash", Some(client.number()), None, None),
                InputKind::Delay { client } => ("delay", Some(client.number()), None, None),
                InputKind::Fencing { on } => ("fencing", None, Some(on), None),
                InputKind::Check(c) => ("check", None, None, Some(c.name().to_owned())),
            };
            RecordedInput {
                at: seconds(input.at),
                action: action.to_owned(),
                client,
                on,
                check,
            }
        })
        .collect();
    let recording = Recording {
        format: FORMAT,
        scenario: session.scenario().origin.clone(),
        seed: session.seed(),
        fencing: session.fencing_at_start(),
        check: session.check_at_start().name().to_owned(),
        implementation: session.setup().implemented_by.clone(),
        inputs,
    };
    serde_json::to_string_pretty(&recording).expect("a recording always serializes")
}

/// The setup and inputs of recording JSON; `source` names it in errors.
pub fn from_json(text: &str, source: &str) -> Result<Loaded, String> {
    let source = printable(source);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let recording: Recording = serde_json::from_str(text).map_err(|e| {
        format!(
            "{source}, line {}: not a fencing-lab recording: {}",
            e.line(),
            printable(&e.to_string())
        )
    })?;
    if recording.format != FORMAT {
        return Err(format!(
            "{source}: recording format {} is not the supported format {FORMAT}",
            recording.format
        ));
    }
    let scenario = Scenario::load(&recording.scenario).map_err(|e| {
        format!(
            "{source} names scenario {}: {e}",
            printable(&recording.scenario)
        )
    })?;
    let check = FenceCheck::from_name(&recording.check).ok_or_else(|| {
        format!(
            "{source}: field `check` has unknown check '{}'",
            printable(&recording.check)
        )
    })?;
    let mut inputs = Vec::with_capacity(recording.inputs.len());
    for (i, input) in recording.inputs.iter().enumerate() {
        let where_ = || format!("{source}: input {}", i + 1);
        if !(input.at.is_finite() && (0.0..=seconds(MAX_MS)).contains(&input.at)) {
            return Err(format!(
                "{}: field `at` must be a time from 0 to 86400 seconds, got {}",
                where_(),
                input.at
            ));
        }
        let client = || {
            input
                .client
                .and_then(|n| ClientId::from_number(n.into()))
                .ok_or_else(|| format!("{}: field `client` must be 1, 2 or 3", where_()))
        };
        let kind = match input.action.as_str() {
            "pause" => InputKind::Pause { client: client()? },
            "crash" => InputKind::Crash { client: client()? },
            "delay" => InputKind::Delay { client: client()? },
            "fencing" => InputKind::Fencing {
                on: input
                    .on
                    .ok_or_else(|| format!("{}: a fencing input needs field `on`", where_()))?,
            },
            "check" => InputKind::Check(
                input
                    .check
                    .as_deref()
                    .and_then(FenceCheck::from_name)
                    .ok_or_else(|| {
                        format!("{}: a check input needs a known field `check`", where_())
                    })?,
            ),
            other => {
                return Err(format!(
                    "{}: field `action` is '{}'; use pause, crash, delay, fencing or check",
                    where_(),
                    printable(other)
                ))
            }
        };
        let at = to_ms(input.at);
        // A session records inputs as they happen; out of order means the file was edited wrongly.
        if let Some(previous) = inputs.last().map(|p: &Input| p.at) {
            if at < previous {
                return Err(format!(
                    "{}: field `at` is {} s, earlier than the input before it; inputs must be in time order",
                    where_(),
                    input.at
                ));
            }
        }
        inputs.push(Input { at, kind });
    }
    let setup = Setup::new(Arc::new(scenario))
        .seed(recording.seed)
        .fencing(recording.fencing)
        .check(check);
    Ok(Loaded {
        setup,
        inputs,
        implementation: recording.implementation.map(PathBuf::from),
    })
}

/// Loads a recording from `path`.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let source = path.display().to_string();
    let text = read_text_file(path, MAX_RECORDING_BYTES, "a recording")
        .map_err(|e| format!("{}: {e}", printable(&source)))?;
    from_json(&text, &source)
}

/// Where a recording will be saved: checked at start, so a bad path is refused before the
/// session, not after it.
#[derive(Clone, Debug)]
pub struct SavePath {
    path: PathBuf,
}

impl SavePath {
    /// Checks that `path` can take a recording: its folder exists and is writable, and it is
    /// not a folder or a special file (a device like `/dev/full`, `/proc/version`).
    pub fn check(path: &Path) -> Result<SavePath, String> {
        let shown = printable(&path.display().to_string()).into_owned();
        can_write(path).map_err(|why| format!("cannot record to {shown}: {why}"))?;
        Ok(SavePath {
            path: path.to_owned(),
        })
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Saves `session`: all of it or nothing, never a cut file in place of an older one.
    pub fn save(&self, session: &Session) -> Result<(), String> {
        self.save_json(&to_json(session))
    }

    /// Saves recording JSON made earlier (the signal thread saves the loop's latest copy).
    pub fn save_json(&self, json: &str) -> Result<(), String> {
        self.save_with(json, |file, bytes| file.write_all(bytes))
    }

    /// As [`save_json`](Self::save_json), with the writer injected (tests make it fail).
    pub fn save_with(
        &self,
        json: &str,
        write: impl FnOnce(&mut std::fs::File, &[u8]) -> std::io::Result<()>,
    ) -> Result<(), String> {
        let shown = printable(&self.path.display().to_string()).into_owned();
        let text = format!("{json}\n");
        write_whole_with(&self.path, text.as_bytes(), write).map_err(|e| {
            format!(
                "could not save the recording to {shown} ({e}); any earlier file there is unchanged"
            )
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::files::{folder_of, temporary_beside};

    /// Where a recording may go is checked before the session, each refusal in its own words.
    #[cfg(unix)]
    #[test]
    fn a_save_path_must_be_a_regular_file_in_a_folder_that_exists() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        let shown = dir.display().to_string();
        let error = |path: &Path| SavePath::check(path).unwrap_err();
        assert_eq!(
            error(dir),
            format!("cannot record to {shown}: it is a folder")
        );
        assert_eq!(
            error(Path::new("/dev/null")),
            "cannot record to /dev/null: it is not a regular file (a FIFO or a device)"
        );
        let file = dir.join("old.json");
        std::fs::write(&file, "{}").unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(
            error(&link),
            format!("cannot record to {shown}/link.json: it is a link; give the file itself or a new path")
        );
        assert_eq!(
            error(&dir.join("missing/new.json")),
            format!("cannot record to {shown}/missing/new.json: the folder {shown}/missing does not exist")
        );
        // An existing file is replaced, and a new one may be made.
        assert_eq!(SavePath::check(&file).unwrap().path(), file);
        let new = dir.join("new.json");
        assert_eq!(SavePath::check(&new).unwrap().path(), new);
        assert!(!new.exists(), "the check leaves nothing behind");
    }

    /// A save replaces the file whole; a failed one leaves the old file and no temporary.
    #[test]
    fn a_save_writes_the_whole_recording_or_nothing() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        let scenario = Arc::new(Scenario::built_in("gc-pause").unwrap());
        let session = Session::played_to(crate::sim::Setup::new(scenario).seed(7), 12_000);
        let path = dir.join("lesson.json");
        let save = SavePath::check(&path).unwrap();
        save.save(&session).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{}\n", to_json(&session)));
        assert_eq!(load(&path).unwrap().setup.seed, 7);
        save.save_json("{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        let error = save
            .save_with("{\"a\": 1}", |file, bytes| {
                file.write_all(&bytes[..3])?;
                Err(std::io::Error::other("No space left on device"))
            })
            .unwrap_err();
        assert_eq!(
            error,
            format!(
                "could not save the recording to {}/lesson.json (No space left on device); any \
                 earlier file there is unchanged",
                dir.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        let names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["lesson.json"]);
    }

    #[test]
    fn a_bare_file_name_is_saved_in_the_current_folder_beside_its_temporary() {
        assert_eq!(folder_of(Path::new("new.json")), PathBuf::from("."));
        assert_eq!(
            folder_of(Path::new("/tmp/a/new.json")),
            PathBuf::from("/tmp/a")
        );
        let pid = std::process::id();
        assert_eq!(
            temporary_beside(Path::new("/tmp/a/new.json")),
            PathBuf::from(format!("/tmp/a/.new.json.{pid}.tmp"))
        );
        assert_eq!(
            temporary_beside(Path::new("/")),
            PathBuf::from(format!("./.file.{pid}.tmp"))
        );
        // The tests run in the crate's folder, which takes a new file.
        let bare = format!("fencing-lab-bare-{pid}.json");
        assert_eq!(
            SavePath::check(Path::new(&bare)).unwrap().path(),
            Path::new(&bare)
        );
        assert!(!Path::new(&format!(".{bare}.{pid}.tmp")).exists());
    }
}
