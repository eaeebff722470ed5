//! `fencing-lab chaos`: the seed's chaos test over many seeds, and the table comparing checks.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use super::args::{ChaosArgs, Format};
use super::report::{counts, settings_without_seed, stream, summary_json};
use super::values::CheckChoice;
use super::Failure;
use crate::sim::text::counted;
use crate::sim::{Keep, Ms, Scenario, Setup, Stats, World};
use crate::FenceCheck;

/// The built-in chaos scenario with the command line's lease and length.
fn scenario(args: &ChaosArgs) -> Arc<Scenario> {
    let mut scenario = Scenario::built_in("chaos").expect("the chaos scenario is built in");
    scenario.lease_seconds = args.lease as f64 / 1000.0;
    scenario.lease_ms = args.lease;
    if let Some(params) = &mut scenario.chaos {
        params.seconds = args.seconds;
    }
    scenario.end = args.seconds;
    Arc::new(scenario)
}

/// Runs `chaos`; exit 1 only when the seed's rule (fencing on, per-key) accepted a stale write.
pub fn run(out: &mut impl Write, args: &ChaosArgs) -> Result<ExitCode, Failure> {
    refuse_pictures(args.format)?;
    // Seeds are run in order, from --seed: they must not wrap past the last seed to 0.
    let last = args
        .runs
        .checked_sub(1)
        .and_then(|more| args.seed.checked_add(more));
    if last.is_none() {
        return Err(Failure::usage(format!(
            "--seed {} with --runs {} would run past the last seed, {}: start at {} at most",
            args.seed,
            args.runs,
            u64::MAX,
            u64::MAX - (args.runs - 1)
        )));
    }
    let scenario = scenario(args);
    let (fencing, check) = match args.check {
        CheckChoice::One(FenceCheck::Unchecked) => (false, FenceCheck::PerKey),
        CheckChoice::One(check) => (!args.no_fencing, check),
        CheckChoice::All => (!args.no_fencing, FenceCheck::PerKey),
    };
    let seed_rule_on = fencing && check == FenceCheck::PerKey;
    let student = match args.target()? {
        None => None,
        Some(_) if !seed_rule_on || args.check == CheckChoice::All => {
            return Err(Failure::usage(
                "--impl runs your own FencedStorage, whose rule is the one you wrote: drop --no-fencing and --check",
            ))
        }
        Some(target) => {
            let (backend, fault) = super::lab::backend(&target)?;
            Some((backend, target.describe(), fault))
        }
    };
    let setup = |seed: u64| {
        let setup = Setup::new(scenario.clone())
            .seed(seed)
            .fencing(fencing)
            .check(check);
        match &student {
            Some((backend, who, _)) => setup.student(backend.clone(), who.clone()),
            None => setup,
        }
    };
    let fault = student.as_ref().map(|(_, _, fault)| fault.clone());

    if args.runs == 1 && args.check != CheckChoice::All {
        let stats = stream(
            out,
            &setup(args.seed),
            scenario.end,
            args.format == Format::Json,
        )?;
        super::lab::fault_of(&fault)?;
        return Ok(verdict(seed_rule_on, stats.corruptions, args, out)?);
    }

    let (totals, failing_seed) = play_seeds(out, args, scenario.end, seed_rule_on, &setup)?;
    if args.check == CheckChoice::All {
        check_table(out, args, &totals)?;
    } else if args.format == Format::Text {
        writeln!(
            out,
            "{} (seeds {}..{}), {}: {}",
            counted(args.runs, "run", "runs"),
            args.seed,
            args.seed + (args.runs - 1),
            settings_without_seed(&setup(args.seed)),
            counts(&totals[0])
        )?;
    }
    super::lab::fault_of(&fault)?;
    match failing_seed {
        Some(seed) if seed_rule_on || args.check == CheckChoice::All => {
            if args.format == Format::Text {
                writeln!(out, "{}", failed_sentence(seed, args))?;
            }
            Ok(ExitCode::from(1))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Chaos prints text or JSON; the pictures are `run`'s.
fn refuse_pictures(format: Format) -> Result<(), Failure> {
    if let Some(name) = match format {
        Format::Markdown => Some("markdown"),
        Format::Svg => Some("svg"),
        Format::Cast => Some("cast"),
        Format::Text | Format::Json => None,
    } {
        return Err(Failure::usage(format!(
            "--format {name} is for `fencing-lab run`; chaos prints text or json"
        )));
    }
    Ok(())
}

/// Plays each of `args.runs` seeds to `end`, printing a line a seed unless every check is
/// compared: the totals (one per check with `--check all`, else the first) and the first seed
/// whose seed rule accepted a stale write.
fn play_seeds(
    out: &mut impl Write,
    args: &ChaosArgs,
    end: Ms,
    seed_rule_on: bool,
    setup: &impl Fn(u64) -> Setup,
) -> Result<([Stats; 4], Option<u64>), Failure> {
    let mut totals = [Stats::default(); 4];
    let mut failing_seed = None;
    for k in 0..args.runs {
        let seed = args.seed + k;
        let keep = if args.check == CheckChoice::All {
            Keep::EveryCheck
        } else {
            Keep::Counts
        };
        let mut world = World::new(&setup(seed), &[], keep);
        world.advance_to(end, &[]);
        if args.check == CheckChoice::All {
            for (total, check) in totals.iter_mut().zip(FenceCheck::ALL) {
                total.add(world.mirror(check).1);
            }
            if world.mirror(FenceCheck::PerKey).1.corruptions > 0 && failing_seed.is_none() {
                failing_seed = Some(seed);
            }
            continue;
        }
        let stats = *world.stats();
        if seed_rule_on && stats.corruptions > 0 && failing_seed.is_none() {
            failing_seed = Some(seed);
        }
        totals[0].add(&stats);
        match args.format {
            Format::Json => writeln!(out, "{}", summary_json(&world, end))?,
            _ => writeln!(out, "seed {seed}: {}", counts(&stats))?,
        }
    }
    Ok((totals, failing_seed))
}

fn verdict(
    seed_rule_on: bool,
    corruptions: u64,
    args: &ChaosArgs,
    out: &mut impl Write,
) -> std::io::Result<ExitCode> {
    if seed_rule_on && corruptions > 0 {
        if args.format == Format::Text {
            writeln!(out, "{}", failed_sentence(args.seed, args))?;
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Who accepted the stale write, and the command that shows it again.
fn failed_sentence(seed: u64, args: &ChaosArgs) -> String {
    match args.target().ok().flatten() {
        Some(target) => {
            let watch = target.lesson_command("chaos", seed);
            format!("FAILED: your FencedStorage accepted a stale write; watch it with `{watch}`")
        }
        None => format!(
            "FAILED: the seed's rule accepted a stale write; replay it with `fencing-lab chaos --seed {seed}`"
        ),
    }
}

/// The same writes sent to a storage of each check: what each one lets through and refuses.
fn check_table(out: &mut impl Write, args: &ChaosArgs, totals: &[Stats; 4]) -> std::io::Result<()> {
    if args.format == Format::Json {
        for (check, t) in FenceCheck::ALL.iter().zip(totals) {
            let line = serde_json::json!({
                "check": check.name(), "rule": check.rule(), "runs": args.runs,
                "writes_accepted": t.writes_accepted,
                "writes_rejected": t.writes_rejected,
                "corruptions": t.corruptions,
                "honest_writes_refused": t.honest_writes_refused,
            });
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "{} from seed {}, the same writes sent to a storage of each check:\n",
        counted(args.runs, "chaos run", "chaos runs"),
        args.seed
    )?;
    writeln!(
        out,
        "{:<8} {:<26} {:>12} {:>15}",
        "check", "rule", "corruptions", "honest refused"
    )?;
    for (check, t) in FenceCheck::ALL.iter().zip(totals) {
        writeln!(
            out,
            "{:<8} {:<26} {:>12} {:>15}",
            check.name(),
            check.rule(),
            t.corruptions,
            t.honest_writes_refused
        )?;
    }
    writeln!(
        out,
        "\ncorruptions: writes accepted with a token older than their key's highest (CORRUPTED DATA!).\n\
         honest refused: writes refused although sent while the writer's lease was live."
    )
}
