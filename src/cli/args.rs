//! The command line's shape: clap definitions (their values' parsers are in values.rs).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use super::values::{
    parse_actors, parse_axis, parse_check, parse_check_or_all, parse_duration, parse_jobs,
    parse_picture_size, parse_runs, parse_seed, parse_seeds, parse_size, parse_system, parse_time,
    CheckChoice,
};
use super::Failure;
use crate::lab::Target;
use crate::sim::systems::System;
use crate::sim::Ms;
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
  fencing-lab run gc-pause --format markdown > handout.md   a handout for the class
  fencing-lab chaos --runs 10000           10,000 seeded chaos runs, one summary each
  fencing-lab chaos --runs 1000 --check all  what each wrong storage check lets through
  fencing-lab frame gc-pause --at 16.5     the screen at the key moment, as text
  fencing-lab run gc-pause --format svg > gc-pause.svg   the space-time diagram, for a slide
  fencing-lab export gc-pause -o lesson.html   the lesson as one page for students' browsers
  fencing-lab run gc-pause --format cast > gc-pause.cast   the UI stepping through it, for asciinema
  fencing-lab live gc-pause                the same lesson on a real etcd, in real seconds

Exit codes: 0 done; 1 a check found a violation (a fenced chaos run accepted a stale write, or
`check` found a rule broken); 2 bad input, or a failure to run."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the terminal UI on any scenario.
    Tui {
        /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
        #[arg(default_value = "gc-pause")]
        scenario: String,
        #[command(flatten)]
        world: WorldArgs,
        /// Save the session (scenario, seed, every input with its time) to FILE on quit, or on
        /// SIGTERM and SIGHUP.
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
        /// text: a lesson transcript; json: one event a line; markdown: a handout; svg: a
        /// space-time diagram; cast: an asciicast v2 recording of the UI stepping through it.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Stop at this time, in seconds, instead of the scenario's end.
        #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
        until: Option<Ms>,
        /// svg: begin the diagram at this time, in seconds (default: the whole run, or for a run
        /// longer than 40 s, 30 s from a little before its first rejected or corrupting write).
        #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
        from: Option<Ms>,
        /// svg: the run with fencing on above the same run with fencing off.
        #[arg(long, conflicts_with = "no_fencing")]
        compare: bool,
        /// svg: draw the time axis from FROM to TO seconds whatever --until says, so diagrams of
        /// one run played to different moments line up as slides.
        #[arg(long, value_name = "FROM:TO", value_parser = parse_axis, conflicts_with = "from")]
        axis: Option<(Ms, Ms)>,
        /// svg: leave out the clients (and the storage) with nothing in the diagram.
        #[arg(long)]
        hide_idle: bool,
        /// svg: a slide close to Kleppmann's figure: the lesson up to the storage's verdict on
        /// the write its question asks about, with only the clients that held a lock or wrote by
        /// then (no refused bystander, no redo).
        #[arg(long, conflicts_with_all = ["until", "from", "axis", "hide_idle"])]
        minimal: bool,
        /// svg: draw only these clients' lines, by number ("1,2"); the lock service and the
        /// storage are always drawn, and the subtitle names what is left out.
        #[arg(long, value_name = "LIST", value_parser = parse_actors, conflicts_with = "hide_idle")]
        actors: Option<[bool; 3]>,
        /// svg: the picture in pixels (default 1280x720, a 16:9 slide); cast: the terminal in
        /// columns x rows (default 80x24).
        #[arg(long, value_name = "WxH", value_parser = parse_picture_size)]
        size: Option<(u32, u32)>,
        /// svg: the diagram of the run as these UI keys leave it, pressed from its start, as the
        /// live page draws it ("n n g n": see `frame --keys`).
        #[arg(long, value_name = "KEYS", conflicts_with_all = ["until", "from", "axis", "compare", "size", "minimal", "actors"])]
        keys: Option<String>,
    },
    /// Write the lesson as one self-contained HTML page for students: the diagram, every step
    /// with its caption and the UI's screen, the question, fencing on and off. It makes no
    /// network request and works opened from a file, with or without JavaScript.
    Export {
        /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
        #[arg(default_value = "gc-pause")]
        scenario: String,
        #[command(flatten)]
        world: WorldArgs,
        /// The page to write, e.g. lesson.html (`-` for standard output).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// Stop at this time, in seconds, instead of the scenario's end.
        #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
        until: Option<Ms>,
        /// The page without its live lesson: the steps alone, no WebAssembly (a smaller file).
        #[arg(long = "static", conflicts_with = "lab")]
        steps_only: bool,
        /// The lab in a browser tab instead: paste or edit a lock_service.mjs, check it with the
        /// checker's own rules, and watch SCENARIO (a built-in one) played on it.
        #[arg(long, conflicts_with_all = ["no_fencing", "check", "seed", "implementation", "system", "command", "until"])]
        lab: bool,
    },
    /// Seeded chaos runs: three clients, one lock, random work and GC stalls, one crash.
    ///
    /// Prints every event when --runs is 1, else one summary per run. Exits 1 when the seed's
    /// rule (the per-key check, fencing on) accepted a stale write in any run, and prints the
    /// seed that replays it.
    Chaos(ChaosArgs),
    /// Print the UI's screen at time T as plain text (for handouts, docs and tests).
    Frame {
        /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
        #[arg(default_value = "gc-pause")]
        scenario: String,
        /// The moment to show, in seconds (default: the lesson's key moment, its question).
        #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
        at: Option<Ms>,
        /// The screen size, columns x rows.
        #[arg(long, value_name = "WxH", default_value = "80x24", value_parser = parse_size)]
        size: (u16, u16),
        #[command(flatten)]
        world: WorldArgs,
        /// Show the compare view (fenced and unfenced storage side by side).
        #[arg(long)]
        compare: bool,
        /// The screen after these UI keys, pressed from the start as in the terminal (space
        /// between them: n ArrowRight g 2 x d f v c r a b ? space Enter Escape), as the live
        /// page shows it.
        #[arg(long, value_name = "KEYS", conflicts_with_all = ["at", "compare"])]
        keys: Option<String>,
    },
    /// List the built-in scenarios, one a line with its title.
    List,
    /// How real systems (etcd, ZooKeeper, Hazelcast, Redisson, Kubernetes, Redlock) expose the
    /// fencing token and what the storage must check, each with its source.
    Systems,
    /// The lab: write a starter for your own LockService and FencedStorage.
    Lab {
        #[command(subcommand)]
        command: LabCommand,
    },
    /// Check your LockService and FencedStorage against the seed's rules and its chaos test.
    ///
    /// Give the folder `lab init` wrote, or any program that speaks the lab protocol after `--`
    /// (see docs/lab-protocol.md). Exits 0 when every check passes, 1 when one fails, 2 when the
    /// program cannot be run or breaks the protocol.
    Check(CheckArgs),
    /// Grade a class: check every submission in a folder, side by side over the cores.
    ///
    /// Each subfolder of SUBMISSIONS is one student's lab folder, as GitHub Classroom downloads
    /// a class's repositories. Prints one row a student, then one row a check the class failed,
    /// with the first failing step most students share. Exits 0 when every submission was
    /// judged (a broken one's row says why), 2 when grading itself could not run.
    Grade(GradeArgs),
    /// Play a lesson on a real etcd: three client processes of this program, etcd's revision
    /// as the fencing token, a SIGSTOP as the GC pause, the storage's check as an etcd
    /// transaction.
    ///
    /// Times are real seconds (gc-pause takes about 23 s). Without --etcd it starts a private
    /// single-node etcd (etcd must be on the PATH) and removes it at the end; with --etcd it
    /// works under a prefix of its own (fencing-lab/<run id>/) and deletes it after, unless
    /// --until leaves it for a look. Exits 0 when the lesson was told, 2 when it could not be
    /// (no etcd, an endpoint that does not answer, a client process that died, Ctrl-C).
    Live(super::live::LiveArgs),
    /// One client process of `live` (started by `live` itself).
    #[command(hide = true)]
    LiveClient(super::live::ClientArgs),
}

/// The options of `fencing-lab chaos`.
#[derive(clap::Args, Debug, Clone)]
pub struct ChaosArgs {
    /// The first run's seed; run k uses seed + k.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// How many runs.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_runs, allow_hyphen_values = true)]
    pub runs: u64,
    /// Simulated seconds per run.
    #[arg(long, value_name = "S", default_value = "60", value_parser = parse_duration, allow_hyphen_values = true)]
    pub seconds: Ms,
    /// Lease length in seconds.
    #[arg(long, value_name = "S", default_value = "3", value_parser = parse_duration, allow_hyphen_values = true)]
    pub lease: Ms,
    /// Let every write through (last writer wins).
    #[arg(long)]
    pub no_fencing: bool,
    /// The storage's check while fencing is on, or `all` for a table comparing every check.
    #[arg(long, value_name = "CHECK", default_value = "per-key", value_parser = parse_check_or_all)]
    pub check: CheckChoice,
    /// text or json (markdown, svg and cast are for `run`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Run on your own LockService and FencedStorage: a folder from `fencing-lab lab init`.
    #[arg(long = "impl", value_name = "DIR")]
    pub implementation: Option<PathBuf>,
    /// Instead of --impl DIR: your own program that speaks the lab protocol, after `--`, as
    /// `check` takes it.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl ChaosArgs {
    /// The student's implementation to run on, if any.
    pub fn target(&self) -> Result<Option<Target>, Failure> {
        target_of(&self.implementation, &self.command)
    }
}

#[derive(Subcommand, Debug)]
pub enum LabCommand {
    /// Write a starter into DIR: js (also for TypeScript), python, rust or java.
    Init {
        /// js, python, rust or java.
        language: String,
        /// The folder to write (created if missing; no file is ever overwritten).
        dir: PathBuf,
        /// Also write CI files that check the student's repository on every push: `github`
        /// writes a GitHub Actions workflow (one graded step a check, for GitHub Classroom, and
        /// the JUnit report) and GitHub Classroom's autograding.json; `gradescope` writes a
        /// Gradescope autograder (setup.sh, run_autograder, points.toml) instead of the
        /// starter, to zip and upload.
        #[arg(long, value_enum, value_name = "CI")]
        ci: Option<Ci>,
    },
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The folder `fencing-lab lab init` wrote.
    #[arg(value_name = "DIR", required_unless_present = "command")]
    pub dir: Option<PathBuf>,
    /// Instead of a folder: the program to run, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    /// text for people; json, junit (JUnit XML, for CI) or gradescope (Gradescope's
    /// results.json) for autograders.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// What each check is worth: a TOML table of check id to points (one point each by
    /// default): the score in text, json and gradescope (JUnit has no points).
    #[arg(long, value_name = "FILE")]
    pub points: Option<PathBuf>,
    /// How long the program may take to answer one request, in seconds.
    #[arg(long, value_name = "S", default_value = "2", value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Ms,
    /// How long the program may take to start and answer its first request, in seconds (a JVM
    /// or a busy machine takes a while).
    #[arg(long, value_name = "S", default_value = "10", value_parser = parse_duration, allow_hyphen_values = true)]
    pub startup_timeout: Ms,
    /// How long the whole check may take, in seconds: a reply still awaited then ends the
    /// check (exit 2), and the report says which checks did not run.
    #[arg(long, value_name = "S", default_value = "600", value_parser = parse_duration, allow_hyphen_values = true)]
    pub deadline: Ms,
    /// Run only this check (any id `check` prints: a rule, random, exhaustive or chaos).
    #[arg(long, value_name = "CHECK")]
    pub only: Option<String>,
    /// How many chaos seeds to run (1..=N).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = parse_seeds, allow_hyphen_values = true)]
    pub seeds: u64,
    /// Open the first failure in the terminal UI: its minimal case as a lesson.
    #[arg(long)]
    pub tui: bool,
}

#[derive(clap::Args, Debug)]
pub struct GradeArgs {
    /// The folder of submissions: one subfolder a student, each a folder `lab init` wrote.
    #[arg(value_name = "SUBMISSIONS")]
    pub submissions: PathBuf,
    /// How many submissions to check at once (one a core by default).
    #[arg(long, value_name = "N", value_parser = parse_jobs, allow_hyphen_values = true)]
    pub jobs: Option<usize>,
    /// text for people, markdown for a course page, csv for a grade sheet, json for scripts.
    #[arg(long, value_enum, default_value_t = GradeFormat::Text)]
    pub format: GradeFormat,
    /// What each check is worth: a TOML table of check id to points (one point each by
    /// default); the rows then show scores.
    #[arg(long, value_name = "FILE")]
    pub points: Option<PathBuf>,
    /// Also write each student's own report into DIR: NAME.txt, NAME.json and NAME.junit.xml.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// How long a program may take to answer one request, in seconds.
    #[arg(long, value_name = "S", default_value = "2", value_parser = parse_duration, allow_hyphen_values = true)]
    pub timeout: Ms,
    /// How long a program may take to start and answer its first request, in seconds.
    #[arg(long, value_name = "S", default_value = "10", value_parser = parse_duration, allow_hyphen_values = true)]
    pub startup_timeout: Ms,
    /// How long one submission's checks may take in all, in seconds: the checks not started
    /// by then are reported as not run, so one slow program cannot hold up the class.
    #[arg(long, value_name = "S", default_value = "120", value_parser = parse_duration, allow_hyphen_values = true)]
    pub deadline: Ms,
    /// How many chaos seeds to run for each submission (1..=N).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = parse_seeds, allow_hyphen_values = true)]
    pub seeds: u64,
}

/// The CI `lab init --ci` writes files for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Ci {
    Github,
    Gradescope,
}

/// How `grade` prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GradeFormat {
    Text,
    Json,
    Csv,
    Markdown,
}

/// How `check` prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Junit,
    Gradescope,
}

/// Settings every world-playing command shares.
#[derive(clap::Args, Debug, Clone)]
pub struct WorldArgs {
    /// Start with fencing off: storage accepts every write, last writer wins.
    #[arg(long)]
    pub no_fencing: bool,
    /// The storage's check: per-key (the seed's), strict, global, or none (the same as
    /// --no-fencing).
    #[arg(long, value_name = "CHECK", default_value = "per-key", value_parser = parse_check)]
    pub check: FenceCheck,
    /// The seed for a chaos scenario's random choices.
    #[arg(long, value_name = "N", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Run on your own LockService and FencedStorage: a folder from `fencing-lab lab init`.
    #[arg(long = "impl", value_name = "DIR")]
    pub implementation: Option<PathBuf>,
    /// Tell the lesson in a real system's words: etcd, zookeeper, hazelcast, redisson,
    /// kubernetes or redlock (see `fencing-lab systems`); one with no token runs unfenced.
    #[arg(long = "as", value_name = "SYSTEM", value_parser = parse_system)]
    pub system: Option<&'static System>,
    /// Instead of --impl DIR: your own program that speaks the lab protocol, after `--`, as
    /// `check` takes it.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The student's implementation named by `--impl DIR` or by a program after `--`, if either.
pub fn target_of(dir: &Option<PathBuf>, command: &[String]) -> Result<Option<Target>, Failure> {
    match (dir, command.is_empty()) {
        (Some(_), false) => Err(Failure::usage(
            "give either --impl DIR or a program after `--`, not both",
        )),
        (Some(dir), true) => Ok(Some(Target::Folder(dir.clone()))),
        (None, false) => Ok(Some(Target::Command(command.to_vec()))),
        (None, true) => Ok(None),
    }
}

impl WorldArgs {
    /// The student's implementation to run on, if any.
    pub fn target(&self) -> Result<Option<Target>, Failure> {
        target_of(&self.implementation, &self.command)
    }

    /// Whether a student's implementation is named.
    pub fn has_impl(&self) -> bool {
        self.implementation.is_some() || !self.command.is_empty()
    }

    /// Whether fencing starts on, and the check while it is: `--check none` is fencing off.
    pub fn fencing_and_check(&self) -> (bool, FenceCheck) {
        match self.check {
            FenceCheck::Unchecked => (false, FenceCheck::PerKey),
            check => (!self.no_fencing, check),
        }
    }
}

impl Default for WorldArgs {
    fn default() -> Self {
        WorldArgs {
            no_fencing: false,
            check: FenceCheck::PerKey,
            seed: None,
            implementation: None,
            system: None,
            command: Vec::new(),
        }
    }
}

/// How a command prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Svg,
    Cast,
}
