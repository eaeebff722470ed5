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
    let (_, labels) = pages.last().unwrap();
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
