//! `fencing-lab lab init`, `fencing-lab check` and `--impl`: the student's side of the tool.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::args::{CheckArgs, CheckFormat};
use super::progress::Spinner;
use super::Failure;
use crate::lab::check::CheckId;
use crate::lab::points::Points;
use crate::lab::remote::{self, Fault};
use crate::lab::wire::{fmt_time, Reply, Request};
use crate::lab::{autograder, check, report, starter, Plan, Report, Target, Timeouts};
use crate::sim::backend::BackendFactory;
use crate::sim::files::read_text_file;
use crate::sim::text::printable;
use crate::sim::Scenario;

/// `lab init LANGUAGE DIR`.
pub fn init(
    out: &mut impl Write,
    language: &str,
    dir: &Path,
    ci: Option<starter::Ci>,
) -> Result<ExitCode, Failure> {
    let written = starter::init_with(language, dir, ci).map_err(Failure::usage)?;
    // Said in one write: a starter whose words could not be told (a full stdout) is taken back,
    // so a retry starts clean; a closed pipe (`| head`) keeps it.
    let said = what_init_says(&written.shown, language, dir, ci);
    match out.write_all(said.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            written.remove();
            Err(Failure::usage(format!(
                "could not write the output ({e}), so the starter is not kept: what it wrote in \
                 {} is removed",
                printable(&dir.display().to_string())
            )))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// What `lab init` prints: the files it wrote, and what to do next.
fn what_init_says(
    written: &[String],
    language: &str,
    dir: &Path,
    ci: Option<starter::Ci>,
) -> String {
    use std::fmt::Write as _;
    let edit = starter::LANGUAGES
        .iter()
        .find(|(l, _)| language.starts_with(&l[..2]))
        .map_or("lock_service", |(_, file)| file);
    let mut out = String::new();
    for path in written {
        let _ = writeln!(out, "wrote {path}");
    }
    let shown = printable(&dir.display().to_string()).into_owned();
    if ci == Some(starter::Ci::Gradescope) {
        let _ = writeln!(
            out,
            "\nNext: write the git URL fencing-lab is installed from into FENCING_LAB_GIT at the \
             top of {shown}/{} (or put fencing-lab's source in {shown}/fencing-lab), weigh the \
             checks in {shown}/{} if you like, then zip the folder's contents and upload the zip \
             as the assignment's autograder:\n  (cd {} && zip -r ../autograder.zip .)\nStudents \
             upload {edit} alone; the autograder puts it in a fresh starter and checks it.",
            starter::GRADESCOPE_SETUP,
            starter::GRADESCOPE_POINTS,
            crate::sim::text::shell_word(&shown),
        );
        return out;
    }
    let _ = writeln!(
        out,
        "\nNext: fill in {shown}/{edit} (every method says \"not implemented yet\" until you do), \
         then run\n  fencing-lab check {shown}\nand, to watch your code in the lesson,\n  \
         fencing-lab tui gc-pause --impl {shown}"
    );
    if ci == Some(starter::Ci::Github) {
        let _ = writeln!(
            out,
            "\nOn GitHub, {} checks each push, one graded test a check: set the \
             variable FENCING_LAB_GIT (Settings, Secrets and variables, Actions) to the git URL \
             fencing-lab is installed from.",
            starter::GITHUB_WORKFLOW
        );
    }
    out
}

/// The backend for `--impl DIR` or `-- COMMAND`, and the fault to report when the program fails
/// mid-run.
pub fn backend(target: &Target) -> Result<(BackendFactory, Fault), Failure> {
    let program = target
        .start(Timeouts::default())
        .map_err(|e| Failure::usage(format!("--impl {}: {e}", target.describe())))?;
    let fault = Fault::default();
    let factory = remote::factory_with_fault(Arc::new(Mutex::new(program)), fault.clone());
    // The experiments run as the factory is made: a program that failed them has told no lesson
    // yet, and must not seem to.
    if let Some(sentence) = fault.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        return Err(Failure::usage(format!(
            "--impl {}: your implementation stopped answering before the lesson began, while \
             fencing-lab tried its methods: {sentence}",
            target.describe()
        )));
    }
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
    let target = target_of(args)?;
    let only = only_of(args)?;
    if args.tui {
        // Asked before a check of a minute or more, not after it.
        super::require_terminal(
            "check --tui (it opens the minimal case in the terminal UI)",
            "leave out --tui to read the case as text",
        )?;
    }
    let timeouts = Timeouts {
        startup: Duration::from_millis(args.startup_timeout),
        request: Duration::from_millis(args.timeout),
    };
    let plan = Plan {
        chaos_seeds: args.seeds,
        only,
        timeouts,
        deadline: Some(Duration::from_millis(args.deadline)),
        ..Plan::default()
    };
    if only.is_none_or(|id| id == CheckId::Exhaustive) {
        // Its scripts depend on nothing the program says: plan them while it starts.
        crate::lab::explore::plan_ahead(plan.bounds.exhaustive_length);
    }
    let points = match &args.points {
        Some(path) => read_points(path)?,
        None => Points::default(),
    };
    // Points given: the text says the score too (JSON and Gradescope always carry it).
    let scored = args.points.is_some();
    let program = match target.start(timeouts) {
        Ok(program) => program,
        Err(e) => {
            // An autograder still gets its report: every check not run, and why.
            if args.format != CheckFormat::Text {
                let report = Report::not_started(&target, &plan, &e);
                write_report(out, args.format, &report, &points, scored)?;
            }
            return Err(Failure::usage(e.sentence));
        }
    };
    let text = args.format == CheckFormat::Text;
    if text {
        write!(
            out,
            "{}",
            report::heading(&target.describe(), &program.language)
        )?;
        if let Target::Folder(dir) = &target {
            if let Some(note) = crate::lab::target::unchecked_starters(dir) {
                writeln!(out, "note: {note}")?;
            }
        }
        out.flush()?;
    }
    // Each check's lines go out as soon as it is decided; a failed write ends the check.
    let mut written = Ok(());
    let spinner = Spinner::on_stderr();
    let report = check::run_watched(
        &target,
        program,
        &plan,
        &mut |check| spinner.starting(check),
        &mut |outcome| {
            if text && written.is_ok() {
                written = spinner.above(|| {
                    write!(out, "{}", report::text_of(outcome)).and_then(|()| out.flush())
                });
            }
        },
    );
    spinner.finish();
    // The UI that --tui opens handles the signals itself.
    written?;
    write_report(out, args.format, &report, &points, scored)?;
    if let Some(error) = &report.error {
        return Err(Failure::usage(printable(error).into_owned()));
    }
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

/// What `check` runs: a folder or a command after `--`, never both.
fn target_of(args: &CheckArgs) -> Result<Target, Failure> {
    Ok(match (&args.dir, args.command.is_empty()) {
        (Some(_), false) => {
            return Err(Failure::usage(
                "give check either a folder or a command after `--`, not both",
            ))
        }
        (Some(dir), true) => Target::Folder(dir.clone()),
        (None, _) => Target::Command(args.command.clone()),
    })
}

/// The one check `--only` names, if it names one.
fn only_of(args: &CheckArgs) -> Result<Option<CheckId>, Failure> {
    Ok(match &args.only {
        None => None,
        Some(id) => Some(CheckId::from_id(id).ok_or_else(|| {
            let ids: Vec<&str> = CheckId::all().iter().map(|c| c.id()).collect();
            Failure::usage(format!(
                "--only {} names no check; the checks are {}",
                printable(id),
                ids.join(", ")
            ))
        })?),
    })
}

/// The report in `format` (text: its summary, the checks having gone out as decided, and the
/// score where points were given).
fn write_report(
    out: &mut impl Write,
    format: CheckFormat,
    report: &Report,
    points: &Points,
    scored: bool,
) -> Result<(), Failure> {
    match format {
        CheckFormat::Text => {
            write!(out, "{}", report::summary(report))?;
            if scored {
                writeln!(
                    out,
                    "score: {} of {} points",
                    points.score(report),
                    points.max_score(report)
                )?;
            }
        }
        CheckFormat::Json => writeln!(out, "{}", report::json(report, points))?,
        CheckFormat::Junit => write!(out, "{}", autograder::junit(report))?,
        CheckFormat::Gradescope => writeln!(out, "{}", autograder::gradescope(report, points))?,
    }
    out.flush()?;
    Ok(())
}

/// The most a points file may hold.
const MAX_POINTS_BYTES: u64 = 64 * 1024;

/// `--points FILE`, read and checked before any program runs.
pub fn read_points(path: &Path) -> Result<Points, Failure> {
    let shown = printable(&path.display().to_string()).into_owned();
    let text = read_text_file(path, MAX_POINTS_BYTES, "a points file")
        .map_err(|why| Failure::usage(format!("--points {shown}: {why}")))?;
    Points::parse(&text, &format!("--points {shown}")).map_err(Failure::usage)
}

/// Opens a failure in the UI: its minimal case made a scenario (each call a beat, captioned with
/// what it returned and what the seed expected), or, for a chaos failure that could not be
/// shrunk, the chaos seed on the student's code.
fn open_failure(target: &Target, outcome: &check::Outcome) -> Result<(), Failure> {
    let failure = outcome.failure().expect("a failing outcome");
    // The UI runs the same program, a folder's adapter or the command given after `--`.
    let (implementation, command) = match target {
        Target::Folder(dir) => (Some(dir.clone()), Vec::new()),
        Target::Command(words) => (None, words.clone()),
    };
    let unshrunk_chaos = failure.chaos_seed.filter(|_| failure.played.is_empty());
    let (name, world) = match unshrunk_chaos {
        Some(seed) => (
            "chaos".to_owned(),
            super::args::WorldArgs {
                seed: Some(seed),
                implementation,
                command,
                ..Default::default()
            },
        ),
        None => {
            let text = minimal_case_scenario(outcome.id(), failure);
            // Validated here, so a case the lesson cannot show is one sentence, not a bad file.
            Scenario::parse("minimal-case", "the minimal case", &text)
                .map_err(|e| Failure::usage(format!("the minimal case cannot be shown: {e}")))?;
            // Named after the rule, so the header reads "renew-extends-from-now: ...".
            let folder = std::env::temp_dir().join(format!("fencing-lab-{}", std::process::id()));
            let path = folder.join(format!("{}.toml", outcome.id()));
            std::fs::create_dir_all(&folder)
                .and_then(|()| std::fs::write(&path, &text))
                .map_err(|e| Failure::usage(format!("could not write {}: {e}", path.display())))?;
            let world = super::args::WorldArgs {
                implementation,
                command,
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
    // What the check found: the call that differs, what came back and what the seed gives.
    let found = failure.played.last().map(|p| {
        format!(
            "{} -> {}, but {} ({})",
            p.request.call(),
            p.got.describe(),
            failure.expected,
            failure.rule
        )
    });
    for (i, played) in failure.played.iter().enumerate() {
        let mut caption = format!("{} -> {}", played.request.call(), played.got.describe());
        // The first beat says what the check found (the last one is the failure itself).
        let leads = beats.is_empty() && i != last;
        if leads {
            // Said first, as what the check found: the failing step's own caption is shown
            // only where the run matches the library's, which a failing step never does.
            if let (Some(found), Some(p)) = (&found, failure.played.last()) {
                caption = format!(
                    "check found: at {} s {found}. Press n to watch it happen.",
                    fmt_time(p.now)
                );
            }
        } else if i == last {
            if let Some(found) = &found {
                caption = found.clone();
            }
        }
        if matches!(played.request, Request::New { .. } | Request::Clock { .. }) && i != last {
            continue;
        }
        let action = beat_action(&played.request, &mut locks, &granted_to);
        beats.push_str(&format!(
            "\n[[beat]]\nat = {}\ncaption = {}\n",
            fmt_time(played.now),
            // What the program said is shown, never obeyed: escaped, as a caption must be.
            quote(&printable(&if leads {
                caption.clone()
            } else {
                format!("Your code: {caption}")
            }))
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

/// A string as TOML writes it (JSON's quoting is TOML's).
fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// What a call does in the scenario's words (`None`: a query, narrated only), each lock it names
/// kept in `locks`; a write is drawn on the lane of the client `granted_to` its token.
fn beat_action(
    request: &Request,
    locks: &mut Vec<String>,
    granted_to: &dyn Fn(u64) -> Option<String>,
) -> Option<String> {
    let client = |id: &str| id.trim_start_matches("client-").parse::<u8>().unwrap_or(1);
    let mut lock = |name: &str| {
        if !locks.iter().any(|l| l == name) {
            locks.push(name.to_owned());
        }
        quote(name)
    };
    match request {
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
        _ => None,
    }
}
