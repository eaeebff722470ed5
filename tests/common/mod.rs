//! Helpers the integration tests share: playing a built-in scenario and reading its events.
#![allow(dead_code)]

use std::sync::Arc;

use fencing_lab::sim::{ClientId, Event, EventKind, Ms, Scenario, Session, Setup};
use fencing_lab::FenceCheck;

/// The setup of built-in scenario `name` with these settings.
pub fn setup(name: &str, fencing: bool, check: FenceCheck) -> Setup {
    let scenario = Arc::new(Scenario::built_in(name).expect("built-in"));
    Setup::new(scenario).fencing(fencing).check(check)
}

/// Built-in scenario `name` played to its end.
pub fn play_with(name: &str, fencing: bool, check: FenceCheck) -> Session {
    let setup = setup(name, fencing, check);
    let end = setup.scenario.end;
    Session::played_to(setup, end)
}

pub fn play(name: &str, fencing: bool) -> Session {
    play_with(name, fencing, FenceCheck::PerKey)
}

pub fn c(n: u64) -> ClientId {
    ClientId::from_number(n).unwrap()
}

pub fn at(session: &Session, t: Ms) -> Vec<&EventKind> {
    session
        .world()
        .events()
        .iter()
        .filter(|e| e.t == t)
        .map(|e| &e.kind)
        .collect()
}

pub fn grants(session: &Session) -> Vec<(Ms, ClientId, u64)> {
    session
        .world()
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Grant { client, token, .. } => Some((e.t, client, token)),
            _ => None,
        })
        .collect()
}

/// The write at `t`: (accepted, the key's highest before, token).
pub fn write_at(session: &Session, t: Ms) -> (bool, Option<u64>, u64) {
    at(session, t)
        .into_iter()
        .find_map(|k| match k {
            EventKind::Write { verdict, .. } => {
                Some((verdict.accepted, verdict.key_highest, verdict.token))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no write at {t} ms"))
}

/// The corruption at `t`: (token, the key's highest it was older than).
pub fn corruption_at(session: &Session, t: Ms) -> Option<(u64, u64)> {
    at(session, t).into_iter().find_map(|k| match k {
        EventKind::Corruption { token, highest, .. } => Some((*token, *highest)),
        _ => None,
    })
}

pub fn refusal_reason(session: &Session, t: Ms) -> &'static str {
    at(session, t)
        .into_iter()
        .find_map(|k| match k {
            EventKind::RenewRefused { reason, .. } | EventKind::ReleaseRefused { reason, .. } => {
                Some(reason.code())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no refusal at {t} ms"))
}

pub fn events(session: &Session) -> Vec<Event> {
    session.world().events().to_vec()
}

/// How many lines `text` takes when word-wrapped at `width` columns.
pub fn wrapped_lines(text: &str, width: usize) -> usize {
    let mut lines = 1;
    let mut used = 0;
    for word in text.split_whitespace() {
        let w = word.chars().count();
        if used == 0 {
            used = w;
        } else if used + 1 + w <= width {
            used += 1 + w;
        } else {
            lines += 1;
            used = w;
        }
    }
    lines
}

/// The moments of a played run worth drawing: every event's and every beat's, in time order.
pub fn event_and_beat_moments(played: &Session) -> Vec<Ms> {
    let mut moments: std::collections::BTreeSet<Ms> =
        played.world().events().iter().map(|e| e.t).collect();
    moments.extend(played.scenario().beats.iter().map(|b| b.at));
    moments.into_iter().collect()
}

/// The zoo of student solutions, for the lab's suites.
pub mod zoo;

/// The text of a piece of HTML: tags dropped, the entities the pages write turned back.
pub fn html_text(text: &str) -> String {
    let mut plain = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => plain.push(c),
            _ => {}
        }
    }
    plain
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The rows of the box whose top border carries `title`, inside its borders (trailing spaces
/// trimmed), and the top border line itself. A box's top may join the one above (`├ Events ┤`),
/// and a box ends at its bottom line or where the next box joins it.
pub fn boxed(lines: &[&str], title: &str) -> Option<(String, Vec<String>)> {
    let tops = [format!("┌ {title}"), format!("├ {title}")];
    let top = lines
        .iter()
        .position(|l| tops.iter().any(|t| l.contains(t.as_str())))?;
    let start = tops
        .iter()
        .find_map(|t| lines[top].find(t.as_str()))
        .unwrap();
    let start_col = lines[top][..start].chars().count();
    let width = lines[top][start..]
        .chars()
        .skip(1)
        .take_while(|&c| c != '┐' && c != '┤')
        .count()
        + 2;
    let mut rows = Vec::new();
    for line in &lines[top + 1..] {
        let cells: Vec<char> = line.chars().skip(start_col).take(width).collect();
        if matches!(cells.first(), Some('└' | '├')) {
            break;
        }
        let inner: String = cells[1..cells.len().saturating_sub(1)].iter().collect();
        rows.push(inner.trim_end().to_owned());
    }
    Some((lines[top].to_owned(), rows))
}
