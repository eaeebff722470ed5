//! `fencing-lab grade SUBMISSIONS`: the teacher's side of the lab. Everything that can refuse
//! (the folder, the points file, `-o DIR`) is checked before the first program runs, so a
//! grading run never stops half way for a reason known at the start.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::args::{GradeArgs, GradeFormat};
use super::lab::read_points;
use super::progress::Progress;
use super::Failure;
use crate::lab::class::{Class, Run};
use crate::lab::grade::{self, Graded, Times};
use crate::lab::points::Points;
use crate::lab::{autograder, report, Plan, Timeouts};
use crate::sim::files;
use crate::sim::text::printable;

/// `grade SUBMISSIONS`.
pub fn run(out: &mut impl Write, args: &GradeArgs) -> Result<ExitCode, Failure> {
    let submissions = grade::submissions(&args.submissions).map_err(Failure::usage)?;
    let points = match &args.points {
        Some(path) => Some(read_points(path)?),
        None => None,
    };
    let scored = points.is_some();
    let points = points.unwrap_or_default();
    if let Some(dir) = &args.output {
        ready_to_write(dir)?;
    }
    let plan = Plan {
        chaos_seeds: args.seeds,
        timeouts: Timeouts {
            startup: Duration::from_millis(args.startup_timeout),
            request: Duration::from_millis(args.timeout),
        },
        deadline: Some(Duration::from_millis(args.deadline)),
        ..Plan::default()
    };
    // Its scripts depend on nothing a program says: planned once for the whole class.
    crate::lab::explore::plan_ahead(plan.bounds.exhaustive_length);
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    // The last run's times, where this run keeps its own: the slowest are started first.
    let times_file = args
        .output
        .as_deref()
        .unwrap_or(&args.submissions)
        .join(grade::TIMES_FILE);
    let last = Times::read(&times_file);
    let order = grade::schedule(&submissions, &last.seconds);
    // Every submission copied before any program runs: none can reach another's folder.
    let guard_too: Vec<PathBuf> = args.output.iter().cloned().collect();
    let copies =
        grade::Copies::make(&args.submissions, &submissions, &guard_too).map_err(Failure::usage)?;
    let progress = Progress::on_stderr(submissions.len());
    let written = std::sync::Mutex::new(Ok(()));
    let started = Instant::now();
    let check = |one: &grade::Submission, plan: &crate::lab::Plan| {
        let i = submissions
            .iter()
            .position(|s| std::ptr::eq(s, one))
            .expect("a submission of the class");
        copies.check(i, one, plan)
    };
    let graded = grade::grade(&submissions, &plan, jobs, &order, &check, &|one| {
        progress.graded(one);
        if let Some(dir) = &args.output {
            let result = write_own_reports(dir, one, &points);
            let mut first = written.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_ok() {
                *first = result;
            }
        }
    });
    progress.finish();
    let seconds = started.elapsed().as_secs_f64();
    for (name, links) in submissions.iter().map(|s| &s.name).zip(&copies.links_out) {
        if !links.is_empty() {
            super::say(&format!(
                "grade: {}: left out of its copy, as links out of its folder: {}",
                printable(name),
                links.join(", ")
            ));
        }
    }
    for (name, paths) in copies.restore_changed(&submissions) {
        super::say(&format!(
            "grade: {}'s folder was changed while the class was graded ({paths} path{} differed, \
             a program's doing): it is put back as it was, and its grade is of it as it was",
            printable(&name),
            if paths == 1 { "" } else { "s" }
        ));
    }
    let isolation = copies.isolation;
    drop(copies);
    // A report that could not be written is said after the class's tables, never instead.
    let written = written.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(dir) = &args.output {
        for sentence in tidy(dir, &graded, &last) {
            super::say(&sentence);
        }
    }
    let times = Times::of(&graded);
    // Only a record for the next run's order: a folder that cannot keep it keeps none.
    let _ = files::write_whole(&times_file, times.json().as_bytes());
    let mut class = class_of(&graded, &points, scored);
    class.same_code = grade::same_code(&submissions, &unbegun_code());
    // A course page names the class's folder, never where it is on the grader's machine.
    let folder = match args.format {
        GradeFormat::Markdown if args.submissions.is_absolute() => {
            args.submissions.file_name().map_or_else(
                || args.submissions.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        }
        _ => args.submissions.display().to_string(),
    };
    let slowest = times.slowest(SLOWEST_SHOWN);
    let run = Run {
        folder: &folder,
        jobs: jobs.min(submissions.len()),
        seconds,
        slowest: &slowest,
        isolation: Some(isolation.sentence()),
    };
    match args.format {
        GradeFormat::Text => write!(out, "{}", class.text(run))?,
        GradeFormat::Markdown => write!(out, "{}", class.markdown(run))?,
        GradeFormat::Csv => write!(out, "{}", class.csv())?,
        GradeFormat::Json => {
            let mut json = class.json(seconds, run.jobs);
            json["isolation"] = isolation.sentence().into();
            writeln!(out, "{json}")?
        }
    }
    out.flush()?;
    written?;
    Ok(ExitCode::SUCCESS)
}

fn class_of(graded: &[Graded], points: &Points, scored: bool) -> Class {
    let pairs: Vec<(String, crate::lab::Report)> = graded
        .iter()
        .map(|g| (g.name.clone(), g.report.clone()))
        .collect();
    Class::of(&pairs, points, scored)
}

/// The code of every language's starter as `lab init` writes it, for `same_code` to leave out
/// submissions not begun.
fn unbegun_code() -> std::collections::BTreeSet<String> {
    let Ok(root) = tempfile_dir() else {
        return Default::default();
    };
    let codes = crate::lab::starter::LANGUAGES
        .iter()
        .filter_map(|(language, _)| {
            let dir = root.join(language);
            crate::lab::starter::init(language, &dir).ok()?;
            grade::code_of(&dir)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&root);
    codes
}

/// A fresh folder of this process's own under the system's temporary folder: made new, never
/// one that was there (nor a link someone left in its place).
fn tempfile_dir() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let mut last = std::io::Error::other("no name left");
    for n in 0..100 {
        let dir = base.join(format!("fencing-lab-starters-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// How many of the longest-running submissions the text and the page name.
const SLOWEST_SHOWN: usize = 3;

/// What a file of a student's own reports ends with, longest first.
const REPORT_ENDINGS: [&str; 3] = [".junit.xml", ".json", ".txt"];

/// The earlier reports in `-o DIR` of submissions not in this class: removed where the last
/// grading into DIR wrote them (its record names them), else kept; a sentence for each.
fn tidy(dir: &Path, graded: &[Graded], last: &Times) -> Vec<String> {
    let shown = printable(&dir.display().to_string()).into_owned();
    let current: std::collections::BTreeSet<String> =
        graded.iter().map(|g| grade::report_stem(&g.name)).collect();
    let last_graded: std::collections::BTreeSet<String> = last
        .seconds
        .keys()
        .map(|name| grade::report_stem(name))
        .collect();
    let mut earlier: Vec<(String, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|file| !file.starts_with('.'))
        .filter_map(|file| {
            let stem = REPORT_ENDINGS
                .iter()
                .find_map(|ending| file.strip_suffix(ending))?
                .to_owned();
            (!stem.is_empty() && !current.contains(&stem)).then_some((stem, file))
        })
        .collect();
    earlier.sort();
    let (mut removed, mut kept) = (Vec::new(), Vec::new());
    for (stem, file) in earlier {
        let ours = last_graded.contains(&stem);
        match ours && std::fs::remove_file(dir.join(&file)).is_ok() {
            true => removed.push(printable(&file).into_owned()),
            false => kept.push(printable(&file).into_owned()),
        }
    }
    let mut sentences = Vec::new();
    if !removed.is_empty() {
        sentences.push(format!(
            "-o {shown}: removed {}: the last grading into it wrote them, for submissions no \
             longer in the class",
            and_list(&removed)
        ));
    }
    if !kept.is_empty() {
        sentences.push(format!(
            "-o {shown}: kept {}: named like reports of submissions not in the class, but not \
             written by the last grading into it; remove them by hand if they are stale",
            and_list(&kept)
        ));
    }
    sentences
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `-o DIR` made (if missing) and proven writable, before any submission is checked.
fn ready_to_write(dir: &Path) -> Result<(), Failure> {
    let shown = printable(&dir.display().to_string()).into_owned();
    let refused = |why: String| Failure::usage(format!("-o {shown}: {why}"));
    if dir.exists() && !dir.is_dir() {
        return Err(refused("it is a file, not a folder for the reports".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| refused(format!("cannot make the folder: {e}")))?;
    let probe = dir.join(".fencing-lab-grade-probe");
    files::write_whole(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|e| refused(format!("cannot write in it: {e}")))
}

/// One student's report as `check` gives it, in text, JSON and JUnit, each file written whole.
fn write_own_reports(dir: &Path, graded: &Graded, points: &Points) -> Result<(), Failure> {
    let base = dir.join(grade::report_stem(&graded.name));
    let with = |ending: &str| PathBuf::from(format!("{}.{ending}", base.display()));
    let json = format!("{}\n", report::json(&graded.report, points));
    for (path, text) in [
        (with("txt"), report::text(&graded.report)),
        (with("json"), json),
        (with("junit.xml"), autograder::junit(&graded.report)),
    ] {
        files::write_whole(&path, text.as_bytes()).map_err(|e| {
            Failure::usage(format!(
                "could not write {}: {e}",
                printable(&path.display().to_string())
            ))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_where_the_reports_folder_should_be_is_refused_by_name() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("reports");
        std::fs::write(&file, "x").unwrap();
        let Err(Failure::Usage(sentence)) = ready_to_write(&file) else {
            panic!("a file is not a folder for reports")
        };
        assert!(sentence.contains("reports: it is a file"), "{sentence}");
    }

    #[test]
    fn a_missing_reports_folder_is_made_and_left_empty() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        assert!(ready_to_write(&dir).is_ok());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
}
