//! The command line: parse, dispatch, report. Exit codes have one meaning each: 0 done, 1 a check
//! found a violation, 2 bad input or a failure to run (a closed pipe is not a failure: exit 0).

pub mod args;
pub mod chaos;
pub mod export;
pub mod grade;
pub mod interrupt;
pub mod lab;
pub mod live;
mod live_screen;
pub mod progress;
pub mod report;
pub mod values;

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use self::args::{Cli, Command, Format, WorldArgs};
use crate::sim::recording::{self, SavePath};
use crate::sim::text::printable;
use crate::sim::{InputKind, Scenario, Session, Setup};
use crate::tui;
use crate::FenceCheck;

/// A failure to report: one sentence on stderr, exit 2; or output that could not be written.
pub enum Failure {
    /// Bad input or a failure to run: this sentence, exit 2.
    Usage(String),
    /// Writing the output failed.
    Output(io::Error),
}

impl Failure {
    fn usage(message: impl Into<String>) -> Failure {
        Failure::Usage(message.into())
    }
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Failure {
        Failure::Output(err)
    }
}

/// Writes one line on stderr; a failure to write it is ignored (there is nowhere else to say it).
pub fn say(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "fencing-lab: {}", printable(message));
    let _ = err.flush();
}

/// The most events a command that holds a whole run in memory (a transcript, a handout, a
/// diagram, a page, a cast, a frame) may have to hold: at about 600 bytes an event, well within
/// 100 MiB. JSON streams its events and has no such bound.
pub const HELD_EVENTS: u64 = 50_000;

/// Refuses up front, in one sentence with its estimate, a run that could make more events by
/// `until` (the scenario's end when none) than `what` can hold, `runs` times over (a diagram
/// comparing fenced and unfenced plays two). A chaos transcript streams (`streams`): no bound.
fn within_reach(
    scenario: &str,
    until: Option<crate::sim::Ms>,
    runs: u64,
    what: &str,
    streams: bool,
    option: &str,
    world: &WorldArgs,
) -> Result<(), Failure> {
    let scenario = Scenario::load(scenario).map_err(|e| Failure::usage(e.to_string()))?;
    if streams && scenario.chaos.is_some() {
        return Ok(());
    }
    let until = until.unwrap_or(scenario.end);
    let by = crate::sim::fmt_seconds(until);
    let held = crate::sim::text::thousands(HELD_EVENTS);
    let events = scenario.worst_case_events(until).saturating_mul(runs);
    if events <= HELD_EVENTS {
        return Ok(());
    }
    let mut too_many = format!(
        "it could make up to {} events by {by} s, more than the {held}",
        crate::sim::text::thousands(events)
    );
    // Chaos's worst case is far above what it makes (3,855 events in 600 s, where the bound
    // says 51,056), and its run on this library costs milliseconds: count them. A student's
    // program is not run twice for this.
    if scenario.chaos.is_some() && world.implementation.is_none() && world.command.is_empty() {
        let seed = world.seed.unwrap_or(scenario.seed);
        let made = events_made(Setup::new(Arc::new(scenario.clone())).seed(seed), until);
        if made.saturating_mul(runs) <= HELD_EVENTS {
            return Ok(());
        }
        too_many = match runs {
            1 => format!("it makes more events by {by} s than the {held}"),
            n => format!("its {n} runs make more events by {by} s than the {held}"),
        };
    }
    Err(Failure::usage(format!(
        "{}: {too_many} `{what}` holds in memory; `run --format json` streams any number of \
         them, or choose an earlier {option}",
        printable(&scenario.origin),
    )))
}

/// How many events `setup` makes by `until`, counted as they stream by (none is held).
fn events_made(setup: Setup, until: crate::sim::Ms) -> u64 {
    let mut world = crate::sim::World::new(&setup, &[], crate::sim::Keep::Stream);
    let mut made = world.take_events().len() as u64;
    let mut t = 0;
    while t < until && made <= HELD_EVENTS {
        t = (t + 1_000).min(until);
        world.advance_to(t, &[]);
        made += world.take_events().len() as u64;
    }
    made
}

/// Fails in one sentence where standard input or output is not a terminal: `what` needs one,
/// `instead` says what to run without.
pub fn require_terminal(what: &str, instead: &str) -> Result<(), Failure> {
    if io::stdout().is_terminal() && io::stdin().is_terminal() {
        return Ok(());
    }
    Err(Failure::usage(format!(
        "{what} needs a terminal, and standard input or output is not one; {instead}"
    )))
}

/// Parses the command line and runs it; the exit code says how it went. `stdout_closed`: the
/// binary saw standard output closed at its start (`>&-`), where every write would vanish.
pub fn main(stdout_closed: bool) -> ExitCode {
    if stdout_closed {
        say("standard output is closed, so nothing could be written; send it to a file or a pipe instead (a closed pipe, as with `| head`, is fine)");
        return ExitCode::from(2);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => {
            // --help and --version: print, and say so if stdout cannot take it.
            let text = err.render().to_string();
            let mut out = io::stdout().lock();
            return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    say(&format!("could not write the help: {e}"));
                    ExitCode::from(2)
                }
            };
        }
        Err(err) => {
            say(&one_sentence(&err.render().to_string()));
            return ExitCode::from(2);
        }
    };
    // Every descendant is ours to end, on every way out (the signal threads end them too).
    crate::lab::program::children::adopt_orphans();
    let result = run(cli);
    crate::lab::program::children::end_all();
    match result {
        Ok(code) => code,
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            say(&format!("could not write the output: {e}"));
            ExitCode::from(2)
        }
        Err(Failure::Usage(message)) => {
            say(&message);
            ExitCode::from(2)
        }
    }
}

/// clap's error without its usage block and hint, folded onto one line.
fn one_sentence(rendered: &str) -> String {
    let head = rendered.split("\n\n").next().unwrap_or(rendered);
    let head = head.trim_start_matches("error: ");
    let mut sentence = head.split_whitespace().collect::<Vec<_>>().join(" ");
    if !sentence.ends_with('.') {
        sentence.push('.');
    }
    sentence + " See `fencing-lab --help`."
}

fn load(name: &str) -> Result<Arc<Scenario>, Failure> {
    Scenario::load(name)
        .map(Arc::new)
        .map_err(|e| Failure::usage(e.to_string()))
}

/// The setup of the named scenario with the command line's settings.
/// The setup, and with `--impl` the student's program behind it and the fault to watch.
pub(crate) fn setup_with_impl(
    name: &str,
    world: &WorldArgs,
) -> Result<(Setup, Option<crate::lab::remote::Fault>), Failure> {
    let scenario = load(name)?;
    let (fencing, check) = world.fencing_and_check();
    let seed = world.seed.unwrap_or(scenario.seed);
    let fencing = fencing && scenario.fencing;
    let setup = Setup::new(scenario)
        .seed(seed)
        .fencing(fencing)
        .check(check);
    let Some(target) = world.target()? else {
        return Ok((
            match world.system {
                Some(system) => setup.as_system(system),
                None => setup,
            },
            None,
        ));
    };
    if world.system.is_some() {
        return Err(Failure::usage(
            "--as tells the lesson in a real system's words and --impl runs your own code: use one of them",
        ));
    }
    if !fencing || check != FenceCheck::PerKey {
        return Err(Failure::usage(
            "--impl runs your own FencedStorage, whose rule is the one you wrote: drop --no-fencing and --check",
        ));
    }
    let (backend, fault) = self::lab::backend(&target)?;
    Ok((setup.student(backend, target.describe()), Some(fault)))
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    // Locked per command, never across the UI: the signal thread must be able to write the
    // terminal's restore sequence while the UI runs.
    let stdout = io::stdout();
    // A signal ends what a command started, from its first instant: the terminal UI keeps it
    // until its own signal thread takes over, and the live lesson ends its processes itself.
    let _interrupts = match &cli.command {
        Some(Command::Live(_) | Command::LiveClient(_)) => None,
        _ => Some(interrupt::Interrupts::end_programs_on_signal()),
    };
    match cli.command {
        None => open_ui("gc-pause", &WorldArgs::default(), None, None),
        Some(Command::Tui {
            scenario,
            world,
            record,
            replay,
        }) => open_ui(&scenario, &world, record, replay),
        Some(Command::Systems) => systems(&mut stdout.lock()),
        Some(Command::List) => list(&mut stdout.lock()),
        Some(Command::Run {
            scenario,
            world,
            format,
            until,
            from,
            compare,
            axis,
            hide_idle,
            minimal,
            actors,
            size,
            keys,
        }) => {
            let pictures = export::PictureArgs {
                format,
                until,
                from,
                compare,
                axis,
                hide_idle,
                minimal,
                actors,
                size,
                keys,
            };
            run_scenario(&stdout, &scenario, &world, &pictures)
        }
        Some(Command::Lab {
            command: args::LabCommand::Init { language, dir, ci },
        }) => {
            let mut out = stdout.lock();
            let ci = ci.map(|ci| match ci {
                args::Ci::Github => crate::lab::starter::Ci::Github,
                args::Ci::Gradescope => crate::lab::starter::Ci::Gradescope,
            });
            self::lab::init(&mut out, &language, &dir, ci)
        }
        Some(Command::Check(args)) => {
            let mut out = stdout.lock();
            self::lab::run_check(&mut out, &args)
        }
        Some(Command::Grade(args)) => {
            let mut out = io::BufWriter::new(stdout.lock());
            let code = grade::run(&mut out, &args)?;
            out.flush()?;
            Ok(code)
        }
        Some(Command::Export {
            scenario,
            world,
            output,
            until,
            steps_only,
            lab,
        }) => {
            within_reach(&scenario, until, 2, "export", false, "--until", &world)?;
            let kind = match (steps_only, lab) {
                (true, _) => export::Page::Steps,
                (_, true) => export::Page::Lab,
                _ => export::Page::Live,
            };
            export::export(&scenario, &world, &output, until, kind)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Live(args)) => live::run(&args),
        Some(Command::LiveClient(args)) => live::client(&args),
        Some(Command::Chaos(args)) => {
            let mut out = io::BufWriter::new(stdout.lock());
            let code = chaos::run(&mut out, &args)?;
            out.flush()?;
            Ok(code)
        }
        Some(Command::Frame {
            scenario,
            at,
            size,
            world,
            compare,
            keys,
        }) => match keys {
            Some(keys) => frame_after(&stdout, &scenario, &keys, size, &world),
            None => frame(&stdout, &scenario, at, size, &world, compare),
        },
    }
}

/// `systems`: the table of real systems' words for the token.
fn systems(out: &mut impl Write) -> Result<ExitCode, Failure> {
    out.write_all(systems_text(80).as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `list`: the built-in scenarios, a line each.
fn list(out: &mut impl Write) -> Result<ExitCode, Failure> {
    for scenario in Scenario::all_built_in() {
        writeln!(out, "{:<14} {}", scenario.name, scenario.title)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `run`: a scenario as a transcript, JSON, a handout, a diagram or a cast.
fn run_scenario(
    stdout: &io::Stdout,
    scenario: &str,
    world: &WorldArgs,
    pictures: &export::PictureArgs,
) -> Result<ExitCode, Failure> {
    let (format, until, compare) = (pictures.format, pictures.until, pictures.compare);
    if format != Format::Json {
        let what = match format {
            Format::Text => "run",
            Format::Markdown => "run --format markdown",
            Format::Svg => "run --format svg",
            _ => "run --format cast",
        };
        let runs = if compare { 2 } else { 1 };
        within_reach(
            scenario,
            until,
            runs,
            what,
            format == Format::Text,
            "--until",
            world,
        )?;
    }
    export::check_options(pictures, world)?;
    if matches!(format, Format::Svg | Format::Cast) {
        let mut out = io::BufWriter::new(stdout.lock());
        export::draw(&mut out, scenario, world, pictures)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let (setup, fault) = setup_with_impl(scenario, world)?;
    let until = until.unwrap_or(setup.scenario.end);
    let mut out = io::BufWriter::new(stdout.lock());
    let streamed = match format {
        // Events and nothing else: printed as they happen, in memory bounded by a second
        // of them, for any scenario.
        Format::Json => true,
        // A chaos run can be long: its events are printed as they happen.
        Format::Text => setup.scenario.chaos.is_some(),
        _ => false,
    };
    if streamed {
        report::stream(&mut out, &setup, until, format == Format::Json)?;
    } else {
        let session = Session::played_to(setup, until);
        match format {
            Format::Text => report::transcript(&mut out, &session)?,
            Format::Json => report::json_stream(&mut out, &session)?,
            Format::Markdown => report::handout(&mut out, &session)?,
            Format::Svg | Format::Cast => unreachable!("drawn above"),
        }
    }
    out.flush()?;
    self::lab::fault_of(&fault)?;
    Ok(ExitCode::SUCCESS)
}

/// `frame`: one screen of the UI as text, at `at` or the run's key moment.
fn frame(
    stdout: &io::Stdout,
    scenario: &str,
    at: Option<crate::sim::Ms>,
    size: (u16, u16),
    world: &WorldArgs,
    compare: bool,
) -> Result<ExitCode, Failure> {
    within_reach(scenario, at, 1, "frame", false, "--at", world)?;
    let (setup, fault) = setup_with_impl(scenario, world)?;
    let at = match at {
        Some(at) => at,
        None => report::key_moment(&Session::played_to(setup.clone(), setup.scenario.end)),
    };
    // The same app a cast ends on, so its last frame is this screen.
    let app = crate::pictures::steps::app_at(setup, at, tui::Theme::plain(), compare);
    let mut out = stdout.lock();
    write!(out, "{}", tui::render_text(&app, size.0, size.1))?;
    out.flush()?;
    self::lab::fault_of(&fault)?;
    Ok(ExitCode::SUCCESS)
}

/// `frame --keys`: the screen after the lecturer's keys, as the live page shows it after them.
fn frame_after(
    stdout: &io::Stdout,
    scenario: &str,
    keys: &str,
    size: (u16, u16),
    world: &WorldArgs,
) -> Result<ExitCode, Failure> {
    let keys =
        crate::web::lesson::keys_of(keys).map_err(|e| Failure::usage(format!("--keys: {e}")))?;
    let (setup, fault) = setup_with_impl(scenario, world)?;
    let app = crate::web::lesson::played(setup, &keys, tui::Theme::plain());
    let mut out = stdout.lock();
    write!(out, "{}", tui::render_text(&app, size.0, size.1))?;
    out.flush()?;
    self::lab::fault_of(&fault)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn open_ui(
    scenario: &str,
    world: &WorldArgs,
    record: Option<std::path::PathBuf>,
    replay: Option<std::path::PathBuf>,
) -> Result<ExitCode, Failure> {
    // Every input is checked before the terminal is: a bad --record path is refused now, not after
    // the whole session, and a bad file is reported the same with or without a terminal.
    let save = record
        .as_deref()
        .map(SavePath::check)
        .transpose()
        .map_err(Failure::usage)?;
    let replaying = replay.is_some();
    let mut fault = None;
    let session = match replay {
        Some(path) => {
            let loaded = recording::load(&path).map_err(Failure::usage)?;
            // The session replays on the implementation it was recorded on, or on `--impl`.
            let loaded = match world.system {
                Some(system) if system.has_token => recording::Loaded {
                    setup: loaded.setup.as_system(system),
                    ..loaded
                },
                Some(system) => {
                    return Err(Failure::usage(format!(
                        "--as {} turns fencing off, which would change the recorded run: replay it without --as, or with a system that has a token",
                        system.id
                    )))
                }
                None => loaded,
            };
            // A recording is a file people send each other: opening it never runs the program
            // it names. The implementation runs only when it is given again.
            let target = world.target()?;
            if let (None, Some(recorded)) = (&target, &loaded.implementation) {
                let recorded = printable(&recorded.display().to_string()).into_owned();
                // Quoted as a shell word: the name comes from a file someone sent.
                return Err(Failure::usage(format!(
                    "{}: the session was recorded on the implementation {recorded}, and a \
                     recording never runs a program; to replay it on that code, add \
                     `--impl {}` (or its program after `--`)",
                    printable(&path.display().to_string()),
                    crate::sim::text::shell_word(&recorded)
                )));
            }
            let setup = match target {
                Some(target) => {
                    let switches = loaded
                        .inputs
                        .iter()
                        .any(|i| matches!(i.kind, InputKind::Fencing { .. } | InputKind::Check(_)));
                    if switches || !loaded.setup.fencing || loaded.setup.check != FenceCheck::PerKey
                    {
                        return Err(Failure::usage(format!(
                            "{}: the recording turns fencing off or changes the check, which a student's storage decides itself; replay it without --impl",
                            printable(&path.display().to_string())
                        )));
                    }
                    let (backend, watched) = self::lab::backend(&target)?;
                    fault = Some(watched);
                    loaded.setup.student(backend, target.describe())
                }
                None => loaded.setup,
            };
            Session::with_inputs(setup, loaded.inputs)
        }
        None => {
            let (setup, watched) = setup_with_impl(scenario, world)?;
            fault = watched;
            Session::new(setup)
        }
    };
    require_terminal(
        "the terminal UI",
        "for a text transcript use `fencing-lab run gc-pause`",
    )?;
    let mut app = tui::App::new(session, tui::Theme::from_env());
    if replaying {
        // A replay plays itself back; every key still works (pause, step, travel).
        app.update(tui::Action::TogglePlay);
    }
    // The terminal's own signal thread restores it first, then ends the programs.
    interrupt::terminal_has_signals(true);
    let app = tui::run_terminal(app, save.clone());
    interrupt::terminal_has_signals(false);
    let app = app.map_err(|e| Failure::usage(format!("the terminal UI failed: {e}")))?;
    if let Some(path) = save {
        let result = path.save(app.session());
        let failed = result.is_err();
        tui::report_save(result, &path);
        if failed {
            return Ok(ExitCode::from(2));
        }
    }
    self::lab::fault_of(&fault)?;
    Ok(ExitCode::SUCCESS)
}

/// The `systems` table as text wrapped at `width` columns: one block per system.
pub fn systems_text(width: usize) -> String {
    use crate::sim::systems::SYSTEMS;
    let mut out = String::from(
        "How real systems expose the fencing token, and what the storage must check:\n",
    );
    for system in SYSTEMS {
        out.push('\n');
        out.push_str(system.name);
        out.push('\n');
        for (label, text) in [
            ("token", system.token),
            ("get it", system.api),
            ("check", system.check),
            ("says", system.says),
            ("source", system.source),
        ] {
            for (i, line) in tui::wrap(text, width - 10).into_iter().enumerate() {
                let label = if i == 0 { label } else { "" };
                out.push_str(&format!("  {label:<7} {line}\n"));
            }
        }
    }
    out
}
