//! The module arrows point one way. `src/sim/`, `src/tui/`, `src/live/` and `src/pictures/` are
//! each layered as their module doc lists it (each module uses only those above it), and the
//! crate's layers stack: the library uses nothing of the rest; the simulation nothing of the UI,
//! the pictures, the live lesson or the command line; the live lesson only the library and the
//! simulation; the UI nothing of the pictures, the live lesson or the command line; the pictures
//! nothing of the command line. A module that reaches up fails here. Also: every test suite is
//! mutation-tested or left out with a reason.

use std::fs;
use std::path::Path;

/// The identifiers that follow `prefix` anywhere in `text` (`super::world::Setup` -> "world"),
/// including each of a group (`super::{keys, theme::Role}` -> "keys", "theme").
fn referenced(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        rest = &rest[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level members of the group only: split on commas outside nested braces.
            let mut depth = 0;
            let mut start = 0;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        found.push(ident(&group[start..j]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(ident(&group[start..j]));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            found.push(ident(rest));
        }
    }
    found.retain(|name| !name.is_empty());
    found
}

/// The module order a `mod.rs` documents: "//! N. [`a`], [`b`]: ..." lines, top first.
fn documented_order(mod_rs: &str) -> Vec<String> {
    mod_rs
        .lines()
        .filter_map(|l| l.strip_prefix("//! "))
        .filter(|l| {
            l.split('.')
                .next()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .flat_map(|l| {
            let names = l.split(':').next().unwrap_or("");
            names
                .split("[`")
                .skip(1)
                .filter_map(|s| s.split('`').next().map(str::to_owned))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn check_layers(folder: &str) {
    check_layers_of(folder, 5);
}

/// [`check_layers`], for a folder of at least `fewest` modules.
fn check_layers_of(folder: &str, fewest: usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let order = documented_order(&fs::read_to_string(dir.join("mod.rs")).unwrap());
    assert!(
        order.len() >= fewest,
        "{folder}/mod.rs documents no layer order"
    );
    let rank = |name: &str| order.iter().position(|m| m == name);
    let crate_prefix = format!(
        "crate::{}::",
        folder.trim_start_matches("src/").replace('/', "::")
    );
    // Each file with the module it belongs to: a file of a subfolder (`view/timeline.rs`) is
    // part of that folder's module (`view`), and is held to its place in this list too.
    let mut members = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
            continue;
        };
        if path.is_dir() {
            for inner in fs::read_dir(&path).unwrap() {
                let inner = inner.unwrap().path();
                // A module's `tests.rs` is its unit tests (`#[cfg(test)] mod tests;`), which may
                // look anywhere.
                let unit_tests = inner.file_stem().is_some_and(|s| s == "tests");
                if inner.extension().is_some_and(|e| e == "rs") && !unit_tests {
                    let own_super = inner.file_stem().is_some_and(|s| s == "mod");
                    members.push((name.clone(), inner, own_super));
                }
            }
        } else if name != "mod" && path.extension().is_some_and(|e| e == "rs") {
            members.push((name, path, true));
        }
    }
    assert!(
        members.len() >= order.len(),
        "{folder}: fewer files than layers"
    );
    for (module, path, super_is_ours) in members {
        let own = rank(&module)
            .unwrap_or_else(|| panic!("{folder}/{module} is not in mod.rs's layer list"));
        let text = fs::read_to_string(&path).unwrap();
        // Only what the module itself uses: its unit tests may look anywhere.
        let text = text.split("#[cfg(test)]").next().unwrap();
        // In a subfolder's own files `super::` names the subfolder's siblings, checked by the
        // subfolder's own list; only its `mod.rs` speaks of this folder's modules as `super::`.
        let via_super = if super_is_ours {
            referenced(text, "super::")
        } else {
            Vec::new()
        };
        for used in via_super.into_iter().chain(referenced(text, &crate_prefix)) {
            if used == module {
                continue;
            }
            if let Some(theirs) = rank(&used) {
                assert!(
                    theirs < own,
                    "{} uses `{used}`, which is not above `{module}` in {folder}/mod.rs's list: the arrows must point one way",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn the_simulation_is_layered_one_way() {
    check_layers("src/sim");
}

#[test]
fn the_lab_is_layered_one_way() {
    check_layers("src/lab");
}

#[test]
fn the_live_lesson_is_layered_one_way() {
    check_layers("src/live");
}

#[test]
fn the_pages_face_is_layered_one_way() {
    check_layers_of("src/web", 4);
}

#[test]
fn the_ui_is_layered_one_way() {
    check_layers("src/tui");
}

#[test]
fn the_view_is_layered_one_way() {
    check_layers("src/tui/view");
}

#[test]
fn grouped_imports_are_seen() {
    assert_eq!(
        referenced("use super::{keys, theme::{Role, Theme}, app};", "super::"),
        ["keys", "theme", "app"]
    );
    assert_eq!(referenced("use super::world::Setup;", "super::"), ["world"]);
}

#[test]
fn the_pictures_are_layered_one_way() {
    check_layers("src/pictures");
}

#[test]
fn the_diagram_is_layered_one_way() {
    check_layers("src/pictures/svg");
}

fn files(folder: &Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for entry in fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.extend(files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            all.push(path);
        }
    }
    all
}

#[test]
fn the_crate_layers_stack_library_sim_ui_cli() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let above = |layer: &str| -> &'static [&'static str] {
        match layer {
            "library" => &[
                "crate::sim",
                "crate::tui",
                "crate::cli",
                "crate::lab",
                "crate::pictures",
                "crate::live",
                "crate::web",
            ],
            "sim" => &[
                "crate::tui",
                "crate::cli",
                "crate::lab",
                "crate::pictures",
                "crate::live",
                "crate::web",
            ],
            "lab" => &[
                "crate::tui",
                "crate::cli",
                "crate::pictures",
                "crate::live",
                "crate::web",
            ],
            // The live lesson uses the library and the simulation; the UI reads what it does
            // only through the simulation's board.
            "live" => &[
                "crate::tui",
                "crate::cli",
                "crate::pictures",
                "crate::lab",
                "crate::web",
            ],
            "tui" => &["crate::cli", "crate::pictures", "crate::live", "crate::web"],
            "pictures" => &["crate::cli", "crate::web"],
            // The pages' face uses everything that builds for a browser, never the command
            // line or the live lesson (which do not).
            "web" => &["crate::cli", "crate::live"],
            _ => &[],
        }
    };
    for path in files(&src) {
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let layer = match relative.split('/').next().unwrap() {
            "clock.rs" | "lock.rs" | "storage.rs" => "library",
            "sim" => "sim",
            "lab" => "lab",
            "live" => "live",
            "tui" => "tui",
            "pictures" => "pictures",
            "web" => "web",
            "realtime.rs" => "library",
            _ => continue,
        };
        let text = fs::read_to_string(&path).unwrap();
        for forbidden in above(layer) {
            assert!(
                !text.contains(&format!("{forbidden}::"))
                    && !text.contains(&format!("{forbidden};")),
                "src/{relative} ({layer}) reaches up into {forbidden}"
            );
        }
    }
}

#[test]
fn no_file_of_the_project_refers_outside_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for folder in ["src", "tests", "benches", "assets", "docs"] {
        let dir = root.join(folder);
        if !dir.exists() {
            continue;
        }
        let mut stack = vec![dir];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy();
                if path.is_dir() {
                    if name != "target" && name != "node_modules" {
                        stack.push(path);
                    }
                    continue;
                }
                let Ok(text) = fs::read_to_string(&path) else {
                    continue;
                };
                let outside = ["..", "shared"].join("/");
                assert!(
                    !text.contains(&outside),
                    "{} refers to {outside}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    for file in ["README.md", "ARCHITECTURE.md", "Cargo.toml"] {
        if let Ok(text) = fs::read_to_string(root.join(file)) {
            let outside = ["..", "shared"].join("/");
            assert!(!text.contains(&outside), "{file} refers to {outside}");
        }
    }
    assert!(checked > 20);
}

/// ARCHITECTURE.md stays true for the next engineer: every path it names in backquotes
/// (`src/...`, `tests/...`, `benches/...`, `docs/...`, `assets/...`) exists, and every folder of
/// `src/` is named in it.
#[test]
fn architecture_md_names_only_paths_that_exist_and_every_source_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut named = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path = quoted.split_whitespace().next().unwrap_or("");
        let path = path.trim_end_matches([',', '.', ':', ')']);
        let top = ["src/", "tests/", "benches/", "docs/", "assets/"];
        // A placeholder (`assets/scenarios/NAME.toml`) names no file.
        let placeholder = path.split(['/', '.']).any(|part| {
            part.len() > 1 && part.chars().all(|c| c.is_ascii_uppercase()) && part != "README"
        });
        if top.iter().any(|t| path.starts_with(t))
            && !path.contains(['*', '{', '<'])
            && !placeholder
        {
            named.push(path.to_owned());
        }
    }
    assert!(named.len() > 20, "{named:?}");
    for path in &named {
        assert!(
            root.join(path).exists(),
            "ARCHITECTURE.md names `{path}`, which does not exist"
        );
    }
    let mut folders = Vec::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                // A module's unit tests live in a folder of its name: no room of its own.
                let tests_only = fs::read_dir(&path)
                    .unwrap()
                    .all(|e| e.unwrap().file_name() == "tests.rs");
                if !tests_only {
                    folders.push(relative);
                }
            }
        }
    }
    for folder in folders {
        assert!(
            text.contains(&format!("`{folder}/`")) || text.contains(&format!("`{folder}`")),
            "ARCHITECTURE.md does not name the folder `{folder}/`"
        );
    }
}

/// Every test suite is either run on each mutant by `cargo mutants` (.cargo/mutants.toml) or
/// left out here with its reason, so a new suite that judges the lab or the simulation cannot
/// be forgotten (grade once was, and the autograders' mutants read as missed).
#[test]
fn every_suite_is_mutation_tested_or_left_out_with_a_reason() {
    let left_out = [
        (
            "architecture",
            "reads the source files, not their behaviour",
        ),
        (
            "docs",
            "compares the docs with the binary's help and tables",
        ),
        ("hostile", "drives the finished binary with bad input"),
        (
            "leftovers",
            "signals the finished binary and reads /proc for what it left",
        ),
        ("live", "needs a real etcd"),
        (
            "pictures",
            "draws diagrams and pages, outside the mutated code",
        ),
        ("pty", "drives the binary in a pseudo-terminal"),
        ("threads", "runs the UI's terminal loop on threads"),
        ("wide_characters", "measures the screen's columns"),
        (
            "web",
            "drives the built WebAssembly in Chromium, not the mutated build",
        ),
        // A mutant that no faster suite catches would wait minutes for these two: the zoo's
        // programs in four languages, and lessons walked on them. The lab's verdicts are judged
        // on in-process doubles by the unit tests and by tests/lab.rs.
        ("zoo", "runs every zoo program in four languages (minutes)"),
        (
            "impl_views",
            "walks each lesson on student programs (minutes)",
        ),
    ];
    let config = fs::read_to_string(".cargo/mutants.toml").unwrap();
    let tested: Vec<&str> = config
        .split("\"--test\", \"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert!(tested.contains(&"lab"), "no suite parsed: {tested:?}");
    let mut suites: Vec<String> = fs::read_dir("tests")
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    suites.sort();
    for suite in &suites {
        let out = left_out.iter().any(|(name, _)| name == suite);
        let run = tested.contains(&suite.as_str());
        assert!(
            out != run,
            "tests/{suite}.rs is {} in .cargo/mutants.toml",
            if run {
                "both run and left out"
            } else {
                "neither run nor left out"
            }
        );
    }
    for (name, _) in left_out {
        assert!(suites.iter().any(|s| s == name), "no tests/{name}.rs");
    }
}
