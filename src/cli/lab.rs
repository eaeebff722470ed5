//! `fencing-lab lab init`, `fencing-lab check` and `--impl`: the student's side of the tool.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::args::{CheckArgs, CheckFormat};
use super::Failure;
use crate::lab::protocol::{fmt_time, Reply, Request};
use crate::lab::remote::{self, Fault};
use crate::lab::{check, starter, Plan, Target};
use crate::sim::backend::BackendFactory;
use crate::sim::text::printable;
use crate::sim::Scenario;

/// `lab init LANGUAGE DIR`.
pub fn init(out: &mut impl Write, language: &str, dir: &Path) -> Result<ExitCode, Failure> {
    let written = starter::init(language, dir).map_err(Failure::usage)?;
    let edit = starter::LANGUAGES
        .iter()
        .find(|(l, _)| language.starts_with(&l[..2]))
        .map_or("lock_service", |(_, file)| file);
    for path in &written {
        writeln!(out, "wrote {path}")?;
    }
    let shown = printable(&dir.display().to_string()).into_owned();
    writeln!(
        out,
        "\nNext: fill in {shown}/{edit} (every method says \"not implemented yet\" until you do), \
         then run\n  fencing-lab check {shown}\nand, to watch your code in the lesson,\n  \
         fencing-lab tui gc-pause --impl {shown}"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The backend for `--impl DIR`, and the fault to report when the program fails mid-run.
pub fn backend(dir: &Path) -> Result<(BackendFactory, Fault), Failure> {
    let target = Target::Folder(dir.to_owned());
    let program = target
        .start(crate::lab::DEFAULT_TIMEOUT)
        .map_err(|e| Failure::usage(format!("--impl {}: {e}", target.describe())))?;
    let fault = Fault::default();
    let factory = remote::factory_with_fault(Arc::new(Mutex::new(program)), fault.clone());
    Ok((factory, fault))
}

/// After a run on `--impl`: a program that stopped answering makes the run untrustworthy.
pub fn fault_of(fault: &Option<Fault>) -> Result<(), Failure> {
    let Some(fault) = fault else { return Ok(()) };
    match fault.lock().ok().and_then(|f| f.clone()) {
        Some(sentence) => Err(Failure::usage(format!(
            "your implementation stopped answering, so the run stops there: {sentence}"
        ))),
        None => Ok(()),
    }
}

/// `check DIR` or `check -- COMMAND`.
pub fn run_check(out: &mut impl Write, args: &CheckArgs) -> Result<ExitCode, Failure> {
    let target = match (&args.dir, args.command.is_empty()) {
        (Some(_), false) => {
            return Err(Failure::usage(
                "give check either a folder or a command after `--`, not both",
            ))
        }
        (Some(dir), true) => Target::Folder(dir.clone()),
        (None, _) => Target::Command(args.command.clone()),
    };
    let timeout = Duration::from_millis(args.timeout);
    let program = target
        .start(timeout)
        .map_err(|e| Failure::usage(e.sentence))?;
    let plan = Plan {
        chaos_seeds: args.seeds,
        only: args.only.clone(),
        ..Plan::default()
    };
    let report = check::run(&target, program, &plan).map_err(|e| Failure::usage(e.sentence))?;
    match args.format {
        CheckFormat::Text => write!(out, "{}", check::text(&report))?,
        CheckFormat::Json => writeln!(out, "{}", check::json(&report))?,
    }
    out.flush()?;
    if args.tui {
        if let Some(outcome) = report.first_failure() {
            open_failure(&target, outcome)?;
        }
    }
    Ok(if report.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Opens a failure in the UI: the chaos seed on the student's code, or the minimal case made a
/// scenario (each call a beat, captioned with what it returned and what the seed expected).
fn open_failure(target: &Target, outcome: &check::Outcome) -> Result<(), Failure> {
    let failure = outcome.failure.as_ref().expect("a failing outcome");
    let Target::Folder(dir) = target else {
        return Err(Failure::usage(
            "--tui needs a folder (the UI drives the program through its adapter), not a command",
        ));
    };
    let (name, world) = match failure.chaos_seed {
        Some(seed) => (
            "chaos".to_owned(),
            super::args::WorldArgs {
                seed: Some(seed),
                implementation: Some(dir.clone()),
                ..Default::default()
            },
        ),
        None => {
            let text = minimal_case_scenario(&outcome.id, failure);
            // Validated here, so a case the lesson cannot show is one sentence, not a bad file.
            Scenario::parse("minimal-case", "check --tui", &text)
                .map_err(|e| Failure::usage(format!("the minimal case cannot be shown: {e}")))?;
            // Named after the rule, so the header reads "renew-extends-from-now: ...".
            let folder = std::env::temp_dir().join(format!("fencing-lab-{}", std::process::id()));
            let path = folder.join(format!("{}.toml", outcome.id));
            std::fs::create_dir_all(&folder)
                .and_then(|()| std::fs::write(&path, &text))
                .map_err(|e| Failure::usage(format!("could not write {}: {e}", path.display())))?;
            let world = super::args::WorldArgs {
                implementation: Some(dir.clone()),
                ..Default::default()
            };
            let shown = super::open_ui(&path.display().to_string(), &world, None, None);
            let _ = std::fs::remove_dir_all(&folder);
            return shown.map(|_| ());
        }
    };
    super::open_ui(&name, &world, None, None).map(|_| ())
}

/// The minimal case as a scenario file: its calls as beats, its queries as narration.
pub fn minimal_case_scenario(rule: &str, failure: &check::Failure) -> String {
    let quote = |s: &str| serde_json::to_string(s).expect("a string serializes");
    let mut locks: Vec<String> = Vec::new();
    let mut beats = String::new();
    let last = failure.played.len().saturating_sub(1);
    // A write carries no client; it is drawn on the lane of the client granted its token.
    let granted_to = |token: u64| {
        failure
            .played
            .iter()
            .find_map(|p| match (&p.request, &p.got) {
                (Request::Acquire { client_id, .. }, Reply::Lease(Some(l))) if l.token == token => {
                    Some(client_id.clone())
                }
                _ => None,
            })
    };
    for (i, played) in failure.played.iter().enumerate() {
        let mut caption = format!("{} -> {}", played.request.call(), played.got.describe());
        // The first beat says what the check found (the last one is the failure itself).
        let leads = beats.is_empty() && i != last;
        if leads {
            // Said first, as what the check found: the failing step's own caption is shown
            // only where the run matches the library's, which a failing step never does.
            if let Some((at, said)) = failure.transcript.last().and_then(|l| l.split_once(' ')) {
                caption = format!(
                    "check found: at {} s {}. Press n to watch it happen.",
                    at.trim_start_matches("t="),
                    said.trim()
                );
            }
        } else if i == last {
            // The transcript's last line says what the seed expected; drop its time column.
            if let Some((_, said)) = failure.transcript.last().and_then(|l| l.split_once(' ')) {
                caption = said.trim().to_owned();
            }
        }
        let client = |id: &str| id.trim_start_matches("client-").parse::<u8>().unwrap_or(1);
        let mut lock = |name: &str| {
            if !locks.iter().any(|l| l == name) {
                locks.push(name.to_owned());
            }
            quote(name)
        };
        let action = match &played.request {
            Request::Acquire { name, client_id } => Some(format!(
                "client = {}\ndo = \"acquire\"\nlock = {}",
                client(client_id),
                lock(name)
            )),
            Request::Renew {
                name,
                client_id,
                token,
            } => Some(format!(
                "client = {}\ndo = \"renew\"\nlock = {}\ntoken = {token}",
                client(client_id),
                lock(name)
            )),
            Request::Release {
                name,
                client_id,
                token,
            } => Some(format!(
                "client = {}\ndo = \"release\"\nlock = {}\ntoken = {token}",
                client(client_id),
                lock(name)
            )),
            Request::Write { key, value, token } => Some(format!(
                "client = {}\ndo = \"write\"\nkey = {}\nvalue = {}\ntoken = {token}",
                granted_to(*token).map_or(1, |c| client(&c)),
                quote(key),
                quote(value)
            )),
            Request::New { .. } | Request::Clock { .. } if i != last => continue,
            _ => None,
        };
        beats.push_str(&format!(
            "\n[[beat]]\nat = {}\ncaption = {}\n",
            fmt_time(played.now),
            quote(&if leads {
                caption.clone()
            } else {
                format!("Your code: {caption}")
            })
        ));
        if let Some(action) = action {
            beats.push_str(&action);
            beats.push('\n');
        }
    }
    if locks.is_empty() {
        locks.push("file".into());
    }
    let end = failure.played.last().map_or(1.0, |p| p.now) + 2.0;
    format!(
        "title = {}\nshort = {}\nlease = {}\nfirst_token = {}\nlocks = [{}]\nend = {}\n{beats}",
        quote(&format!("the smallest case where your code breaks {rule}")),
        quote("your smallest failing case"),
        fmt_time(failure.lease_seconds),
        failure.first_token,
        locks
            .iter()
            .map(|l| quote(l))
            .collect::<Vec<_>>()
            .join(", "),
        fmt_time(end)
    )
}
