//! A class that outgrows one machine: each student's repository checks itself in its own CI
//! runner. `lab init --ci github` writes a GitHub Actions workflow with one graded step a check
//! (GitHub Classroom's command grader and reporter) and the JUnit report as an artifact, and
//! GitHub Classroom's `autograding.json` with the same tests, both from the list of checks.
//! `lab init --ci gradescope` writes a Gradescope autograder instead: `setup.sh`, which installs
//! fencing-lab and the language's runtime, `run_autograder`, which checks a student's uploaded
//! files in a fresh starter, and `points.toml`.

use super::check::CheckId;

/// Minutes one check may take in a runner before the grader stops it: far above what a check
/// needs (under a second), so only a hung program reaches it.
const MINUTES_A_CHECK: u32 = 2;

/// Minutes for the first test of autograding.json, whose set-up builds fencing-lab from source
/// in a runner that does not have it yet (a cold `cargo install` takes several minutes): the
/// grader counts the set-up in the test's time.
const MINUTES_WITH_INSTALL: u32 = 20;

/// The command that checks one check in the student's repository.
pub fn command_for(check: CheckId) -> String {
    format!("fencing-lab check . --only {}", check.id())
}

/// The steps that give a runner the student's language.
fn language_setup(language: &str) -> &'static str {
    match language {
        "python" => {
            "      - uses: actions/setup-python@v5\n        with:\n          python-version: \"3.12\"\n"
        }
        "js" => "      - uses: actions/setup-node@v4\n        with:\n          node-version: \"20\"\n",
        "java" => {
            "      - uses: actions/setup-java@v4\n        with:\n          distribution: temurin\n          java-version: \"17\"\n"
        }
        // Rust is on GitHub's runners already, and the install below needs it anyway.
        _ => "",
    }
}

/// `.github/workflows/classroom.yml` for a starter in `language` (as `lab init` names it).
pub fn workflow(language: &str) -> String {
    let checks = CheckId::all();
    let mut out = String::from(WORKFLOW_HEAD);
    out.push_str(language_setup(language));
    out.push_str(INSTALL);
    for check in &checks {
        let id = check.id();
        out.push_str(&format!(
            "      - name: {id}\n        id: {id}\n        uses: classroom-resources/autograding-command-grader@v1\n        with:\n          test-name: {id}\n          command: {}\n          timeout: {MINUTES_A_CHECK}\n          max-score: 1\n",
            command_for(*check)
        ));
    }
    out.push_str(JUNIT);
    out.push_str("      - name: Autograding Reporter\n        if: always()\n        uses: classroom-resources/autograding-grading-reporter@v1\n        env:\n");
    for check in &checks {
        let id = check.id();
        out.push_str(&format!(
            "          {}_RESULTS: \"${{{{ steps.{id}.outputs.result }}}}\"\n",
            id.to_uppercase()
        ));
    }
    let runners: Vec<&str> = checks.iter().map(|c| c.id()).collect();
    out.push_str(&format!(
        "        with:\n          runners: {}\n",
        runners.join(",")
    ));
    out
}

/// `.github/classroom/autograding.json`: the same tests in the format GitHub Classroom's
/// assignment editor imports, fencing-lab installed by the first test's set-up.
pub fn autograding_json() -> String {
    let tests: Vec<serde_json::Value> = CheckId::all()
        .into_iter()
        .enumerate()
        .map(|(i, check)| {
            serde_json::json!({
                "name": check.id(),
                "setup": if i == 0 { INSTALL_COMMAND } else { "" },
                "run": command_for(check),
                "input": "",
                "output": "",
                "comparison": "included",
                "timeout": if i == 0 { MINUTES_WITH_INSTALL } else { MINUTES_A_CHECK },
                "points": 1,
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "tests": tests }))
        .expect("a JSON value serializes");
    text.push('\n');
    text
}

/// Gradescope's `setup.sh` for a starter in `language` (as `lab init` names it).
pub fn gradescope_setup(language: &str) -> String {
    include_str!("../../assets/lab/gradescope/setup.sh").replace("@LANGUAGE@", language)
}

/// Gradescope's `run_autograder` for a starter in `language`.
pub fn gradescope_run(language: &str) -> String {
    include_str!("../../assets/lab/gradescope/run_autograder").replace("@LANGUAGE@", language)
}

/// The points file `run_autograder` passes to `check`: every check, a point each, to edit.
pub fn gradescope_points() -> String {
    let mut out = String::from(
        "# What each check is worth on Gradescope (run_autograder passes this file to \
         `fencing-lab check --points`):\n# change a number to weigh a check, 0 to leave it out \
         of the grade.\n",
    );
    for check in CheckId::all() {
        out.push_str(&format!("{} = 1\n", check.id()));
    }
    out
}

/// Installs fencing-lab in a runner from the repository the course names, unless it is there.
const INSTALL_COMMAND: &str = "command -v fencing-lab >/dev/null || cargo install --locked --git \"${FENCING_LAB_GIT:?set the variable FENCING_LAB_GIT to fencing-lab's git URL}\" fencing-lab";

const WORKFLOW_HEAD: &str = "\
# Written by `fencing-lab lab init --ci github`. Each check of `fencing-lab check` is one graded
# test (a point each; change max-score to weigh them). Set the repository or organization
# variable FENCING_LAB_GIT to the git URL fencing-lab is installed from.
name: fencing-lab
on:
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    env:
      FENCING_LAB_GIT: ${{ vars.FENCING_LAB_GIT }}
    steps:
      - uses: actions/checkout@v4
";

/// The cached install is keyed by the version that wrote the workflow (and the runner's system
/// and where fencing-lab comes from): a workflow written by a new release installs it afresh
/// rather than keep running the old one.
const INSTALL: &str = concat!(
    "      - name: Cache fencing-lab
        id: cache-fencing-lab
        uses: actions/cache@v4
        with:
          path: ~/.cargo/bin/fencing-lab
          key: fencing-lab-",
    env!("CARGO_PKG_VERSION"),
    "-${{ runner.os }}-${{ vars.FENCING_LAB_GIT }}
      - name: Install fencing-lab
        if: steps.cache-fencing-lab.outputs.cache-hit != 'true'
        run: cargo install --locked --git \"${FENCING_LAB_GIT:?set the variable FENCING_LAB_GIT to fencing-lab's git URL}\" fencing-lab
"
);

const JUNIT: &str = "      - name: JUnit report
        if: always()
        run: fencing-lab check . --format junit > fencing-lab.junit.xml || test -s fencing-lab.junit.xml
      - name: Keep the JUnit report
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: fencing-lab-junit
          path: fencing-lab.junit.xml
";

#[cfg(test)]
mod tests {
    use super::*;

    /// The `command:` of each graded step, in order.
    fn graded_commands(workflow: &str) -> Vec<String> {
        workflow
            .lines()
            .filter_map(|l| l.trim().strip_prefix("command: "))
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_check_is_one_graded_step_reported_by_its_id() {
        for language in ["python", "js", "rust", "java"] {
            let text = workflow(language);
            let checks = CheckId::all();
            let commands: Vec<String> = checks.iter().map(|c| command_for(*c)).collect();
            assert_eq!(graded_commands(&text), commands, "{language}");
            let runners = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("runners: "))
                .unwrap();
            let ids: Vec<&str> = checks.iter().map(|c| c.id()).collect();
            assert_eq!(runners, ids.join(","));
            for id in ids {
                let env = format!(
                    "{}_RESULTS: \"${{{{ steps.{id}.outputs.result }}}}\"",
                    id.to_uppercase()
                );
                assert!(text.contains(&env), "{language}: {env}");
                assert!(
                    text.contains(&format!("        id: {id}\n")),
                    "{language}: {id}"
                );
            }
            assert!(!text.contains('\t'), "YAML takes no tabs");
        }
    }

    /// A workflow written by another release caches its install under another key, so the
    /// runner installs that release instead of restoring the old binary.
    #[test]
    fn the_cached_install_is_keyed_by_the_version_that_wrote_the_workflow() {
        let text = workflow("python");
        let key = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("key: "))
            .expect("a cache key");
        assert_eq!(
            key,
            format!(
                "fencing-lab-{}-${{{{ runner.os }}}}-${{{{ vars.FENCING_LAB_GIT }}}}",
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn each_language_gets_its_own_runtime_and_rust_needs_none() {
        assert!(workflow("python").contains("setup-python"));
        assert!(workflow("js").contains("setup-node"));
        assert!(workflow("java").contains("java-version: \"17\""));
        let rust = workflow("rust");
        assert!(
            !rust.contains("setup-python")
                && !rust.contains("setup-node")
                && !rust.contains("setup-java")
        );
    }

    /// Gradescope's scripts are written for the starter's language, and its points file names
    /// every check, a point each, as `check --points` reads it.
    #[test]
    fn the_gradescope_files_are_for_the_language_and_name_every_check() {
        for language in ["python", "js", "rust", "java"] {
            for script in [gradescope_setup(language), gradescope_run(language)] {
                assert!(script.starts_with("#!/usr/bin/env bash\n"), "{script}");
                assert!(script.contains(&format!("\nlanguage=\"{language}\"\n")));
                assert!(!script.contains("@LANGUAGE@"), "filled in: {script}");
            }
        }
        let points = gradescope_points();
        let table: toml::Table = points.parse().unwrap();
        let ids: Vec<&str> = table.keys().map(String::as_str).collect();
        let mut all: Vec<&str> = CheckId::all().iter().map(|c| c.id()).collect();
        all.sort();
        assert_eq!(ids, all);
        assert!(table.values().all(|v| v.as_integer() == Some(1)));
    }

    #[test]
    fn autograding_json_holds_the_same_tests_as_the_workflow() {
        let json: serde_json::Value = serde_json::from_str(&autograding_json()).unwrap();
        let tests = json["tests"].as_array().unwrap();
        let runs: Vec<String> = tests
            .iter()
            .map(|t| t["run"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(runs, graded_commands(&workflow("python")));
        assert!(tests[0]["setup"]
            .as_str()
            .unwrap()
            .contains("cargo install --locked --git"));
        assert!(tests[1..].iter().all(|t| t["setup"] == ""));
        assert!(tests.iter().all(|t| t["points"] == 1));
        // The set-up's build is counted in its test's time: that test has room for it.
        assert_eq!(tests[0]["timeout"], MINUTES_WITH_INSTALL);
        assert!(tests[1..].iter().all(|t| t["timeout"] == MINUTES_A_CHECK));
    }
}
