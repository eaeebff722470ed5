//! `grade`: a class's submissions, one lab folder each, checked side by side over the cores.
//! A submission that does not start is a report like any other (every check not run, and why),
//! so one broken folder never stops the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::check::{self, Plan, Report, Verdict};
use super::class::same;
use super::target::Target;
use crate::sim::text::printable;

mod private;

pub use private::Copies;

/// One student's lab folder.
#[derive(Clone, Debug, PartialEq)]
pub struct Submission {
    /// The folder's name: the student, as GitHub Classroom names a repository.
    pub name: String,
    pub dir: PathBuf,
}

/// The submissions under `root`: each subfolder that is not hidden, by name.
pub fn submissions(root: &Path) -> Result<Vec<Submission>, String> {
    let shown = printable(&root.display().to_string()).into_owned();
    let entries = std::fs::read_dir(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("grade {shown}: there is no such folder"),
        std::io::ErrorKind::NotADirectory => format!(
            "grade {shown}: it is a file, not a folder of submissions (to check one folder, run `fencing-lab check {shown}`)"
        ),
        _ => format!("grade {shown}: {e}"),
    })?;
    if super::target::is_lab_folder(root) {
        return Err(format!(
            "grade {shown}: it is one student's lab folder, not a folder of submissions; check it with `fencing-lab check {}`",
            crate::sim::text::shell_word(&shown)
        ));
    }
    let mut found: Vec<Submission> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .map(|entry| Submission {
            name: entry.file_name().to_string_lossy().into_owned(),
            dir: entry.path(),
        })
        .filter(|s| !s.name.starts_with('.'))
        .collect();
    if found.is_empty() {
        return Err(format!(
            "grade {shown}: it holds no submission folders (each student's lab folder is one subfolder, as GitHub Classroom downloads them; to check one folder, run `fencing-lab check {}`)",
            crate::sim::text::shell_word(&shown)
        ));
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    // Two folders whose names are not UTF-8 may read alike ("s\u{fffd}"): each gets a name of
    // its own, so no report is written over another's.
    let mut seen = std::collections::BTreeSet::new();
    for submission in &mut found {
        let mut name = submission.name.clone();
        let mut n = 1;
        while !seen.insert(name.clone()) {
            n += 1;
            name = format!("{} ({n})", submission.name);
        }
        submission.name = name;
    }
    Ok(found)
}

/// A folder's student files as code ([`same::normalized`]): the same for two folders whose
/// files differ only in whitespace, names and comments. `None` where no starter is found.
pub fn code_of(dir: &Path) -> Option<String> {
    let (language, files) = super::target::student_files(dir)?;
    Some(same::normalized(same::Language::named(language)?, &files))
}

/// The groups of submissions that are the same code up to whitespace, names and comments,
/// leaving out any whose code is in `unbegun` (a starter's own: two students who wrote nothing
/// did not copy each other).
pub fn same_code(submissions: &[Submission], unbegun: &BTreeSet<String>) -> Vec<Vec<String>> {
    let codes: Vec<(String, String)> = submissions
        .iter()
        .filter_map(|s| Some((s.name.clone(), code_of(&s.dir)?)))
        .filter(|(_, code)| !unbegun.contains(code))
        .collect();
    same::groups(&codes)
}

/// One submission checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    pub name: String,
    pub report: Report,
    /// How long the submission took, its build or compile and its start included.
    pub seconds: f64,
}

/// The longest a report's file name is made from a submission's name, in bytes: with its
/// longest ending (`.junit.xml`) well within the 255 bytes a file name may have.
const LONGEST_STEM: usize = 100;

/// The stem of a submission's report files in `-o DIR`: its name where that is a safe file
/// name, else the name with every character a terminal or a file system takes for something else
/// (a control character, a slash, a leading dot) replaced by `_`, cut short, and followed by
/// `-` and 8 hex digits of the name's SHA-256, so that two names never share a stem.
pub fn report_stem(name: &str) -> String {
    let safe = |c: char| !c.is_control() && c != '/' && c != '\\' && c != '\u{fffd}';
    let plain = name.len() <= LONGEST_STEM && !name.starts_with('.') && name.chars().all(safe);
    if plain && !name.is_empty() {
        return name.to_owned();
    }
    let mut stem: String = name
        .chars()
        .map(|c| if safe(c) { c } else { '_' })
        .scan(0, |bytes, c| {
            *bytes += c.len_utf8();
            (*bytes <= LONGEST_STEM).then_some(c)
        })
        .collect();
    if stem.starts_with('.') {
        stem.replace_range(..1, "_");
    }
    let digest = super::target::digest::sha256_hex(name.as_bytes());
    format!("{stem}-{}", &digest[..8])
}

/// How a submission is named in its reports: by its folder's name, relative to the class's
/// folder (`fencing-lab check --only per-key gus`, run there), never by a path of the
/// grader's machine.
pub fn named(submission: &Submission) -> Target {
    let name = submission
        .dir
        .file_name()
        .map_or_else(|| PathBuf::from(&submission.name), PathBuf::from);
    Target::Folder(name)
}

/// Checks one submission: started from its folder, then every check of the plan; or, if it
/// does not start, the report of a program that did not start. The report names it as
/// [`named`] does, and every path to its folder in what it says (an error, a stderr line, a
/// refusal) is that name too.
pub fn check_submission(submission: &Submission, plan: &Plan) -> Report {
    check_in(submission, &submission.dir, plan)
}

/// [`check_submission`], run in `dir` (the submission's private copy, or its folder).
fn check_in(submission: &Submission, dir: &Path, plan: &Plan) -> Report {
    let real = Target::Folder(dir.to_owned());
    let named = named(submission);
    let mut report = match real.start(plan.timeouts) {
        Ok(program) => check::run_as(&named, &real, program, plan, &mut |_| {}),
        Err(e) => Report::not_started(&named, plan, &e),
    };
    relative(&mut report, dir, &named.describe());
    relative(&mut report, &submission.dir, &named.describe());
    report
}

/// Every way the report may spell `dir` (as given, absolute, without links) replaced by
/// `name`, in every text it holds.
fn relative(report: &mut Report, dir: &Path, name: &str) {
    let mut spellings: Vec<String> = [
        Some(dir.to_owned()),
        std::path::absolute(dir).ok(),
        dir.canonicalize().ok(),
    ]
    .into_iter()
    .flatten()
    .map(|p| p.display().to_string())
    .filter(|p| !p.is_empty() && p != name)
    .flat_map(|p| [printable(&p).into_owned(), p])
    .collect();
    // The longest first, so no spelling is cut by a shorter one inside it.
    spellings.sort_by_key(|p| std::cmp::Reverse(p.len()));
    spellings.dedup();
    let fix = |text: &mut String| {
        for spelling in &spellings {
            if text.contains(spelling.as_str()) {
                *text = text.replace(spelling.as_str(), name);
            }
        }
    };
    fix(&mut report.target);
    report.error.iter_mut().for_each(fix);
    report.stderr.iter_mut().for_each(fix);
    for stop in &mut report.stops {
        fix(&mut stop.call);
        fix(&mut stop.how);
    }
    for outcome in &mut report.outcomes {
        match &mut outcome.verdict {
            Verdict::Passed => {}
            Verdict::NotRun(why) => fix(why),
            Verdict::NotJudged { because, .. } => fix(because),
            Verdict::Failed(failure) => {
                failure.transcript.iter_mut().for_each(fix);
                fix(&mut failure.expected);
                fix(&mut failure.replay);
                failure.hint.iter_mut().for_each(fix);
                failure.note.iter_mut().for_each(fix);
                failure.watch.iter_mut().for_each(fix);
            }
        }
    }
}

/// The order to check the submissions in: the slowest of the last run first (a long one
/// started last holds up the class however many cores are free), those it did not time
/// before them all (one may be slow), ties by name. Indices into `submissions`.
pub fn schedule(submissions: &[Submission], last: &BTreeMap<String, f64>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..submissions.len()).collect();
    let time = |i: usize| last.get(&submissions[i].name).copied();
    order.sort_by(|&a, &b| match (time(a), time(b)) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(a), Some(b)) => b.total_cmp(&a),
    });
    order
}

/// The file that keeps the last run's times, in `-o DIR` or else in the class's folder.
pub const TIMES_FILE: &str = ".fencing-lab-times.json";

/// A grading run's record: how long each submission took, by name (whose reports, where the
/// record is in a `-o` folder, that run wrote).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Times {
    pub seconds: BTreeMap<String, f64>,
}

impl Times {
    /// The record at `path`; a missing or unreadable one, or one that is not a record, is
    /// none (the submissions are then checked in name order).
    pub fn read(path: &Path) -> Times {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let seconds = value["seconds"]
            .as_object()
            .map(|times| {
                times
                    .iter()
                    .filter_map(|(name, s)| Some((name.clone(), s.as_f64()?)))
                    .filter(|(_, s)| s.is_finite() && *s >= 0.0)
                    .collect()
            })
            .unwrap_or_default();
        Times { seconds }
    }

    /// The record of a run.
    pub fn of(graded: &[Graded]) -> Times {
        Times {
            seconds: graded.iter().map(|g| (g.name.clone(), g.seconds)).collect(),
        }
    }

    pub fn json(&self) -> String {
        let record = serde_json::json!({
            "written_by": concat!("fencing-lab ", env!("CARGO_PKG_VERSION")),
            "seconds": self.seconds,
        });
        format!("{record}\n")
    }

    /// The `most` slowest, slowest first, ties by name.
    pub fn slowest(&self, most: usize) -> Vec<(String, f64)> {
        let mut all: Vec<(String, f64)> = self
            .seconds
            .iter()
            .map(|(name, s)| (name.clone(), *s))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(most);
        all
    }
}

/// Grades every submission, `jobs` at a time, each with `plan`, taking them in `order`
/// ([`schedule`]'s); `graded` hears of each as it is done (from the worker that did it). The
/// result is in the submissions' order.
pub fn grade(
    submissions: &[Submission],
    plan: &Plan,
    jobs: usize,
    order: &[usize],
    check: &(dyn Fn(&Submission, &Plan) -> Report + Sync),
    graded: &(dyn Fn(&Graded) + Sync),
) -> Vec<Graded> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Graded>>> = Mutex::new(vec![None; submissions.len()]);
    let work = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let Some(submission) = submissions.get(i) else {
                continue;
            };
            let started = Instant::now();
            let report = check(submission, plan);
            let result = Graded {
                name: submission.name.clone(),
                report,
                seconds: started.elapsed().as_secs_f64(),
            };
            graded(&result);
            done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
        }
    };
    std::thread::scope(|scope| {
        // On a machine out of threads (a submission's fork bomb) fewer jobs run; with none to
        // spare, this thread grades the class itself.
        let started = (0..jobs.clamp(1, submissions.len().max(1)))
            .filter(|_| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, work)
                    .is_ok()
            })
            .count();
        if started == 0 {
            work();
        }
    });
    let done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::testing::reports::report;
    use std::time::Duration;

    fn folder_with(names: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for name in names {
            std::fs::create_dir(root.path().join(name)).unwrap();
        }
        root
    }

    #[test]
    fn a_report_is_named_safely_whatever_the_submission_is_named() {
        assert_eq!(report_stem("ada"), "ada");
        assert_eq!(report_stem("ada lovelace-2"), "ada lovelace-2");
        let long = "x".repeat(250);
        let cut = report_stem(&long);
        assert!(
            cut.len() <= LONGEST_STEM + 9 && cut.starts_with("xxx"),
            "{cut}"
        );
        assert_ne!(
            report_stem(&"x".repeat(251)),
            cut,
            "two long names, two stems"
        );
        for hostile in ["a\u{1b}[2Jb", "a\nb", "..", ".hidden", "a/b", "s\u{fffd}"] {
            let stem = report_stem(hostile);
            assert!(
                !stem.chars().any(|c| c.is_control() || c == '/') && !stem.starts_with('.'),
                "{hostile:?} -> {stem:?}"
            );
        }
        assert_ne!(
            report_stem("a\nb"),
            report_stem("a\rb"),
            "each name its own stem"
        );
        let wide = "é".repeat(80);
        assert!(
            report_stem(&wide).len() <= LONGEST_STEM + 9,
            "cut on a character"
        );
    }

    #[test]
    fn the_submissions_are_the_visible_subfolders_by_name() {
        let root = folder_with(&["carol", "alice", ".git", "bob"]);
        std::fs::write(root.path().join("grades.csv"), "").unwrap();
        let names: Vec<String> = submissions(root.path())
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["alice", "bob", "carol"]);
    }

    /// Folder names that are not UTF-8 and read alike get names of their own, so their
    /// reports never overwrite each other.
    #[cfg(unix)]
    #[test]
    fn folders_that_read_alike_get_names_of_their_own() {
        use std::os::unix::ffi::OsStrExt;
        let root = tempfile::tempdir().unwrap();
        for bytes in [&b"s\xff"[..], &b"s\xfe"[..]] {
            let name = std::ffi::OsStr::from_bytes(bytes);
            std::fs::create_dir(root.path().join(name)).unwrap();
        }
        let names: Vec<String> = submissions(root.path())
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["s\u{fffd}", "s\u{fffd} (2)"]);
    }

    #[test]
    fn a_folder_of_no_submissions_is_one_sentence_naming_it() {
        let root = folder_with(&[".git"]);
        let error = submissions(root.path()).unwrap_err();
        assert!(error.contains("holds no submission folders"), "{error}");
        let missing = submissions(&root.path().join("nowhere")).unwrap_err();
        assert!(missing.ends_with("there is no such folder"), "{missing}");
        let file = root.path().join("a.txt");
        std::fs::write(&file, "").unwrap();
        let error = submissions(&file).unwrap_err();
        assert!(error.contains("not a folder of submissions"), "{error}");
    }

    fn named_subs(names: &[String]) -> Vec<Submission> {
        names
            .iter()
            .map(|n| Submission {
                name: n.clone(),
                dir: PathBuf::from(n),
            })
            .collect()
    }

    #[test]
    fn every_submission_is_graded_once_in_order_whatever_the_jobs() {
        let names: Vec<String> = (0..9).map(|i| format!("s{i}")).collect();
        let subs = named_subs(&names);
        let order: Vec<usize> = (0..subs.len()).collect();
        for jobs in [1, 2, 4, 50] {
            let heard = Mutex::new(Vec::new());
            let check = |s: &Submission, _: &Plan| {
                // Later submissions finish first, so the order is not the workers'.
                let i: u64 = s.name[1..].parse().unwrap();
                std::thread::sleep(Duration::from_millis(9 - i));
                let mut r = report(vec![]);
                r.target = s.dir.display().to_string();
                r
            };
            let graded = grade(&subs, &Plan::default(), jobs, &order, &check, &|g| {
                heard.lock().unwrap().push(g.name.clone())
            });
            let order: Vec<&str> = graded.iter().map(|g| g.name.as_str()).collect();
            assert_eq!(order, names, "jobs {jobs}");
            assert!(graded.iter().all(|g| g.report.target == g.name));
            assert!(graded.iter().all(|g| g.seconds > 0.0));
            let mut heard = heard.into_inner().unwrap();
            heard.sort();
            assert_eq!(heard, names, "jobs {jobs}");
        }
    }

    /// The last run's slowest are started first, those it never timed before them; the result
    /// keeps the submissions' order.
    #[test]
    fn the_last_runs_slowest_submissions_are_checked_first() {
        let names: Vec<String> = ["ada", "ben", "cho", "dev", "eve"]
            .map(String::from)
            .to_vec();
        let subs = named_subs(&names);
        let last: BTreeMap<String, f64> = [("ada", 0.5), ("ben", 4.1), ("cho", 0.5), ("eve", 2.0)]
            .into_iter()
            .map(|(n, s)| (n.to_owned(), s))
            .collect();
        let order = schedule(&subs, &last);
        let by_name: Vec<&str> = order.iter().map(|&i| names[i].as_str()).collect();
        assert_eq!(by_name, ["dev", "ben", "eve", "ada", "cho"]);
        let started = Mutex::new(Vec::new());
        let check = |s: &Submission, _: &Plan| {
            started.lock().unwrap().push(s.name.clone());
            report(vec![])
        };
        let graded = grade(&subs, &Plan::default(), 1, &order, &check, &|_| {});
        assert_eq!(started.into_inner().unwrap(), by_name);
        let kept: Vec<&str> = graded.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(kept, names);
        // No record: name order.
        assert_eq!(schedule(&subs, &BTreeMap::new()), [0, 1, 2, 3, 4]);
    }

    /// The record is read back as written; a missing, corrupt or foreign file is no record,
    /// and a time that is no time is left out.
    #[test]
    fn a_runs_times_are_kept_and_a_bad_record_is_no_record() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join(TIMES_FILE);
        assert_eq!(Times::read(&path), Times::default());
        let graded: Vec<Graded> = [("ada", 4.1), ("ben", 2.0), ("cho", 0.3)]
            .into_iter()
            .map(|(name, seconds)| Graded {
                name: name.into(),
                report: report(vec![]),
                seconds,
            })
            .collect();
        let times = Times::of(&graded);
        std::fs::write(&path, times.json()).unwrap();
        assert_eq!(Times::read(&path), times);
        assert_eq!(
            times.slowest(2),
            [("ada".to_owned(), 4.1), ("ben".to_owned(), 2.0)]
        );
        for corrupt in ["", "{", "[1, 2]", "{\"seconds\": 3}", "\u{0}\u{ff}"] {
            std::fs::write(&path, corrupt).unwrap();
            assert_eq!(Times::read(&path), Times::default(), "{corrupt:?}");
        }
        std::fs::write(&path, r#"{"seconds": {"ada": -1, "ben": "x", "cho": 1.5}}"#).unwrap();
        let read = Times::read(&path);
        assert_eq!(
            read.seconds.into_iter().collect::<Vec<_>>(),
            [("cho".to_owned(), 1.5)]
        );
    }

    /// A report names its submission by its folder's name, never by a path of the grader's
    /// machine: the target, the replay lines, the error and the stderr lines.
    #[test]
    fn a_submissions_report_names_it_relative_to_the_class() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("gus");
        std::fs::create_dir(&dir).unwrap();
        let submission = Submission {
            name: "gus".into(),
            dir: dir.clone(),
        };
        let report = check_submission(&submission, &Plan::default());
        assert_eq!(report.target, "gus");
        let error = report.error.clone().unwrap();
        assert!(error.starts_with("gus holds no lab starter"), "{error}");
        let shown = root.path().display().to_string();
        assert!(!format!("{report:?}").contains(&shown), "{report:?}");

        let abs = std::path::absolute(&dir).unwrap().display().to_string();
        let mut failing = crate::lab::testing::reports::sample();
        failing.target = abs.clone();
        failing.error = Some(format!(
            "{abs} stopped; its stderr ends: File \"{abs}/a.py\""
        ));
        failing.stderr = vec![format!("  File \"{abs}/lock_service.py\", line 3")];
        for outcome in &mut failing.outcomes {
            if let Verdict::Failed(f) = &mut outcome.verdict {
                f.replay = format!("fencing-lab check --only chaos {abs}");
                f.watch = Some(format!("fencing-lab tui chaos --seed 3 --impl {abs}"));
            }
        }
        relative(&mut failing, &dir, "gus");
        assert_eq!(failing.target, "gus");
        assert_eq!(
            failing.error.as_deref(),
            Some("gus stopped; its stderr ends: File \"gus/a.py\"")
        );
        assert_eq!(failing.stderr, ["  File \"gus/lock_service.py\", line 3"]);
        let chaos = failing.outcomes.last().unwrap().failure().unwrap();
        assert_eq!(chaos.replay, "fencing-lab check --only chaos gus");
        assert_eq!(
            chaos.watch.as_deref(),
            Some("fencing-lab tui chaos --seed 3 --impl gus")
        );
    }
}
