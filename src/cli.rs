//! The command line: clap definitions and the headless commands (`run`, `chaos`, `frame`, `list`).

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};

use crate::sim::{
    explain_write, fmt_seconds, run_chaos, seconds, to_ms, EventKind, Ms, RunSummary, Scenario,
    Session,
};
use crate::tui;
use crate::FenceCheck;

/// Why a lease lock needs fencing tokens: an interactive lesson in your terminal.
///
/// With no command, opens the terminal UI on the Day 5, section 7.1 lesson (gc-pause): press
/// `n` to step through it, `f` then `r` to replay it without fencing, `?` for every key.
#[derive(Parser, Debug)]
#[command(
    name = "fencing-lab",
    version,
    propagate_version = true,
    after_help = "Examples:
  fencing-lab                              the Day 5, section 7.1 lesson in the terminal UI
  fencing-lab tui chaos --seed 7           the seed's chaos test, to freeze and crash clients in
  fencing-lab run gc-pause --no-fencing    the same story as a transcript, without fencing
  fencing-lab run gc-pause --format json   its events, one JSON object a line
  fencing-lab chaos --runs 10000           10,000 seeded chaos runs, one summary each
  fencing-lab chaos --runs 1000 --check all  what each wrong storage check lets through
  fencing-lab frame gc-pause --at 16.5     the screen at the key moment, as text"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the terminal UI on any scenario.
    Tui {
        /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
        #[arg(default_value = "gc-pause")]
        scenario: String,
        #[command(flatten)]
        world: WorldArgs,
        /// The seed for a chaos scenario's random choices.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Save the session (scenario, seed, every input with its time) to FILE on quit.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// Play back a session saved with --record, exactly.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "no_fencing", "check"])]
        replay: Option<PathBuf>,
    },
    /// Play a scenario to its end (or --until) without a UI and print what happened.
    Run {
        /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
        scenario: String,
        #[command(flatten)]
        world: WorldArgs,
        /// text: a lesson transcript; json: one event a line; markdown: a handout.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Stop at this time, in seconds, instead of the scenario's end.
        #[arg(long, value_name = "T", value_parser = parse_time, allow_negative_numbers = true)]
        until: Option<Ms>,
        /// The seed for a chaos scenario's random choices.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
    },
    /// Seeded chaos runs: three clients, one lock, random work and GC stalls, one crash.
    ///
    /// Prints every event when --runs is 1, else one summary per run. Exits 1 when fencing is
    /// on and any run accepted a stale write.
    Chaos(ChaosArgs),
    /// Print the UI's screen at time T as plain text (for handouts, docs and tests).
    Frame {
        /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
        scenario: String,
        /// The moment to show, in seconds.
        #[arg(long, value_name = "T", value_parser = parse_time, allow_negative_numbers = true)]
        at: Ms,
        /// The screen size, columns x rows.
        #[arg(long, value_name = "WxH", default_value = "80x24", value_parser = parse_size)]
        size: (u16, u16),
        #[command(flatten)]
        world: WorldArgs,
        /// The seed for a chaos scenario's random choices.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Show the compare view (fenced and unfenced storage side by side).
        #[arg(long)]
        compare: bool,
    },
    /// List the built-in scenarios, one a line with its title.
    List,
}

/// The options of `fencing-lab chaos`.
#[derive(clap::Args, Debug, Clone, Copy)]
struct ChaosArgs {
    /// The first run's seed; run k uses seed + k.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// How many runs.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    runs: u64,
    /// Simulated seconds per run.
    #[arg(long, value_name = "S", default_value = "60", value_parser = parse_duration, allow_negative_numbers = true)]
    seconds: Ms,
    /// Lease length in seconds.
    #[arg(long, value_name = "S", default_value = "3", value_parser = parse_duration, allow_negative_numbers = true)]
    lease: Ms,
    /// Let every write through (last writer wins).
    #[arg(long)]
    no_fencing: bool,
    /// The storage's check while fencing is on, or `all` for a table comparing every check.
    #[arg(long, value_name = "CHECK", default_value = "per-key", value_parser = parse_check_or_all)]
    check: CheckChoice,
    /// text or json (markdown is for `run`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(clap::Args, Debug, Clone)]
struct WorldArgs {
    /// Start with fencing off: storage accepts every write, last writer wins.
    #[arg(long)]
    no_fencing: bool,
    /// The storage's check while fencing is on: per-key (the seed's), none, strict or global.
    #[arg(long, value_name = "CHECK", default_value = "per-key", value_parser = parse_check)]
    check: FenceCheck,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CheckChoice {
    One(FenceCheck),
    All,
}

fn parse_check(text: &str) -> Result<FenceCheck, String> {
    FenceCheck::from_name(text).ok_or_else(|| {
        format!("there is no check '{text}'; use per-key (the seed's rule), none, strict or global")
    })
}

fn parse_check_or_all(text: &str) -> Result<CheckChoice, String> {
    if text == "all" {
        Ok(CheckChoice::All)
    } else {
        parse_check(text).map(CheckChoice::One)
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!(
            "{text} is not a finite, non-negative number of seconds"
        ));
    }
    if value > 86_400.0 {
        return Err(format!("{text} seconds is more than a day"));
    }
    Ok(value)
}

fn parse_time(text: &str) -> Result<Ms, String> {
    parse_seconds(text).map(to_ms)
}

fn parse_duration(text: &str) -> Result<Ms, String> {
    let ms = parse_time(text)?;
    if ms == 0 {
        return Err(format!(
            "must be greater than 0 seconds (at least 0.001), got {text}"
        ));
    }
    Ok(ms)
}

fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let bad = || format!("'{text}' is not a size like 80x24 (columns x rows, each 1 to 1000)");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u16 = w.trim().parse().map_err(|_| bad())?;
    let h: u16 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=1000).contains(&w) || !(1..=1000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// A failure to report: one sentence on stderr, and the exit code.
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Failure {
        Failure {
            message: format!("could not write the output: {err}"),
            code: 1,
        }
    }
}

/// Parses the command line and runs it; the exit code says how it went.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => err.exit(), // --help, --version
        Err(err) => {
            eprintln!("fencing-lab: {}", one_sentence(&err.render().to_string()));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(failure) => {
            // A closed pipe (`| head`) is not worth a message.
            if !failure.message.contains("Broken pipe") {
                eprintln!("fencing-lab: {}", failure.message);
            }
            ExitCode::from(failure.code)
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

/// A session at t = 0 of the named scenario, with the command line's seed and settings.
fn session_for(name: &str, seed: Option<u64>, world: &WorldArgs) -> Result<Session, Failure> {
    let scenario = load(name)?;
    let seed = seed.unwrap_or(scenario.seed);
    Ok(Session::new(scenario, seed, !world.no_fencing, world.check))
}

fn load(name: &str) -> Result<Arc<Scenario>, Failure> {
    Scenario::load(name)
        .map(Arc::new)
        .map_err(|e| Failure::usage(e.to_string()))
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    // Locked per command, never across the UI: the signal thread must be able to write the
    // terminal's restore sequence while the UI runs.
    let stdout = io::stdout();
    let out = &mut || stdout.lock();
    match cli.command {
        None => open_ui(
            "gc-pause",
            WorldArgs {
                no_fencing: false,
                check: FenceCheck::PerKey,
            },
            None,
            None,
            None,
        ),
        Some(Command::Tui {
            scenario,
            world,
            seed,
            record,
            replay,
        }) => open_ui(&scenario, world, seed, record, replay),
        Some(Command::List) => {
            for scenario in Scenario::all_built_in() {
                writeln!(out(), "{:<14} {}", scenario.name, scenario.title)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Run {
            scenario,
            world,
            format,
            until,
            seed,
        }) => {
            let mut session = session_for(&scenario, seed, &world)?;
            let scenario = session.scenario().clone();
            session.seek(until.unwrap_or(scenario.end));
            let seed_shown = scenario.chaos.is_some().then_some(session.seed());
            match format {
                Format::Text => write_transcript(&mut out(), &session, seed_shown)?,
                Format::Json => write_json(&mut out(), &session, seed_shown)?,
                Format::Markdown => write_handout(&mut out(), &session, seed_shown)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Chaos(args)) => chaos(&mut out(), &args),
        Some(Command::Frame {
            scenario,
            at,
            size,
            world,
            seed,
            compare,
        }) => {
            let session = session_for(&scenario, seed, &world)?;
            let mut app = tui::App::new(session, tui::Theme::plain());
            app.seek(at);
            app.set_compare(compare);
            write!(out(), "{}", tui::render_text(&app, size.0, size.1))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn open_ui(
    scenario: &str,
    world: WorldArgs,
    seed: Option<u64>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
) -> Result<ExitCode, Failure> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(Failure::usage(
            "the terminal UI needs a terminal, and standard input or output is not one; \
             for a text transcript use `fencing-lab run gc-pause`",
        ));
    }
    let replaying = replay.is_some();
    let session = match replay {
        Some(path) => tui::recording::load(&path).map_err(Failure::usage)?,
        None => session_for(scenario, seed, &world)?,
    };
    let mut app = tui::App::new(session, tui::Theme::from_env());
    if replaying {
        // A replay plays itself back; every key still works (pause, step, travel).
        app.update(tui::Action::TogglePlay);
    }
    let app = tui::run_terminal(app).map_err(|e| Failure {
        message: format!("the terminal UI failed: {e}"),
        code: 1,
    })?;
    if let Some(path) = record {
        tui::recording::save(&path, app.session()).map_err(Failure::usage)?;
        eprintln!("fencing-lab: session saved to {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------- output

/// One line of the story, in time order: a beat's caption (before the events of its moment),
/// its question, an event, and the answer to the question right after the write it asked about.
enum Line<'a> {
    Caption(&'a str),
    Question(&'a str),
    Event(&'a crate::sim::Event),
    Answer(String),
}

fn push_event<'a>(
    lines: &mut Vec<(Ms, Line<'a>)>,
    event: &'a crate::sim::Event,
    fencing: &mut bool,
    asked_at: &mut Option<Ms>,
    check: FenceCheck,
) {
    if let EventKind::Fencing { on } = event.kind {
        *fencing = on;
    }
    lines.push((event.t, Line::Event(event)));
    let asked = *asked_at == Some(event.t);
    if matches!(event.kind, EventKind::Write { .. }) && (asked || event.kind.is_honest_refusal()) {
        *asked_at = None;
        let applied = if *fencing {
            check
        } else {
            FenceCheck::Unchecked
        };
        if let Some(why) = explain_write(&event.kind, applied) {
            lines.push((event.t, Line::Answer(why)));
        }
    }
}

fn story(session: &Session) -> Vec<(Ms, Line<'_>)> {
    let world = session.world();
    let scenario = session.scenario();
    let check = session.check_at_start();
    let mut fencing = session.fencing_at_start();
    let mut asked_at: Option<Ms> = None;
    let mut lines = Vec::new();
    let mut events = world.events().iter().peekable();
    for beat in scenario.beats.iter().take_while(|b| b.at <= world.now()) {
        while let Some(event) = events.next_if(|e| e.t < beat.at) {
            push_event(&mut lines, event, &mut fencing, &mut asked_at, check);
        }
        if let Some(question) = &beat.ask {
            lines.push((beat.at, Line::Question(&question.text)));
            asked_at = Some(beat.at);
        }
        lines.push((beat.at, Line::Caption(beat.caption_for(fencing))));
    }
    for event in events {
        push_event(&mut lines, event, &mut fencing, &mut asked_at, check);
    }
    lines
}

fn write_transcript(out: &mut impl Write, session: &Session, seed: Option<u64>) -> io::Result<()> {
    let world = session.world();
    let scenario = session.scenario();
    writeln!(out, "{}: {}", scenario.name, scenario.title)?;
    writeln!(out, "{}\n", settings_line(session, seed))?;
    let mut last_t = None;
    for (t, line) in story(session) {
        let stamp = if last_t == Some(t) {
            String::new()
        } else {
            format!("{} s", fmt_seconds(t))
        };
        last_t = Some(t);
        match line {
            Line::Caption(text) => writeln!(out, "{stamp:>8}  » {text}")?,
            Line::Question(text) => writeln!(out, "{stamp:>8}  ? {text}")?,
            Line::Event(event) => {
                writeln!(out, "{stamp:>8}    {}", event.describe(&scenario.lock))?
            }
            Line::Answer(why) => writeln!(out, "{stamp:>8}  = {why}")?,
        }
    }
    writeln!(out)?;
    let summary = RunSummary::of(world, seed, session.fencing_at_start());
    writeln!(out, "{}", summary_sentence(&summary, world.now()))?;
    Ok(())
}

/// "lease 10 s, first token 1, fencing ON (token >= highest(key))[, seed N]"
fn settings_line(session: &Session, seed: Option<u64>) -> String {
    let scenario = session.scenario();
    format!(
        "lease {} s, first token {}, fencing {}{}",
        scenario.lease_seconds,
        scenario.first_token,
        fencing_words(session.fencing_at_start(), session.check_at_start()),
        seed.map(|s| format!(", seed {s}")).unwrap_or_default()
    )
}

fn fencing_words(fencing: bool, check: FenceCheck) -> String {
    if fencing {
        format!("ON ({})", check.rule())
    } else {
        "OFF (no check)".to_owned()
    }
}

fn summary_sentence(summary: &RunSummary, t: Ms) -> String {
    format!(
        "summary at {} s: {}",
        fmt_seconds(t),
        counts(&summary.stats)
    )
}

/// "3 grants, 2 writes accepted, 1 rejected, 0 stale writes accepted, 0 corruptions"
fn counts(s: &crate::sim::Stats) -> String {
    format!(
        "{} grants, {} writes accepted, {} rejected, {} stale writes accepted, {} corruptions",
        s.grants, s.writes_accepted, s.writes_rejected, s.stale_writes_accepted, s.corruptions
    )
}

fn write_json(out: &mut impl Write, session: &Session, seed: Option<u64>) -> io::Result<()> {
    let world = session.world();
    let lock = &session.scenario().lock;
    for event in world.events() {
        writeln!(out, "{}", event.to_json(lock))?;
    }
    let summary = RunSummary::of(world, seed, session.fencing_at_start());
    writeln!(out, "{}", summary.to_json(seconds(world.now())))?;
    Ok(())
}

/// A handout: the story as a table, then the screen at the key moment.
fn write_handout(out: &mut impl Write, session: &Session, seed: Option<u64>) -> io::Result<()> {
    let world = session.world();
    let scenario = session.scenario();
    writeln!(out, "# {}: {}\n", scenario.name, scenario.title)?;
    writeln!(out, "{}.\n", settings_line(session, seed))?;
    writeln!(out, "| t (s) | lesson | what happens |")?;
    writeln!(out, "|---:|---|---|")?;
    let cell = |text: &str| text.replace('|', "\\|");
    let mut rows: Vec<(Ms, Vec<String>, Vec<String>)> = Vec::new();
    for (t, line) in story(session) {
        if rows.last().is_none_or(|row| row.0 != t) {
            rows.push((t, Vec::new(), Vec::new()));
        }
        let row = rows.last_mut().expect("just pushed");
        match line {
            Line::Caption(text) => row.1.push(cell(text)),
            Line::Question(text) => row.1.push(format!("**Question:** {}", cell(text))),
            Line::Event(event) => row.2.push(cell(&event.describe(&scenario.lock))),
            Line::Answer(why) => row.2.push(format!("**Answer:** {}", cell(&why))),
        }
    }
    for (t, lesson, happened) in rows {
        writeln!(
            out,
            "| {} | {} | {} |",
            fmt_seconds(t),
            lesson.join("<br>"),
            happened.join("<br>")
        )?;
    }
    let key_moment = key_moment(session);
    let mut app = tui::App::new(
        Session::new(
            scenario.clone(),
            session.seed(),
            session.fencing_at_start(),
            session.check_at_start(),
        ),
        tui::Theme::plain(),
    );
    app.seek(key_moment);
    writeln!(out, "\n## The screen at {} s\n", fmt_seconds(key_moment))?;
    writeln!(out, "```text\n{}```\n", tui::render_text(&app, 80, 24))?;
    let summary = RunSummary::of(world, seed, session.fencing_at_start());
    writeln!(out, "{}", summary_sentence(&summary, world.now()))?;
    Ok(())
}

/// The moment a handout shows: the first beat that asks a question, else the first rejected or
/// corrupting write, else the end.
fn key_moment(session: &Session) -> Ms {
    let world = session.world();
    let asked = session
        .scenario()
        .beats
        .iter()
        .find(|b| b.ask.is_some())
        .map(|b| b.at);
    let verdict = world.events().iter().find_map(|e| match e.kind {
        EventKind::Write {
            accepted: false, ..
        }
        | EventKind::Corruption { .. } => Some(e.t),
        _ => None,
    });
    asked.or(verdict).unwrap_or(world.now()).min(world.now())
}

fn chaos(out: &mut impl Write, args: &ChaosArgs) -> Result<ExitCode, Failure> {
    let ChaosArgs {
        seed,
        runs,
        seconds: seconds_per_run,
        lease,
        no_fencing,
        check,
        format,
    } = *args;
    let fencing = !no_fencing;
    if format == Format::Markdown {
        return Err(Failure::usage(
            "--format markdown is for `fencing-lab run`; chaos prints text or json",
        ));
    }
    let mut scenario = Scenario::built_in("chaos").expect("the chaos scenario is built in");
    scenario.lease_seconds = seconds(lease);
    scenario.lease_ms = lease;
    if let Some(params) = &mut scenario.chaos {
        params.seconds = seconds_per_run;
    }
    scenario.end = seconds_per_run;
    let scenario = Arc::new(scenario);
    let fenced_check = match check {
        CheckChoice::One(check) => check,
        CheckChoice::All => FenceCheck::PerKey,
    };

    if runs == 1 && check != CheckChoice::All {
        let mut session = Session::new(scenario.clone(), seed, fencing, fenced_check);
        session.seek(scenario.end);
        match format {
            Format::Json => write_json(out, &session, Some(seed))?,
            _ => write_transcript(out, &session, Some(seed))?,
        }
        let stale = session.world().stats().stale_writes_accepted;
        return Ok(verdict(fencing, stale));
    }

    let mut totals = [crate::sim::Stats::default(); 4];
    let mut stale_total = 0;
    let mut failing_seed = None;
    for k in 0..runs {
        let run_seed = seed.wrapping_add(k);
        let world = run_chaos(&scenario, run_seed, fencing, fenced_check);
        let summary = RunSummary::of(&world, Some(run_seed), fencing);
        stale_total += summary.stats.stale_writes_accepted;
        if summary.stats.stale_writes_accepted > 0 && failing_seed.is_none() {
            failing_seed = Some(run_seed);
        }
        if check == CheckChoice::All {
            for (total, check) in totals.iter_mut().zip(FenceCheck::ALL) {
                add_stats(total, world.mirror(check).1);
            }
            continue;
        }
        add_stats(&mut totals[0], &summary.stats);
        match format {
            Format::Json => writeln!(out, "{}", summary.to_json(seconds(world.now())))?,
            _ => writeln!(out, "seed {run_seed}: {}", counts(&summary.stats))?,
        }
    }
    if check == CheckChoice::All {
        write_check_table(out, runs, seed, &totals, format)?;
        return Ok(ExitCode::SUCCESS);
    }
    if format == Format::Text {
        writeln!(
            out,
            "{runs} runs (seeds {seed}..{}), fencing {}: {}",
            seed.wrapping_add(runs - 1),
            fencing_words(fencing, fenced_check),
            counts(&totals[0])
        )?;
        if let (true, Some(bad)) = (fencing, failing_seed) {
            writeln!(out, "FAILED: a stale write was accepted; replay it with `fencing-lab chaos --seed {bad}`")?;
        }
    }
    Ok(verdict(fencing, stale_total))
}

fn verdict(fencing: bool, stale: u64) -> ExitCode {
    if fencing && stale > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn add_stats(total: &mut crate::sim::Stats, run: &crate::sim::Stats) {
    total.grants += run.grants;
    total.writes_accepted += run.writes_accepted;
    total.writes_rejected += run.writes_rejected;
    total.stale_writes_accepted += run.stale_writes_accepted;
    total.corruptions += run.corruptions;
    total.honest_writes_refused += run.honest_writes_refused;
}

fn write_check_table(
    out: &mut impl Write,
    runs: u64,
    seed: u64,
    totals: &[crate::sim::Stats; 4],
    format: Format,
) -> io::Result<()> {
    if format == Format::Json {
        for (check, t) in FenceCheck::ALL.iter().zip(totals) {
            let line = serde_json::json!({
                "check": check.name(), "rule": check.rule(), "runs": runs,
                "stale_writes_accepted": t.stale_writes_accepted,
                "correct_writes_refused": t.honest_writes_refused,
                "corruptions": t.corruptions,
            });
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{runs} chaos runs from seed {seed}, the same writes sent to a storage of each check:\n"
    );
    let _ = writeln!(
        table,
        "{:<8} {:<26} {:>14} {:>15} {:>12}",
        "check", "rule", "stale accepted", "correct refused", "corruptions"
    );
    for (check, t) in FenceCheck::ALL.iter().zip(totals) {
        let _ = writeln!(
            table,
            "{:<8} {:<26} {:>14} {:>15} {:>12}",
            check.name(),
            check.rule(),
            t.stale_writes_accepted,
            t.honest_writes_refused,
            t.corruptions
        );
    }
    write!(out, "{table}")
}
