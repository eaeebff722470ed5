//! `grade`: a class's submissions, one lab folder each, checked side by side over the cores.
//! A submission that does not start is a report like any other (every check not run, and why),
//! so one broken folder never stops the rest.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::check::{self, Plan, Report};
use super::target::Target;
use crate::sim::text::printable;

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

/// One submission checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    pub name: String,
    pub report: Report,
}

/// Checks one submission's folder: started, then every check of the plan; or, if it does not
/// start, the report of a program that did not start.
pub fn check_folder(dir: &Path, plan: &Plan) -> Report {
    let target = Target::Folder(dir.to_owned());
    match target.start(plan.timeouts) {
        Ok(program) => check::run(&target, program, plan, &mut |_| {}),
        Err(e) => Report::not_started(&target, plan, &e),
    }
}

/// Grades every submission, `jobs` at a time, each with `plan`; `graded` hears of each as it
/// is done (from the worker that did it). The result is in the submissions' order.
pub fn grade(
    submissions: &[Submission],
    plan: &Plan,
    jobs: usize,
    check: &(dyn Fn(&Path, &Plan) -> Report + Sync),
    graded: &(dyn Fn(&Graded) + Sync),
) -> Vec<Graded> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Graded>>> = Mutex::new(vec![None; submissions.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, submissions.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(submission) = submissions.get(i) else {
                    break;
                };
                let result = Graded {
                    name: submission.name.clone(),
                    report: check(&submission.dir, plan),
                };
                graded(&result);
                done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
            });
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

    #[test]
    fn every_submission_is_graded_once_in_order_whatever_the_jobs() {
        let names: Vec<String> = (0..9).map(|i| format!("s{i}")).collect();
        let subs: Vec<Submission> = names
            .iter()
            .map(|n| Submission {
                name: n.clone(),
                dir: PathBuf::from(n),
            })
            .collect();
        for jobs in [1, 2, 4, 50] {
            let heard = Mutex::new(Vec::new());
            let check = |dir: &Path, _: &Plan| {
                // Later submissions finish first, so the order is not the workers'.
                let i: u64 = dir.to_string_lossy()[1..].parse().unwrap();
                std::thread::sleep(Duration::from_millis(9 - i));
                let mut r = report(vec![]);
                r.target = dir.display().to_string();
                r
            };
            let graded = grade(&subs, &Plan::default(), jobs, &check, &|g| {
                heard.lock().unwrap().push(g.name.clone())
            });
            let order: Vec<&str> = graded.iter().map(|g| g.name.as_str()).collect();
            assert_eq!(order, names, "jobs {jobs}");
            assert!(graded.iter().all(|g| g.report.target == g.name));
            let mut heard = heard.into_inner().unwrap();
            heard.sort();
            assert_eq!(heard, names, "jobs {jobs}");
        }
    }
}
