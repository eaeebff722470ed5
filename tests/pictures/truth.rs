//! The diagram says what the simulation says, generated over every lesson x check x fencing x
//! system (`--as`) x moment: its lease bars are the lock service's lanes and each client's
//! belief lane (the record the UI's lane is drawn from, and where the UI's lane says holding or
//! stale, the diagram says live or gone); every write's mark is its verdict; every verdict keeps a
//! label in the phrase table's words (or, in a busy window, the legend counts it); each rise of a
//! key's highest and the write a question asks about keep theirs; and under a system with
//! another word for the token, no text of the picture says "token".
//!
//! Everything expected is read from the simulation, never from the drawing code.

use std::collections::BTreeMap;
use std::sync::Arc;

use fencing_lab::pictures::svg::{self, Size, Window};
use fencing_lab::sim::labels;
use fencing_lab::sim::lesson::{belief_lane, Held};
use fencing_lab::sim::systems::{System, SYSTEMS};
use fencing_lab::sim::time::fmt_seconds;
use fencing_lab::sim::{
    ClientId, Event, EventKind, LaneState, Lesson, Ms, RunView, Scenario, Session, Setup, Vocab,
};
use fencing_lab::{FenceCheck, Outcome};
use roxmltree::{Document, Node};

/// A text's words, its lines joined by a space.
pub fn text_of(node: Node) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .map(|n| n.text().unwrap_or_default().trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where `text` says "token" or "tokens" as a word, other than in "no token".
pub fn says_token(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().find_map(|(i, w)| {
        let said = *w == "token" || *w == "tokens";
        (said && (i == 0 || words[i - 1] != "no"))
            .then(|| words[i.saturating_sub(5)..(i + 5).min(words.len())].join(" "))
    })
}

/// A stretch as the SVG writes it.
fn span(a: Ms, b: Ms) -> (String, String) {
    (fmt_seconds(a), fmt_seconds(b))
}

/// The part of `a..b` inside the window, as the diagram clips it.
fn clip(window: Window, a: Ms, b: Ms) -> Option<(Ms, Ms)> {
    let (a, b) = (a.max(window.from), b.min(window.until));
    (a < b).then_some((a, b))
}

type Bar = (String, u64, String, (String, String));

/// The bars the diagram draws, by class: (whose, token, kind, stretch).
fn drawn_bars(doc: &Document) -> Vec<Bar> {
    let mut bars: Vec<Bar> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g"))
        .filter_map(|n| {
            let class = n.attribute("class")?;
            let kind = match class {
                "belief live" => "live",
                "belief stale" => "gone",
                "lease" => "lease",
                _ => return None,
            };
            let who = match n.attribute("data-lock") {
                Some(lock) => format!("{lock}: {}", n.attribute("data-client")?),
                None => n.attribute("data-client")?.to_owned(),
            };
            Some((
                who,
                n.attribute("data-token")?.parse().ok()?,
                kind.to_owned(),
                (
                    n.attribute("data-from")?.to_owned(),
                    n.attribute("data-to")?.to_owned(),
                ),
            ))
        })
        .collect();
    bars.sort();
    bars
}

/// The bars the simulation's lanes call for.
fn lane_bars(session: &Session, window: Window) -> Vec<Bar> {
    let history = session.world().history();
    let now = session.now();
    let mut bars = Vec::new();
    for client in ClientId::ALL {
        let lane = belief_lane(history, client);
        for (k, s) in lane.iter().enumerate() {
            let Some((token, held)) = s.belief else {
                continue;
            };
            let stop = lane.get(k + 1).map_or(now, |n| n.start).min(now);
            if let Some((a, b)) = clip(window, s.start, stop) {
                let kind = if held == Held::Live { "live" } else { "gone" };
                bars.push((client.name().to_owned(), token, kind.into(), span(a, b)));
            }
        }
    }
    for (i, name) in session.scenario().locks.iter().enumerate() {
        let lane = history.lock_lane(i);
        for (k, s) in lane.iter().enumerate() {
            let Some((client, token)) = s.holder else {
                continue;
            };
            let stop = lane.get(k + 1).map_or(now, |n| n.start);
            if let Some((a, b)) = clip(window, s.start, stop) {
                bars.push((
                    format!("{name}: {client}"),
                    token,
                    "lease".into(),
                    span(a, b),
                ));
            }
        }
    }
    bars.sort();
    bars
}

/// Where the UI's lane says a client holds its lease or believes a gone one, the diagram has a
/// live or a striped bar of that token over that moment; and every client bar the diagram draws
/// lies where the UI's lane says holding (a solid bar), stale (a striped one) or frozen.
fn the_uis_lane_agrees(session: &Session, window: Window, bars: &[Bar], what: &str) {
    let history = session.world().history();
    let secs = |s: &str| -> Ms { (s.parse::<f64>().unwrap() * 1000.0).round() as Ms };
    for (who, token, kind, (from, to)) in bars.iter().filter(|b| b.2 != "lease") {
        let client = ClientId::ALL
            .into_iter()
            .find(|c| c.name() == who)
            .expect("a client's bar");
        let lane = history.lane(client.index());
        let (from, to) = (secs(from), secs(to));
        for (k, s) in lane.iter().enumerate() {
            let stop = lane.get(k + 1).map_or(session.now(), |n| n.start);
            if stop <= from || s.start >= to {
                continue;
            }
            let agrees = match s.state {
                LaneState::Holding => kind == "live",
                LaneState::Stale => kind == "gone",
                LaneState::Paused => true,
                _ => false,
            };
            assert!(
                agrees && s.token == Some(*token),
                "{what}: the diagram draws {who} {kind} t{token} from {} s where the UI's lane shows {:?} {:?}",
                fmt_seconds(s.start.max(from)),
                s.state,
                s.token
            );
        }
    }
    for client in ClientId::ALL {
        for s in history.lane(client.index()) {
            let kind = match s.state {
                LaneState::Holding => "live",
                LaneState::Stale => "gone",
                _ => continue,
            };
            if s.start < window.from || s.start >= window.until.min(session.now()) {
                continue;
            }
            let token = s.token.expect("a lane that holds names its token");
            let covered = bars.iter().any(|(who, t, k, (from, to))| {
                let (from, to): (f64, f64) = (from.parse().unwrap(), to.parse().unwrap());
                let at = s.start as f64 / 1000.0;
                who == client.name() && *t == token && k == kind && from <= at && at < to
            });
            assert!(
                covered,
                "{what}: the UI's lane says {client} {kind} t{token} at {} s; the diagram: {bars:?}",
                fmt_seconds(s.start)
            );
        }
    }
}

/// The labels drawn, by role and moment.
type Drawn = BTreeMap<(String, String), Vec<String>>;

/// The verdict labels at each moment, and the legend's counts if it counts.
fn drawn_labels(doc: &Document) -> (Drawn, String) {
    let mut labels: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut legend = String::new();
    for n in doc.descendants() {
        if n.attribute("class") == Some("label") {
            let role = n.attribute("data-role").unwrap_or_default().to_owned();
            let t = n.attribute("data-t").unwrap_or_default().to_owned();
            // A box that stands for several writes alike ("REJECTED log ×2") says each one's
            // words; how many it stands for is checked in tests/pictures.rs.
            let text = text_of(n);
            let text = match text.split_once(" ×") {
                Some((words, rest)) => {
                    let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
                    format!("{words}{digits}")
                }
                None => text,
            };
            labels.entry((role, t)).or_default().push(text);
        }
        if n.attribute("class") == Some("legend") {
            legend.push_str(&text_of(n));
            legend.push('\n');
        }
    }
    (labels, legend)
}

/// Every write's mark is its verdict, and every verdict, rise of a key's highest and asked
/// write keeps its label (a busy window's acceptances: counted by the legend).
fn the_verdicts_agree(
    session: &Session,
    window: Window,
    doc: &Document,
    (drawn, legend): &(Drawn, String),
    vocab: &Vocab,
    what: &str,
) {
    let events: Vec<&Event> = session
        .world()
        .events()
        .iter()
        .filter(|e| e.t >= window.from && e.t <= window.until)
        .collect();
    let mut marks: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| n.attribute("data-event") == Some("write"))
        .map(|n| {
            let t = n.attribute("data-t").unwrap().to_owned();
            (t, n.attribute("data-outcome").unwrap().to_owned())
        })
        .collect();
    let mut verdicts: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| e.kind.verdict().map(|v| (e, v)))
        .map(|(e, v)| {
            let outcome = match v.outcome() {
                Outcome::Accepted => "accepted",
                Outcome::Rejected => "rejected",
                Outcome::Corrupted => "corrupted",
            };
            (fmt_seconds(e.t), outcome.to_owned())
        })
        .collect();
    marks.sort();
    verdicts.sort();
    assert_eq!(marks, verdicts, "{what}: each write's mark is its verdict");

    let counted = legend.contains("accepted: ");
    let said = |role: &str, t: Ms| drawn.get(&(role.to_owned(), fmt_seconds(t)));
    let accepted = verdicts.iter().filter(|v| v.1 == "accepted").count();
    if counted {
        assert!(
            legend.contains(&format!("accepted: {accepted}")),
            "{what}: the legend counts {accepted} acceptances: {legend}"
        );
    }
    let asked = Lesson::of(session).asked_writes(RunView::of(session));
    for (i, e) in events.iter().enumerate() {
        let words = labels(e, vocab);
        let forms = |list: &[String]| -> Vec<String> {
            let mut all = list.to_vec();
            // The longest may take two lines: its words are the same.
            all.extend(list.first().cloned());
            all
        };
        let verdict = match &e.kind {
            EventKind::Write { verdict, .. } => verdict,
            _ => continue,
        };
        let outcome = verdict.outcome();
        let verdict_words = if outcome == Outcome::Corrupted {
            labels(events[i + 1], vocab).verdict
        } else {
            words.verdict.clone()
        };
        let ts = said("verdict", e.t).cloned().unwrap_or_default();
        if outcome != Outcome::Accepted || !counted {
            assert!(
                ts.iter().any(|t| forms(&verdict_words).contains(t)),
                "{what}: the {outcome:?} write at {} s has no label of {verdict_words:?}: {ts:?}",
                fmt_seconds(e.t)
            );
        }
        // A long label keeps the comparison the UI's verdict line states.
        if outcome == Outcome::Rejected && !counted {
            assert!(
                ts.iter()
                    .any(|t| t.contains(&vocab.marks().apply(&verdict.comparison()))),
                "{what}: the REJECTED label at {} s drops its comparison {}: {ts:?}",
                fmt_seconds(e.t),
                verdict.comparison()
            );
        }
        if !words.highest.is_empty() && !counted {
            let hs = said("highest", e.t).cloned().unwrap_or_default();
            assert!(
                hs.iter().any(|t| words.highest.contains(t)),
                "{what}: the rise of the key's highest at {} s is unlabelled: {hs:?}",
                fmt_seconds(e.t)
            );
        }
        if asked.iter().any(|a| std::ptr::eq(*a, *e)) && !counted {
            // A write the network held is labelled where it was sent, by its send.
            let (sent, main) = match &e.kind {
                EventKind::Write {
                    sent_at: Some(sent),
                    ..
                } => {
                    let send = events
                        .iter()
                        .find(|s| s.t == *sent && matches!(s.kind, EventKind::Send { .. }));
                    (
                        *sent,
                        send.map(|s| labels(s, vocab).main).unwrap_or_default(),
                    )
                }
                _ => (e.t, words.main.clone()),
            };
            if sent >= window.from {
                let ws = said("asked", sent).cloned().unwrap_or_default();
                assert!(
                    ws.iter().any(|t| main.contains(t)),
                    "{what}: the asked write at {} s is unlabelled: {ws:?}",
                    fmt_seconds(e.t)
                );
            }
        }
    }
}

/// Each lesson's moments worth a slide: every beat and its end (a chaos run: a few).
/// A band's length ("GC pause 15.0 s", "crashed 4.0 s") is one the run really had, ended by the
/// picture's moment: a slide cut while a pause goes on does not say it ended there.
fn the_lengths_are_true(session: &Session, doc: &Document, what: &str) {
    let mut began: BTreeMap<(ClientId, &str), Ms> = BTreeMap::new();
    let mut lasted: Vec<(&str, String)> = Vec::new();
    for event in session.world().events() {
        let (client, word, starts) = match &event.kind {
            EventKind::Pause { client, .. } => (*client, "GC pause", true),
            EventKind::Resume { client } => (*client, "GC pause", false),
            EventKind::Crash { client, .. } => (*client, "crashed", true),
            EventKind::Restart { client } => (*client, "crashed", false),
            _ => continue,
        };
        if starts {
            began.entry((client, word)).or_insert(event.t);
        } else if let Some(from) = began.remove(&(client, word)) {
            lasted.push((word, format!("{word} {} s", fmt_seconds(event.t - from))));
        }
    }
    for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let text = text_of(node);
        for word in ["GC pause", "crashed"] {
            let Some(rest) = text.strip_prefix(word).and_then(|r| r.strip_suffix(" s")) else {
                continue;
            };
            if rest.trim().parse::<f64>().is_err() {
                continue;
            }
            assert!(
                lasted.iter().any(|(w, said)| *w == word && *said == text),
                "{what}: '{text}' is not the length of a {word} that ended by now ({lasted:?})"
            );
        }
    }
}

/// Every jump of the service's clock in the window keeps its label, and the label goes the
/// jump's way: a step back says "back" (the service refuses it), a jump ahead never does.
fn the_clock_jumps_keep_their_labels(
    session: &Session,
    window: Window,
    labels: &Drawn,
    what: &str,
) {
    let jumps = session
        .world()
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::ClockJump { by, .. } if e.t >= window.from && e.t <= window.until => {
                Some((e.t, by))
            }
            _ => None,
        });
    for (t, by) in jumps {
        let key = ("clock".to_owned(), fmt_seconds(t));
        let said = labels.get(&key).map(|l| l.join(" ")).unwrap_or_default();
        assert!(
            !said.is_empty(),
            "{what}: the clock jump at {t} ms has no label"
        );
        assert_eq!(
            said.contains("back"),
            by < 0,
            "{what}: the clock jump of {by} ms at {t} ms is labelled '{said}'"
        );
    }
}

fn moments(scenario: &Scenario) -> Vec<Ms> {
    if scenario.chaos.is_some() {
        return vec![20_000, 45_000, scenario.end];
    }
    let mut at: Vec<Ms> = scenario.beats.iter().map(|b| b.at).collect();
    // And halfway between beats: slides are cut anywhere, a pause still going on.
    let halves: Vec<Ms> = at.windows(2).map(|w| (w[0] + w[1]) / 2).collect();
    at.extend(halves);
    at.push(scenario.end);
    at.retain(|&t| t > 0);
    at.sort_unstable();
    at.dedup();
    at
}

fn checked(
    scenario: &Scenario,
    fencing: bool,
    check: FenceCheck,
    system: Option<&'static System>,
    t: Ms,
) -> usize {
    let mut setup = Setup::new(Arc::new(scenario.clone()))
        .fencing(fencing)
        .check(check);
    if scenario.chaos.is_some() {
        setup = setup.seed(11);
    }
    if let Some(system) = system {
        setup = setup.as_system(system);
    }
    let session = Session::played_to(setup, t);
    let window = Window::choose(&[&session], None, t);
    let picture = svg::diagram(&session, Size::DEFAULT, window, "");
    let doc = Document::parse(&picture).expect("the SVG parses");
    let what = format!(
        "{} {} check {} --as {} at {} s",
        scenario.name,
        if fencing { "fenced" } else { "unfenced" },
        check.name(),
        system.map_or("-", |s| s.id),
        fmt_seconds(t)
    );
    let bars = drawn_bars(&doc);
    assert_eq!(
        bars,
        lane_bars(&session, window),
        "{what}: the bars are the lanes"
    );
    the_uis_lane_agrees(&session, window, &bars, &what);
    let vocab = Vocab::of(&scenario.locks, system).writing(&scenario.keys());
    let drawn = drawn_labels(&doc);
    the_verdicts_agree(&session, window, &doc, &drawn, &vocab, &what);
    the_lengths_are_true(&session, &doc, &what);
    the_clock_jumps_keep_their_labels(&session, window, &drawn.0, &what);
    if let Some(system) = system.filter(|s| s.word != "token") {
        for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
            let text = text_of(node);
            assert!(
                says_token(&text).is_none(),
                "{what}: '{text}' says token, where {} says {}",
                system.name,
                system.word
            );
        }
    }
    1
}

#[test]
fn the_diagram_draws_the_simulations_lanes_and_verdicts_in_the_systems_words() {
    let variants = [
        (true, FenceCheck::PerKey),
        (true, FenceCheck::Strict),
        (true, FenceCheck::Global),
        (false, FenceCheck::PerKey),
    ];
    let systems: Vec<Option<&'static System>> = std::iter::once(None)
        .chain(SYSTEMS.iter().map(Some))
        .collect();
    let mut pictures = 0;
    for scenario in Scenario::all_built_in() {
        for (fencing, check) in variants {
            for &system in &systems {
                for t in moments(scenario) {
                    pictures += checked(scenario, fencing, check, system, t);
                }
            }
        }
    }
    assert!(pictures > 2_000, "only {pictures} pictures checked");
}
