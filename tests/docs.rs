//! docs/keys.md is a contract: its tables must be the UI's own key tables, legend and panel
//! labels, row for row, so the page a student reads cannot drift from the screen.

use fencing_lab::tui::{self, Mode};

fn keys_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md")).unwrap()
}

/// The rows of the first table after the first line for which `starts` holds.
fn table_after(text: &str, starts: impl Fn(&str) -> bool, header: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| !starts(l));
    assert!(
        lines.next().is_some(),
        "docs/keys.md has no section for {header}"
    );
    let mut lines = lines.skip_while(|l| *l != header);
    assert_eq!(lines.next(), Some(header), "no table {header}");
    assert!(lines.next().is_some_and(|l| l.starts_with("|---")));
    lines
        .take_while(|l| l.starts_with("| "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_modes_key_table_is_documented_row_for_row() {
    let text = keys_md();
    for (mode, table) in [
        (Mode::Main, "`MAIN`"),
        (Mode::Question, "`QUESTION`"),
        (Mode::Help, "`HELP`"),
        (Mode::Picker, "`PICKER`"),
    ] {
        let documented = table_after(
            &text,
            |l| l.starts_with("## ") && l.contains(table),
            "| keys | what it does |",
        );
        let shown: Vec<String> = tui::help_rows(mode)
            .into_iter()
            .map(|(keys, label)| format!("| {keys} | {label} |"))
            .collect();
        assert_eq!(documented, shown, "docs/keys.md's {table} table");
    }
}

#[test]
fn every_mark_and_label_is_documented_as_the_help_explains_it() {
    let text = keys_md();
    let marks = table_after(
        &text,
        |l| l == "## Marks on the timeline",
        "| glyph | legend word | meaning |",
    );
    let legend: Vec<String> = tui::LEGEND
        .iter()
        .map(|(glyph, word, meaning)| format!("| `{glyph}` | {word} | {meaning} |"))
        .collect();
    assert_eq!(marks, legend, "docs/keys.md's marks table");

    let panels = table_after(
        &text,
        |l| l == "## Labels and panels",
        "| on screen | meaning |",
    );
    let pages = tui::help_pages(Mode::Main);
    let (_, labels) = &pages[2];
    let labels: Vec<String> = labels
        .iter()
        .map(|(key, meaning)| {
            let key = key
                .split(", ")
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            format!("| {key} | {meaning} |")
        })
        .collect();
    assert_eq!(panels, labels, "docs/keys.md's labels table");
}

#[test]
fn the_docs_name_as_many_help_pages_as_there_are() {
    let words = ["zero", "one", "two", "three", "four", "five"];
    let count = tui::help_pages(Mode::Main).len();
    assert!(
        keys_md().contains(&format!("The help has {} pages", words[count])),
        "docs/keys.md miscounts the help's pages"
    );
}

/// docs/cli.md's usage blocks are the binary's own `-h` output, and every command has one.
#[test]
fn every_commands_usage_in_docs_cli_is_its_help() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let mut documented = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("```text\nUsage: fencing-lab ") {
        rest = &rest[i + "```text\n".len()..];
        let block = &rest[..rest.find("```").unwrap()];
        let command: Vec<&str> = block
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .skip(2)
            .take_while(|w| !w.starts_with(['[', '<', '-']))
            .collect();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
            .args(&command)
            .arg("-h")
            .output()
            .unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let usage = &help[help.find("Usage:").unwrap()..];
        assert_eq!(
            block.trim_end(),
            usage.trim_end(),
            "docs/cli.md's usage of `fencing-lab {}`",
            command.join(" ")
        );
        documented.push(command.join(" "));
    }
    // Every command the binary has (a subcommand's subcommands by their full name), so a new
    // one cannot go undocumented.
    use clap::CommandFactory;
    let mut commands = Vec::new();
    // A hidden command (`live-client`, which `live` starts itself) is no one's to type.
    for command in fencing_lab::cli::args::Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
    {
        let name = command.get_name().to_owned();
        match command.get_subcommands().next() {
            None => commands.push(name),
            Some(_) => commands.extend(
                command
                    .get_subcommands()
                    .map(|inner| format!("{name} {}", inner.get_name())),
            ),
        }
    }
    assert!(commands.len() >= 10, "{commands:?}");
    for command in commands {
        assert!(
            documented.contains(&command),
            "docs/cli.md has no usage block for `{command}`"
        );
    }
}

/// The README's table of real systems is the one `fencing-lab systems` and the help read.
#[test]
fn the_readme_lists_every_real_system_as_the_tool_does() {
    use fencing_lab::sim::systems::SYSTEMS;
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let rows = table_after(
        &readme,
        |l| l == "## Real systems",
        "| system | the fencing token | what the storage must check | source |",
    );
    let expected: Vec<String> = SYSTEMS
        .iter()
        .map(|s| format!("| {} | {} | {} | {} |", s.name, s.token, s.check, s.source))
        .collect();
    assert_eq!(rows, expected);
    // The command prints every system with each of its lines, a source among them.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .arg("systems")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for system in SYSTEMS {
        for field in [
            system.token,
            system.api,
            system.check,
            system.says,
            system.source,
        ] {
            let field = field.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(flat.contains(&field), "systems lacks {field:?}");
        }
        assert!(!system.source.is_empty(), "{} has no source", system.name);
    }
    assert!(
        text.lines().all(|l| l.chars().count() <= 80),
        "fits 80 columns"
    );
}

/// docs/lab-rules.md lists every rule `check` judges, in the order it runs them, in the words it
/// prints.
#[test]
fn the_lab_rules_page_lists_every_rule_in_check_s_words() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/lab-rules.md")).unwrap();
    let listed: Vec<(String, String)> = page
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| {
            let (id, rest) = l.split_once("` | ")?;
            Some((id.to_owned(), rest.strip_suffix(" |")?.to_owned()))
        })
        .filter(|(id, _)| fencing_lab::lab::Rule::from_id(id).is_some())
        .collect();
    let rules: Vec<(String, String)> = fencing_lab::lab::Rule::ALL
        .iter()
        .map(|r| (r.id().to_owned(), r.words().to_owned()))
        .collect();
    assert_eq!(listed, rules);
}

/// The command tables of docs/cli.md and the README name every command the binary has, so a
/// new one cannot be left out of either (`help` aside in the README).
#[test]
fn the_command_tables_name_every_command() {
    use clap::CommandFactory;
    let read = |file: &str| {
        std::fs::read_to_string(format!("{}/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let (cli_md, readme) = (read("docs/cli.md"), read("README.md"));
    // A hidden command (live's client processes) is the tool's own, not the user's.
    let commands = fencing_lab::cli::args::Cli::command();
    for command in commands.get_subcommands().filter(|c| !c.is_hide_set()) {
        let name = command.get_name();
        assert!(
            cli_md.contains(&format!("\n| `{name}")),
            "docs/cli.md's table has no row for `{name}`"
        );
        if name != "help" {
            assert!(
                readme.contains(&format!("\n| `fencing-lab {name}")),
                "the README's table has no row for `{name}`"
            );
        }
    }
}

/// The README's list of lessons is what `fencing-lab list` prints, every built-in lesson in its
/// order.
#[test]
fn the_readme_lists_the_lessons_as_list_prints_them() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let after = &readme[readme.find("`fencing-lab list`:\n\n```text\n").unwrap()..];
    let block = &after[after.find("```text\n").unwrap() + "```text\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(block, String::from_utf8(out.stdout).unwrap());
    for name in fencing_lab::sim::Scenario::built_in_names() {
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "the README's lesson table has no row for `{name}`"
        );
    }
}
