//! The minimal slide (`--minimal`), close to Kleppmann's figure, over every lesson with a
//! question × fencing × check × system, alone and compared: it ends at the verdict on the asked
//! write (nothing after it drawn, so no redo), it draws exactly the clients in the story by then
//! (granted, renewed or writing, worked out here from the JSON events), and its subtitle names
//! every client with events it leaves out and how many. And the lanes asked for (`--actors`)
//! refuse to hide a write the storage took.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{lab, texts, usage_error};

const CLIENTS: [&str; 3] = ["client-1", "client-2", "client-3"];

/// The JSON events of a run with `settings`, played to its end.
fn events(scenario: &str, settings: &[&str]) -> Vec<Value> {
    let mut args = vec!["run", scenario, "--format", "json"];
    args.extend_from_slice(settings);
    lab(&args)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|e: &Value| e["event"] != "summary")
        .collect()
}

/// When the storage judged the first asked write: the first write of the asking beat's client
/// sent at or after the beat.
fn asked_verdict(scenario: &fencing_lab::sim::Scenario, events: &[Value]) -> Option<f64> {
    scenario
        .beats
        .iter()
        .filter(|beat| beat.ask.is_some())
        .filter_map(|beat| {
            let client = beat.client()?.name();
            let at = beat.at as f64 / 1000.0;
            events
                .iter()
                .filter(|e| e["event"] == "write" && e["client"] == client)
                .find(|e| e["sent_at"].as_f64().unwrap_or(e["t"].as_f64().unwrap()) >= at)
                .map(|e| e["t"].as_f64().unwrap())
        })
        .reduce(f64::min)
}

/// The clients in the story by `until`: granted, renewed or writing.
fn story(events: &[Value], until: f64) -> BTreeSet<String> {
    events
        .iter()
        .filter(|e| e["t"].as_f64().unwrap() <= until)
        .filter(|e| ["grant", "renew", "send", "write"].contains(&e["event"].as_str().unwrap()))
        .map(|e| e["client"].as_str().unwrap().to_owned())
        .collect()
}

/// The subtitle, on one line or two: the texts after the title at its size and place.
pub(super) fn subtitle(doc: &roxmltree::Document) -> String {
    let texts: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .collect();
    let first = texts[1];
    fn line(n: roxmltree::Node) -> [Option<String>; 3] {
        ["x", "font-size", "fill"].map(|a| n.attribute(a).map(str::to_owned))
    }
    texts[1..]
        .iter()
        .take(2)
        .filter(|n| line(**n) == line(first))
        .map(|n| super::truth::text_of(*n))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_minimal_slide_ends_at_the_asked_verdict_with_the_clients_of_the_story_and_says_what_it_leaves_out(
) {
    let mut slides = 0;
    let mut left_out = 0;
    for scenario in fencing_lab::sim::Scenario::all_built_in() {
        if scenario.chaos.is_some() {
            let err = usage_error(&["run", &scenario.name, "--format", "svg", "--minimal"]);
            assert!(err.contains("--until and --actors"), "{err}");
            continue;
        }
        for mode in ["fenced", "unfenced", "compared"] {
            for check in ["per-key", "strict", "global", "none"] {
                for system in std::iter::once("").chain(fencing_lab::sim::systems::ids()) {
                    {
                        let compare = mode == "compared";
                        let mut settings = vec!["--check", check];
                        if compare
                            && fencing_lab::sim::systems::find(system).is_some_and(|s| !s.has_token)
                        {
                            continue;
                        }
                        if !system.is_empty() {
                            settings.extend(["--as", system]);
                        }
                        if compare {
                            settings.push("--compare");
                        } else if mode == "unfenced" {
                            settings.push("--no-fencing");
                        }
                        let runs: Vec<Vec<Value>> = if compare {
                            let mut unfenced = settings.clone();
                            unfenced.retain(|s| *s != "--compare");
                            let fenced = unfenced.clone();
                            unfenced.push("--no-fencing");
                            vec![
                                events(&scenario.name, &fenced),
                                events(&scenario.name, &unfenced),
                            ]
                        } else {
                            vec![events(&scenario.name, &settings)]
                        };
                        let Some(verdict) = runs
                            .iter()
                            .filter_map(|run| asked_verdict(scenario, run))
                            .reduce(f64::max)
                        else {
                            continue;
                        };
                        let what = format!("{} {settings:?}", scenario.name);
                        let mut args = vec!["run", &scenario.name, "--format", "svg", "--minimal"];
                        args.extend_from_slice(&settings);
                        let svg = lab(&args);
                        let doc = roxmltree::Document::parse(&svg).unwrap();
                        let words = texts(&doc);
                        slides += 1;

                        // Nothing after the verdict: every event's title is at or before it.
                        let mut judged = false;
                        for title in doc.descendants().filter(|n| n.has_tag_name("title")) {
                            let text = title.text().unwrap_or_default();
                            let Some((t, _)) = text.split_once(" s: ") else {
                                continue;
                            };
                            let Ok(t) = t.parse::<f64>() else { continue };
                            assert!(
                                t <= verdict + 1e-9,
                                "{what}: '{text}' is after the verdict at {verdict}"
                            );
                            judged |= t == verdict && text.contains(" writes ");
                        }
                        assert!(judged, "{what}: no write judged at {verdict} s is drawn");

                        // The axis: to a whole second at least one past the verdict, and
                        // no more than two (the verdict's box needs room, the slide no more).
                        let axis_end = words
                            .iter()
                            .filter_map(|w| w.parse::<u32>().ok())
                            .max()
                            .map(f64::from);
                        assert!(
                            axis_end.is_some_and(
                                |end| end >= verdict + 1.0 && end <= verdict + 2.0 + 1e-9
                            ),
                            "{what}: the axis ends at {axis_end:?} s, for a verdict at {verdict} s"
                        );

                        // The lanes: the clients of the story, no other.
                        let in_story: BTreeSet<String> =
                            runs.iter().flat_map(|run| story(run, verdict)).collect();
                        let lanes: BTreeSet<String> = words
                            .iter()
                            .filter(|w| CLIENTS.contains(&w.as_str()))
                            .cloned()
                            .collect();
                        assert_eq!(
                            lanes, in_story,
                            "{what}: the lanes are not the story's clients"
                        );

                        // The subtitle: how far, and every client with events it leaves out.
                        let subtitle = &subtitle(&doc);
                        assert!(
                            subtitle.contains(&format!("verdict at {verdict:.1} s (--minimal)")),
                            "{what}: {subtitle}"
                        );
                        for client in CLIENTS.iter().filter(|c| !in_story.contains(**c)) {
                            let n = runs
                                .iter()
                                .map(|run| {
                                    run.iter()
                                        .filter(|e| e["client"] == *client)
                                        .filter(|e| e["t"].as_f64().unwrap() <= verdict)
                                        .count()
                                })
                                .find(|&n| n > 0);
                            match n {
                                Some(n) => {
                                    left_out += 1;
                                    let said = format!(
                                        "{client} ({n} event{})",
                                        if n == 1 { "" } else { "s" }
                                    );
                                    assert!(
                                        subtitle.contains(&said),
                                        "{what}: '{said}' not in {subtitle}"
                                    );
                                }
                                None => assert!(!subtitle.contains(client), "{what}: {subtitle}"),
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(slides > 500, "only {slides} minimal slides were drawn");
    assert!(
        left_out > 100,
        "only {left_out} left-out clients were named"
    );
}

#[test]
fn lanes_asked_for_hide_a_bystander_but_never_a_write_the_storage_took() {
    let svg = lab(&["run", "gc-pause", "--format", "svg", "--actors", "1,2"]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let words = texts(&doc);
    assert!(
        words[1].ends_with("Not drawn: client-3 (1 event)"),
        "{}",
        words[1]
    );
    assert!(
        !words.iter().any(|w| w == "client-3"),
        "client-3 has a lane"
    );
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        !titles.iter().any(|t| t.starts_with("4.0 s: client-3")),
        "client-3's refused ask is drawn"
    );
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("20.0 s: client-1 writes")),
        "the redo is drawn"
    );

    let err = usage_error(&["run", "gc-pause", "--format", "svg", "--actors", "1,3"]);
    assert!(err.contains("client-2") && err.contains("12.0 s"), "{err}");
    let err = usage_error(&[
        "run",
        "gc-pause",
        "--format",
        "svg",
        "--actors",
        "1,\u{1b}[2J",
    ]);
    assert!(!err.contains('\u{1b}'), "{err}");
    let err = usage_error(&["run", "gc-pause", "--actors", "1,2"]);
    assert!(err.contains("--actors is for --format svg"), "{err}");
    let err = usage_error(&[
        "run",
        "gc-pause",
        "--format",
        "svg",
        "--minimal",
        "--until",
        "9",
    ]);
    assert!(
        err.contains("--minimal") && err.contains("--until"),
        "{err}"
    );
}
