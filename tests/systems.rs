//! `--as SYSTEM`: the lesson in a real system's words. Generated over every lesson and every
//! moment: no screen or transcript line says "token" where the system has another word, and a
//! system with no token runs unfenced and says the storage has nothing to check.

mod common;

use std::sync::Arc;

use fencing_lab::sim::systems::{find, SYSTEMS};
use fencing_lab::sim::{Scenario, Session, Setup};
use fencing_lab::tui::{self, App, Theme};

/// The line where `text` has "token" or "tokens" as a whole word, in either case, other than in
/// "no token" (how a system with no token says so).
fn says_token(text: &str) -> Option<String> {
    // One stream of words, so a phrase wrapped across lines is still one phrase.
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    for (i, word) in words.iter().enumerate() {
        let said = *word == "token" || *word == "tokens";
        let denied = i > 0 && words[i - 1] == "no";
        if said && !denied {
            let context = words[i.saturating_sub(6)..(i + 6).min(words.len())].join(" ");
            return Some(context);
        }
    }
    None
}

#[test]
fn every_screen_and_transcript_speaks_the_systems_word() {
    for system in SYSTEMS.iter().filter(|s| s.word != "token") {
        let mut said_word = false;
        for scenario in Scenario::all_built_in() {
            let setup = Setup::new(Arc::new(scenario.clone())).as_system(system);
            let full = Session::played_to(setup.clone(), scenario.end);
            let moments = common::event_and_beat_moments(&full);
            let mut app = App::new(Session::new(setup), Theme::plain());
            for (i, t) in moments.into_iter().enumerate() {
                if scenario.chaos.is_some() && i % 5 != 0 {
                    continue;
                }
                app.seek(t);
                for (w, h) in [(80, 24), (120, 40)] {
                    let text = tui::render_text(&app, w, h);
                    if let Some(line) = says_token(&text) {
                        panic!(
                            "--as {} {} at {t} ms, {w}x{h} says token: {line}\n{text}",
                            system.id, scenario.name
                        );
                    }
                    said_word |= text.contains(system.word);
                    // Under a system that numbers every change its next number may go to a
                    // release or a lease's end: the lock panel says where the store stands,
                    // never a "next" number a class would read as the next grant's.
                    if system.numbering.is_some() {
                        let next = format!("next {} ", system.word);
                        assert!(
                            !text
                                .lines()
                                .any(|l| l.starts_with('│') && l.contains(&next)),
                            "--as {} {} at {t} ms says '{next}':\n{text}",
                            system.id,
                            scenario.name
                        );
                    }
                    assert!(
                        text.lines().next().unwrap().contains(system.name),
                        "the header names {}:\n{text}",
                        system.name
                    );
                }
            }
            let mut out = Vec::new();
            fencing_lab::cli::report::transcript(&mut out, &full).unwrap();
            let transcript = String::from_utf8(out).unwrap();
            if let Some(line) = says_token(&transcript) {
                panic!(
                    "--as {} {}: the transcript says token: {line}",
                    system.id, scenario.name
                );
            }
        }
        assert!(said_word, "--as {} never says {}", system.id, system.word);
        // The first caption says where the system's token comes from.
        let scenario = Scenario::built_in("gc-pause").unwrap();
        let session = Session::new(Setup::new(Arc::new(scenario)).as_system(system));
        let first = fencing_lab::sim::Lesson::of(&session)
            .caption(fencing_lab::sim::RunView::of(&session), 0)
            .text;
        assert!(first.contains(system.api) || !system.has_token, "{first}");
    }
}

#[test]
fn a_system_with_no_token_runs_unfenced_and_says_there_is_nothing_to_check() {
    for id in ["redlock", "kubernetes"] {
        let system = find(id).unwrap();
        assert!(!system.has_token);
        let scenario = Scenario::built_in("gc-pause").unwrap();
        let setup = Setup::new(Arc::new(scenario.clone())).as_system(system);
        assert!(!setup.fencing, "{id}: nothing to check means no check");
        let session = Session::played_to(setup, scenario.end);
        assert_eq!(
            session.world().stats().corruptions,
            1,
            "{id}: the late write lands"
        );
        // Every write says the storage had nothing to compare; the corrupting one says what that
        // let happen, and only it.
        let mut transcript = Vec::new();
        fencing_lab::cli::report::transcript(&mut transcript, &session).unwrap();
        let transcript = String::from_utf8(transcript).unwrap();
        let nothing = format!(
            "no check: {} gives the storage no number to compare",
            system.name
        );
        let writes: Vec<&str> = transcript
            .lines()
            .filter(|l| l.trim_start().starts_with("client-") && l.contains(" writes "))
            .collect();
        assert!(
            writes.len() >= 3 && writes.iter().all(|l| l.contains(&nothing)),
            "{transcript}"
        );
        let landed = "so it let an old lease's write land on data written under a later one";
        for line in writes {
            assert_eq!(
                line.contains(landed),
                line.contains("CORRUPTED DATA!"),
                "{line}"
            );
        }
        assert!(transcript.contains(landed), "{transcript}");
        let mut app = App::new(session, Theme::plain());
        app.seek(16_500);
        let header = tui::render_text(&app, 80, 24)
            .lines()
            .next()
            .unwrap()
            .to_owned();
        assert!(
            header.contains(&format!("{}: no token to check", system.name)),
            "{header}"
        );
        assert!(header.contains("FENCING OFF"), "{header}");
    }
}

#[test]
fn every_system_the_help_and_the_table_name_can_be_taken_by_as() {
    for system in SYSTEMS {
        assert_eq!(find(system.id).map(|s| s.name), Some(system.name));
        assert_eq!(system.id, system.id.to_lowercase());
        assert!(!system.id.contains(' '));
    }
    assert!(find("zookeeper").is_some() && find("nosuch").is_none());
}

#[test]
fn the_vocabulary_replaces_whole_words_only() {
    let vocab = fencing_lab::sim::Vocab::of(&["file-lock".into()], find("etcd"));
    assert_eq!(
        vocab.say("Token 1, fencing token 2, tokens, tokenize, retoken, highest(key)"),
        "Revision 1, revision 2, revisions, tokenize, retoken, highest(key)"
    );
    let plain = fencing_lab::sim::Vocab::plain(&["file-lock".into()]);
    assert_eq!(plain.say("fencing token 1"), "fencing token 1");
}

/// Where `text` says one number is above another, or that numbers rise.
fn claims_order(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    [
        "higher",
        "highest",
        "lower",
        " < ",
        " > ",
        ">=",
        "only go up",
        "rises",
    ]
    .into_iter()
    .find(|claim| lower.contains(claim))
}

#[test]
fn a_system_with_no_token_is_never_said_to_hand_out_a_rising_number() {
    // Every caption at every moment of every lesson, and every transcript line: a system with
    // no token has no number for the storage to compare, nor one that only goes up.
    for system in SYSTEMS.iter().filter(|s| !s.has_token) {
        for scenario in Scenario::all_built_in() {
            let setup = Setup::new(Arc::new(scenario.clone())).as_system(system);
            let session = Session::played_to(setup, scenario.end);
            let lesson = fencing_lab::sim::Lesson::of(&session);
            for t in common::event_and_beat_moments(&session) {
                let caption = lesson.caption(fencing_lab::sim::RunView::of(&session), t);
                if let Some(claim) = claims_order(&caption.text) {
                    panic!(
                        "--as {} {} at {t} ms: the caption says {claim:?}: {}",
                        system.id, scenario.name, caption.text
                    );
                }
            }
            let mut out = Vec::new();
            fencing_lab::cli::report::transcript(&mut out, &session).unwrap();
            for line in String::from_utf8(out).unwrap().lines() {
                if let Some(claim) = claims_order(line) {
                    panic!(
                        "--as {} {}: the transcript says {claim:?}: {line}",
                        system.id, scenario.name
                    );
                }
            }
        }
    }
}

/// Every number `text` gives after `word` ("revision 4"), and every inequality ("2 < 4").
fn numbers_after(text: &str, word: &str) -> Vec<u64> {
    let lower = text.to_lowercase();
    lower
        .match_indices(&format!("{word} "))
        .filter_map(|(i, m)| {
            let rest = &lower[i + m.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

#[test]
fn a_system_that_numbers_every_change_jumps_and_every_caption_and_question_says_its_numbers() {
    use fencing_lab::sim::{EventKind, Lesson, RunView};
    use fencing_lab::FenceCheck;
    let settings = [
        (true, FenceCheck::PerKey),
        (true, FenceCheck::Strict),
        (true, FenceCheck::Global),
        (false, FenceCheck::PerKey),
    ];
    for system in SYSTEMS.iter().filter(|s| s.numbering.is_some()) {
        let mut jumped = false;
        let scripted = Scenario::all_built_in()
            .iter()
            .filter(|s| s.chaos.is_none());
        for scenario in scripted {
            for (fencing, check) in settings {
                let setup = Setup::new(Arc::new(scenario.clone()))
                    .as_system(system)
                    .fencing(fencing)
                    .check(check);
                let session = Session::played_to(setup, scenario.end);
                let grants: Vec<u64> = session
                    .world()
                    .events()
                    .iter()
                    .filter_map(|e| match e.kind {
                        EventKind::Grant { token, .. } => Some(token),
                        _ => None,
                    })
                    .collect();
                jumped |= grants.windows(2).any(|w| w[1] > w[0] + 1);
                assert!(
                    grants.windows(2).all(|w| w[1] > w[0]),
                    "{} {}: grants only go up: {grants:?}",
                    system.id,
                    scenario.name
                );
                let lesson = Lesson::of(&session);
                for t in common::event_and_beat_moments(&session) {
                    let text = lesson.caption(RunView::of(&session), t).text;
                    for n in numbers_after(&text, system.word) {
                        assert!(
                            grants.contains(&n),
                            "--as {} {} fencing={fencing} {} at {t} ms: the caption names {} \
                             {n}, which no grant carried ({grants:?}): {text}",
                            system.id,
                            scenario.name,
                            check.name(),
                            system.word
                        );
                    }
                }
                // A question asks about the write the caption will judge: in the same numbers.
                let asking = scenario
                    .beats
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.ask.is_some());
                for (beat, _) in asking {
                    let text = lesson.question(beat).text;
                    for n in numbers_after(&text, system.word) {
                        assert!(
                            grants.contains(&n),
                            "--as {} {} fencing={fencing} {}: beat {beat}'s question names {} \
                             {n}, which no grant carried ({grants:?}): {text}",
                            system.id,
                            scenario.name,
                            check.name(),
                            system.word
                        );
                    }
                }
            }
        }
        assert!(jumped, "--as {}: no two grants ever jumped", system.id);
    }
}

/// The page and the diagram of a run under a system with no token: one unfenced run, no fencing
/// switch, no fenced half beside it, and no word of theirs says its numbers are ordered.
#[test]
fn a_system_with_no_token_has_no_fenced_run_in_the_page_or_the_diagram() {
    use fencing_lab::pictures::{html, svg};
    for system in SYSTEMS.iter().filter(|s| !s.has_token) {
        for scenario in Scenario::all_built_in() {
            let mut setup = Setup::new(Arc::new(scenario.clone())).as_system(system);
            if scenario.chaos.is_some() {
                setup = setup.seed(11);
            }
            let until = scenario.end.min(40_000);
            let what = format!("--as {} {}", system.id, scenario.name);
            let page = html::page(&setup, until);
            let body = &page[page.find("<body").unwrap()..page.find("<script>").unwrap()];
            assert!(!body.contains("id=\"fencing\""), "{what}: a fencing switch");
            assert!(!body.contains("id=\"run-on\""), "{what}: a fenced run");
            let text = common::html_text(body);
            assert!(
                text.contains(&format!(
                    "As {}: no token, so the storage checks nothing",
                    system.name
                )),
                "{what}: the run's heading"
            );
            for line in text.lines() {
                if let Some(claim) = claims_order(line) {
                    panic!("{what}: the page says {claim:?}: {line}");
                }
                assert!(!line.contains("Fencing ON"), "{what}: {line}");
            }
            let session = Session::played_to(setup, until);
            let window = svg::Window::choose(&[&session], None, until);
            let picture = svg::diagram(&session, svg::Size::DEFAULT, window, "");
            for text in picture.split("<text").skip(1) {
                let text = common::html_text(&format!("<text{text}"));
                let text = text.split("</text>").next().unwrap_or_default();
                if let Some(claim) = claims_order(text) {
                    panic!("{what}: the diagram says {claim:?}: {text}");
                }
                // No short number that reads as a token ("c1 t3", "t3?").
                for word in text.split_whitespace() {
                    let core = word.trim_end_matches([',', ':', '?']);
                    let short_token = core
                        .strip_prefix('t')
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
                    assert!(!short_token, "{what}: the diagram says {word}: {text}");
                }
            }
        }
    }
}
