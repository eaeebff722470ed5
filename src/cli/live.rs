//! `fencing-lab live`: the lesson on a real etcd, told as a transcript, as JSON lines or in the
//! terminal UI as it happens; and `live-client`, the hidden command each client process runs.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::ValueEnum;
use serde_json::{json, Value};

use super::values::{parse_seed, parse_time};
use super::Failure;
use crate::live::http::Url;
use crate::live::{self, Fault, Finished, Said, Settings, Start};
use crate::sim::text::{counted, printable};
use crate::sim::time::{fmt_seconds, seconds};
use crate::sim::{Caption, ClientId, Ms, Scenario, Source, Stats, Vocab};

/// The options of `fencing-lab live`.
#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// A built-in scenario name (see `fencing-lab list`) or a path to a .toml file.
    #[arg(default_value = "gc-pause")]
    pub scenario: String,
    /// A running etcd cluster's client URLs, comma-separated (default: start a private
    /// single-node etcd, if `etcd` is on the PATH).
    #[arg(long, value_name = "URL[,URL...]", value_delimiter = ',')]
    pub etcd: Option<Vec<String>>,
    /// Writes are plain puts: etcd checks no token.
    #[arg(long)]
    pub no_fencing: bool,
    /// The seed of a chaos scenario's random choices.
    #[arg(long, value_name = "N", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Stop at this time, in real seconds, and leave the data in etcd for a look.
    #[arg(long, value_name = "T", value_parser = parse_time, allow_hyphen_values = true)]
    pub until: Option<Ms>,
    /// text: a transcript, each event with etcd's side of it; json: one event a line.
    #[arg(long, value_enum, default_value_t = LiveFormat::Text)]
    pub format: LiveFormat,
    /// Show the lesson in the terminal UI as it happens.
    #[arg(long, conflicts_with = "format")]
    pub tui: bool,
}

/// How `live` prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum LiveFormat {
    Text,
    Json,
}

/// The options of the hidden `live-client` command: one client process of a live run.
#[derive(clap::Args, Debug)]
pub struct ClientArgs {
    /// Which client, 1 to 3.
    #[arg(long)]
    pub client: u64,
    /// etcd's endpoints, comma-separated.
    #[arg(long)]
    pub etcd: String,
    /// The run's key prefix.
    #[arg(long)]
    pub prefix: String,
    /// The run's id (it names the process for anyone looking with `ps`).
    #[arg(long)]
    pub run: String,
}

/// Runs one client process of a live run.
pub fn client(args: &ClientArgs) -> Result<ExitCode, Failure> {
    let client = ClientId::from_number(args.client)
        .ok_or_else(|| Failure::usage("--client must be 1, 2 or 3"))?;
    let endpoints = urls(std::slice::from_ref(&args.etcd))?;
    let config = live::client::ClientConfig {
        client,
        endpoints,
        prefix: args.prefix.clone(),
    };
    Ok(ExitCode::from(live::client::serve(config)))
}

fn urls(given: &[String]) -> Result<Vec<Url>, Failure> {
    let urls: Vec<Url> = given
        .iter()
        .flat_map(|g| g.split(','))
        .filter(|s| !s.trim().is_empty())
        .map(|s| Url::parse(s).map_err(Failure::usage))
        .collect::<Result<_, _>>()?;
    if urls.is_empty() {
        return Err(Failure::usage("--etcd names no endpoint"));
    }
    Ok(urls)
}

/// Signals that stop the lesson (and clean up) instead of killing the process: a second
/// Ctrl-C while it cleans up ends it at once.
fn watch_signals(stop: &Arc<AtomicBool>) -> Result<(), Failure> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let failed = |e: io::Error| Failure::usage(format!("could not watch for Ctrl-C: {e}"));
    signal_hook::flag::register_conditional_shutdown(SIGINT, 130, Arc::clone(stop))
        .map_err(failed)?;
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
        signal_hook::flag::register(signal, Arc::clone(stop)).map_err(failed)?;
    }
    Ok(())
}

/// `fencing-lab live`.
pub fn run(args: &LiveArgs) -> Result<ExitCode, Failure> {
    let scenario =
        Arc::new(Scenario::load(&args.scenario).map_err(|e| Failure::usage(e.to_string()))?);
    let etcd = args.etcd.as_deref().map(urls).transpose()?;
    if let Some(why) = live::plan::refusal(&scenario) {
        return Err(Failure::usage(why));
    }
    if args.tui && (!io::stdout().is_terminal() || !io::stdin().is_terminal()) {
        return Err(Failure::usage(
            "the terminal UI needs a terminal, and standard input or output is not one; for a \
             transcript drop --tui",
        ));
    }
    let exe = std::env::current_exe().map_err(|e| {
        Failure::usage(format!(
            "cannot find this program to start its clients: {e}"
        ))
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    watch_signals(&stop)?;
    let settings = Settings {
        fencing: !args.no_fencing && scenario.fencing,
        seed: args.seed.unwrap_or(scenario.seed),
        until: args.until,
        etcd,
        exe,
        stop,
        scenario,
    };
    if args.tui {
        // What can be known before the screen is taken is said on the terminal as it is.
        if settings.etcd.is_none() && live::server::find_etcd().is_none() {
            return Err(Failure::usage(live::NO_ETCD));
        }
        return super::live_screen::run_tui(&settings);
    }
    let json = args.format == LiveFormat::Json;
    let mut printer = Printer {
        out: io::stdout(),
        json,
        vocab: Vocab::plain(&settings.scenario.locks),
        last_t: None,
        failed: None,
        stop: Arc::clone(&settings.stop),
        settings_scenario: Arc::clone(&settings.scenario),
        fencing: settings.fencing,
        seed: settings.seed,
        start: None,
    };
    let result = live::run(&settings, &mut |said| printer.said(said));
    if let Some(e) = printer.failed.take() {
        return Err(Failure::Output(e));
    }
    match result {
        Ok(finished) => {
            printer.finished(&finished).map_err(Failure::Output)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(Fault(why)) => Err(Failure::usage(why)),
    }
}

/// Prints what the run says as it says it, one line at a time.
struct Printer {
    out: io::Stdout,
    json: bool,
    vocab: Vocab,
    last_t: Option<Ms>,
    /// The first write that failed (a closed pipe): the run is stopped then.
    failed: Option<io::Error>,
    stop: Arc<AtomicBool>,
    settings_scenario: Arc<Scenario>,
    fencing: bool,
    seed: u64,
    start: Option<Start>,
}

impl Printer {
    fn said(&mut self, said: Said) {
        if self.failed.is_some() {
            return;
        }
        let text = match said {
            Said::Start(start) => {
                let text = if self.json {
                    format!(
                        "{}\n",
                        start_json(&start, &self.settings_scenario, self.fencing, self.seed)
                    )
                } else {
                    start_text(&start, &self.settings_scenario, self.fencing)
                };
                self.start = Some(start);
                text
            }
            Said::Event { event, extra, side } => {
                if self.json {
                    let mut line = event.to_json(&self.vocab);
                    if let Value::Object(obj) = &mut line {
                        obj.extend(extra);
                    }
                    format!("{line}\n")
                } else {
                    let stamp = self.stamp(event.t);
                    let mut text =
                        format!("{stamp:>9}  {}\n", printable(&event.describe(&self.vocab)));
                    if let Some(side) = side {
                        let (label, said) = (side.label(), printable(side.text()));
                        text.push_str(&format!("{:>9}    {label}: {said}\n", ""));
                    }
                    if let Some(command) = extra.get("etcdctl").and_then(Value::as_str) {
                        text.push_str(&etcdctl_block(command));
                    }
                    text
                }
            }
            Said::Note { t, text } if !self.json => {
                format!("{:>9}  ({})\n", self.stamp(t), printable(&text))
            }
            Said::News {
                t,
                what,
                fields,
                text,
            } => {
                if self.json {
                    let mut line = serde_json::Map::new();
                    line.insert("t".into(), serde_json::json!(seconds(t)));
                    line.insert("event".into(), serde_json::json!(what.name()));
                    line.extend(fields);
                    line.insert("says".into(), serde_json::json!(text));
                    format!("{}\n", Value::Object(line))
                } else {
                    format!("{:>9}  ! {}\n", self.stamp(t), printable(&text))
                }
            }
            Said::Caption { t, caption } => {
                if self.json {
                    format!("{}\n", caption_json(t, &caption))
                } else {
                    caption_text(&caption)
                }
            }
            Said::Note { .. } | Said::Storage(_) | Said::Tick(_) => return,
        };
        let mut out = self.out.lock();
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            self.failed = Some(e);
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    fn stamp(&mut self, t: Ms) -> String {
        let stamp = if self.last_t == Some(t) {
            String::new()
        } else {
            format!("{} s", fmt_seconds(t))
        };
        self.last_t = Some(t);
        stamp
    }

    fn finished(&mut self, finished: &Finished) -> io::Result<()> {
        let mut out = self.out.lock();
        if self.json {
            let mut line = summary_json(&self.settings_scenario, self.seed, finished);
            if let Some(start) = &self.start {
                line["etcd"] = json!(start.endpoints);
                line["prefix"] = json!(start.prefix);
            }
            line["kept"] = json!(finished.kept);
            writeln!(out, "{line}")?;
            if finished.kept {
                // Where the data is, for the person at the terminal; the stream stays JSON.
                super::say(&finished.afterwards);
            }
        } else {
            writeln!(
                out,
                "\nsummary at {} s (real seconds): {}",
                fmt_seconds(finished.at),
                counts(&finished.stats)
            )?;
            writeln!(out, "{}.", printable(&finished.afterwards))?;
        }
        out.flush()
    }
}

/// The lesson's sentence in the transcript, under the time column: `»` a beat's caption, `?`
/// its question, `=` what etcd decided.
fn caption_text(caption: &Caption) -> String {
    let text = printable(&caption.text);
    match caption.source {
        Source::Question { .. } => format!("{:>9}  ? {text}\n", ""),
        Source::Reveal { .. } => format!("{:>9}  = etcd decided: {text}\n", ""),
        _ => format!("{:>9}  » {text}\n", ""),
    }
}

/// The lesson's sentence as a JSON line: `caption`, `question` or `answer`, with its beat
/// (counted from 1, as the scenario file's beats are).
fn caption_json(t: Ms, caption: &Caption) -> Value {
    let (event, beat) = match caption.source {
        Source::Question { beat } => ("question", Some(beat)),
        Source::Reveal { beat } => ("answer", Some(beat)),
        Source::Script { beat, .. } => ("caption", Some(beat)),
        Source::BeforeStart | Source::Generated { .. } => ("caption", None),
    };
    json!({
        "t": seconds(t),
        "event": event,
        "beat": beat.map(|b| b + 1),
        "says": caption.text,
    })
}

/// A transaction as the `etcdctl txn` command that sends it again, set off by its first line
/// in the transcript: a heredoc's lines must start at the left margin to paste into a shell.
fn etcdctl_block(command: &str) -> String {
    let mut lines = command.lines();
    let first = lines.next().unwrap_or_default();
    let mut block = format!("{:>9}    as etcdctl: {}\n", "", printable(first));
    for line in lines {
        block.push_str(&printable(line));
        block.push('\n');
    }
    block
}

/// "3 grants, 2 writes accepted, 1 rejected, 0 corruptions"
pub(super) fn counts(s: &Stats) -> String {
    format!(
        "{}, {} accepted, {} rejected, {}",
        counted(s.grants, "grant", "grants"),
        counted(s.writes_accepted, "write", "writes"),
        s.writes_rejected,
        counted(s.corruptions, "corruption", "corruptions"),
    )
}

/// The `summary` line, as `run --format json` writes it.
fn summary_json(scenario: &Scenario, seed: u64, finished: &Finished) -> Value {
    let stats = &finished.stats;
    json!({
        "t": seconds(finished.at),
        "event": "summary",
        "scenario": scenario.name,
        "seed": scenario.chaos.as_ref().map(|_| seed),
        "fencing": finished.fencing,
        "check": if finished.fencing { "per-key" } else { "none" },
        "grants": stats.grants,
        "writes_accepted": stats.writes_accepted,
        "writes_rejected": stats.writes_rejected,
        "stale_writes_accepted": stats.corruptions,
        "corruptions": stats.corruptions,
    })
}

/// The first line of the JSON stream: where the run happens.
fn start_json(start: &Start, scenario: &Scenario, fencing: bool, seed: u64) -> Value {
    let mut line = json!({
        "t": 0.0,
        "event": "live",
        "scenario": scenario.name,
        "seed": scenario.chaos.as_ref().map(|_| seed),
        "fencing": fencing,
        "etcd": start.endpoints,
        "run": start.run_id,
        "prefix": start.prefix,
        "lease": scenario.lease_seconds,
        "ttl_asked": start.ttl_asked,
        "ttl_granted": start.ttl_granted,
        "end": seconds(start.end),
        "clients": {
            "client-1": start.pids[0],
            "client-2": start.pids[1],
            "client-3": start.pids[2],
        },
    });
    if let Some(private) = &start.private {
        line["private"] = json!({
            "pid": private.pid,
            "dir": private.dir.display().to_string(),
            "version": private.version,
        });
    }
    line
}

/// How the lesson's lease became etcd's TTL, in one sentence.
pub fn ttl_sentence(lease: f64, asked: i64, granted: i64) -> String {
    let lease_text = fmt_seconds((lease * 1000.0).round() as Ms);
    let asked_text = if (lease - asked as f64).abs() < 1e-9 {
        format!("The lesson's lease of {lease_text} s is asked of etcd as a TTL of {asked} s")
    } else {
        format!(
            "The lesson's lease of {lease_text} s is rounded up to a TTL of {asked} s, since etcd \
             grants whole seconds"
        )
    };
    let granted_text = if granted == asked {
        "and etcd granted it".to_owned()
    } else {
        format!("and etcd granted {granted} s (its minimum TTL)")
    };
    format!(
        "{asked_text}, {granted_text}; etcd ends a lease up to about half a second after its \
         TTL runs out (it checks every 500 ms), and the lesson sees that within 0.1 s."
    )
}

/// The transcript's opening lines: what is real here, and how the lease was rounded.
fn start_text(start: &Start, scenario: &Scenario, fencing: bool) -> String {
    let mut text = format!(
        "{} on a real etcd: {}\n",
        printable(&scenario.name),
        printable(&scenario.title)
    );
    let endpoints = start.endpoints.join(", ");
    let fate = if start.keeps { "kept" } else { "removed" };
    match &start.private {
        Some(p) => text.push_str(&format!(
            "etcd {}: the lesson's own, at {endpoints} (pid {}, data in {}, {fate} at the end)\n",
            p.version,
            p.pid,
            p.dir.display()
        )),
        None => text.push_str(&format!(
            "etcd at {endpoints}; this run's keys are under {} and are {} at the end\n",
            start.prefix,
            if start.keeps { "kept" } else { "deleted" }
        )),
    }
    text.push_str(&format!(
        "keys: {}lock/<lock>, data/<key>, highest/<key>, writer/<key>\n",
        start.prefix
    ));
    text.push_str(&format!(
        "clients: client-1 pid {}, client-2 pid {}, client-3 pid {}: three processes, each with its own connection\n",
        start.pids[0], start.pids[1], start.pids[2]
    ));
    text.push_str(if fencing {
        "fencing ON: a write is one etcd transaction that refuses a token lower than highest/<key>\n"
    } else {
        "fencing OFF, no check: a write's transaction puts the value whatever its token\n"
    });
    text.push_str(&format!(
        "Times are real seconds since the start; the lesson ends at {} s. The token is etcd's \
         revision of the lock key (its create_revision). {}\n",
        fmt_seconds(start.end),
        ttl_sentence(scenario.lease_seconds, start.ttl_asked, start.ttl_granted)
    ));
    text.push_str(
        "» is the lesson's caption, told when its beat is over if etcd played every beat so far \
         as the script did (with etcd's tokens, and the script's seconds); ? is the lesson's \
         question, asked before the write it is about, and = what etcd decided.\n\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lease_s_rounding_is_said_as_it_is() {
        assert!(ttl_sentence(10.0, 10, 10).starts_with(
            "The lesson's lease of 10.0 s is asked of etcd as a TTL of 10 s, and etcd granted it;"
        ));
        assert!(ttl_sentence(2.5, 3, 3)
            .contains("rounded up to a TTL of 3 s, since etcd grants whole seconds"));
        assert!(ttl_sentence(1.0, 1, 2).contains("etcd granted 2 s (its minimum TTL)"));
    }
}
