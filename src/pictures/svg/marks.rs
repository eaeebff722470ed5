//! Each event as its arrow or mark, in a group titled with its own sentence (`data-event` and
//! `data-t` say which), its words from the one phrase table ([`labels`]) queued for the placer,
//! and every line and mark it draws made an obstacle for the labels.
//!
//! Every verdict keeps its label, and so does each rise of a key's highest and the write a
//! question asks about; in a busy window (a chaos run) the acceptances are counted by the legend
//! instead, and a client's refused asks become ticks under one label ("client-3 asked 12 times:
//! refused").

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{Anchor, Rect, Seg};
use super::legend::Legend;
use super::palette::{CRASH, FAINT, GC, INK, MUTED, WRITE};
use super::panel::Panel;
use super::placer::{Need, Tone, ARROW_ROOM};
use super::spots;
use super::verdicts::{outcome_name, two_lines};
use crate::pictures::xml::escape;
use crate::sim::phrase::{labels, Labels};
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, Event, EventKind, Ms, Vocab};

/// What a panel's events are drawn with: the words of the system in force, and the writes the
/// lesson's questions ask about.
pub(super) struct Context<'a> {
    pub(super) vocab: &'a Vocab,
    pub(super) asked: Vec<&'a Event>,
}

/// A run of one client's refused asks with nothing else of its between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Crowd {
    pub(super) client: ClientId,
    pub(super) first: Ms,
    pub(super) last: Ms,
    pub(super) count: usize,
}

/// The crowds of refused asks among `events`, each client's in order.
pub(super) fn crowds(events: &[Event]) -> Vec<Crowd> {
    let mut open: [Option<Crowd>; 3] = [None; 3];
    let mut out = Vec::new();
    for event in events {
        let Some(client) = event.kind.client() else {
            continue;
        };
        let slot = &mut open[client.index()];
        match (&event.kind, slot.as_mut()) {
            (EventKind::AcquireRefused { .. }, Some(crowd)) => {
                crowd.last = event.t;
                crowd.count += 1;
            }
            (EventKind::AcquireRefused { .. }, None) => {
                *slot = Some(Crowd {
                    client,
                    first: event.t,
                    last: event.t,
                    count: 1,
                });
            }
            _ => out.extend(slot.take()),
        }
    }
    out.extend(open.into_iter().flatten());
    out
}

impl Svg {
    /// One event: its arrow or mark, in a group titled with its own sentence.
    pub(super) fn event(&mut self, p: &Panel, event: &Event, cx: &Context, legend: &mut Legend) {
        let x = p.x(event.t);
        let name = event.kind.name();
        // A write says its verdict, for a reader of the SVG (and the tests).
        let outcome = match event.kind.verdict().map(|v| v.outcome()) {
            Some(outcome) => format!(
                r#" data-outcome="{}"{}"#,
                outcome_name(outcome),
                if event.kind.honest_refusal() {
                    r#" data-honest="true""#
                } else {
                    ""
                }
            ),
            None => String::new(),
        };
        let _ = write!(
            self.out,
            r#"<g class="event {name}" data-event="{name}" data-t="{}"{outcome}><title>{} s: {}</title>"#,
            fmt_seconds(event.t),
            fmt_seconds(event.t),
            escape(&event.describe(cx.vocab))
        );
        let crowded = p.busy && matches!(event.kind, EventKind::AcquireRefused { .. });
        if crowded || (p.compact && self.tick_only(p, event, x)) {
            if crowded {
                legend.retried.see(event.t);
                self.refused_tick(p, event, x);
            }
            self.out.push_str("</g>");
            return;
        }
        let words = labels(event, cx.vocab);
        match &event.kind {
            EventKind::Grant { .. }
            | EventKind::AcquireRefused { .. }
            | EventKind::Renew { .. }
            | EventKind::RenewRefused { .. }
            | EventKind::Release { .. }
            | EventKind::ReleaseRefused { .. } => self.lock_call(p, event, &words, legend),
            EventKind::Expire { .. } | EventKind::ClockJump { .. } | EventKind::Differs { .. } => {
                self.lock_mark(p, event, &words, legend)
            }
            EventKind::Pause { .. }
            | EventKind::Resume { .. }
            | EventKind::Crash { .. }
            | EventKind::Restart { .. } => self.client_mark(p, event, &words),
            EventKind::Send { .. } => self.send(p, event, &words, &cx.asked, legend),
            EventKind::Write { .. } => self.write(p, event, &words, &cx.asked, legend),
            EventKind::Corruption { .. } => {
                let (mark, tip) = (p.font * 1.05, x + self.reach(p));
                let tries = spots::above_storage(p, tip, mark, &two_lines(&words.verdict, true));
                let need = if p.compact {
                    Need::Want(0)
                } else {
                    Need::Keep(0)
                };
                let look = (need, Tone::Corrupted, p.font);
                let point = Some((tip, p.storage - mark - 3.0));
                let hosts = self.last_write.take().into_iter().flatten().collect();
                self.queue_on(p, event.t, look, tries, "verdict", (hosts, point));
            }
            EventKind::Fencing { .. } | EventKind::Check { .. } => {
                self.switch_line(p, event.t, &words.main[0]);
            }
        }
        self.out.push_str("</g>");
    }

    /// A call to the lock service and its answer: up to its line and back, dashed if refused.
    fn lock_call(&mut self, p: &Panel, event: &Event, words: &Labels, legend: &mut Legend) {
        let (x, d) = (p.x(event.t), self.reach(p));
        let Some(client) = event.kind.client() else {
            return;
        };
        let y = p.y(client);
        let (refused, answered, need, tone) = match event.kind {
            EventKind::Grant { .. } => (false, true, 4, Tone::Strong),
            EventKind::AcquireRefused { .. } => (true, true, 7, Tone::Quiet),
            EventKind::Renew { .. } => (false, true, 8, Tone::Plain),
            EventKind::RenewRefused { .. } => (true, true, 5, Tone::Plain),
            EventKind::Release { .. } => (false, false, 8, Tone::Quiet),
            _ => (true, true, 6, Tone::Plain),
        };
        if refused {
            legend.refused.see(event.t);
        }
        self.request(p, x, y, d);
        let end = if answered {
            self.reply(p, x + d, y, d, refused);
            x + 2.0 * d
        } else {
            x + d
        };
        let tries = spots::beside_call(p, end, x, y, &two_lines(&words.main, false));
        self.queue(p, event.t, (Need::Want(need), tone, p.font), tries, "call");
    }

    /// A mark on the lock service's line: a lease running out (a white diamond), its clock
    /// jumping (a black one), or, under it, where a student's code answered otherwise.
    fn lock_mark(&mut self, p: &Panel, event: &Event, words: &Labels, legend: &mut Legend) {
        let (x, d) = (p.x(event.t), self.reach(p));
        let size = p.font * 0.92;
        match &event.kind {
            EventKind::Expire { .. } => {
                legend.expiry.see(event.t);
                // A lease the clock's jump ends at once: its diamond beside the jump's, right
                // of it, and its label right of the jump's.
                let beside = self.jumped_at == Some(event.t);
                let x = if beside { x + d * 3.4 } else { x };
                self.diamond(x, p.lock, d * 1.4, "white");
                let mut tries = spots::below_lock(p, x, size, &words.main);
                if beside {
                    tries.sort_by_key(|at| at.anchor != Anchor::Start);
                }
                self.queue(
                    p,
                    event.t,
                    (Need::Want(3), Tone::Plain, size),
                    tries,
                    "expire",
                );
            }
            EventKind::ClockJump { .. } => {
                legend.jump.see(event.t);
                self.diamond(x, p.lock, d * 2.0, INK);
                self.jumped_at = Some(event.t);
                let mut tries = spots::below_lock(p, x, size, &two_lines(&words.main, false));
                // Left of the diamond, leaving its right to a lease the jump ends at once.
                tries.sort_by_key(|at| at.anchor != Anchor::End);
                self.queue(
                    p,
                    event.t,
                    (Need::Keep(2), Tone::Strong, size),
                    tries,
                    "clock",
                );
            }
            EventKind::Differs {
                client: Some(c), ..
            } => {
                let tries = spots::under_client(p, x, p.y(*c), Anchor::Middle, &words.main);
                self.queue(
                    p,
                    event.t,
                    (Need::Want(1), Tone::Strong, p.font),
                    tries,
                    "differs",
                );
            }
            _ => {
                let tries = spots::below_lock(p, x, size, &words.main);
                self.queue(
                    p,
                    event.t,
                    (Need::Want(1), Tone::Strong, size),
                    tries,
                    "differs",
                );
            }
        }
    }

    /// A GC pause's start and end (ticks), a crash (a cross) and a restart (a tick).
    fn client_mark(&mut self, p: &Panel, event: &Event, words: &Labels) {
        let (x, d) = (p.x(event.t), self.reach(p));
        let Some(client) = event.kind.client() else {
            return;
        };
        let y = p.y(client);
        match event.kind {
            EventKind::Pause { .. } | EventKind::Resume { .. } => self.tick(x, y, p.bar, GC),
            EventKind::Restart { .. } => self.tick(x, y, p.bar, CRASH),
            _ => {
                let s = d * 1.4;
                let _ = write!(
                    self.out,
                    r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{CRASH}" stroke-width="2.5"/>"#,
                    x - s,
                    y - s,
                    x + s,
                    y + s,
                    x - s,
                    y + s,
                    x + s,
                    y - s
                );
                self.placer.block(Rect {
                    l: x - s,
                    t: y - s,
                    r: x + s,
                    b: y + s,
                });
            }
        }
        if !words.main.is_empty() {
            let tries = spots::under_client(p, x, y, Anchor::Middle, &words.main);
            self.queue(
                p,
                event.t,
                (Need::Want(6), Tone::Plain, p.font),
                tries,
                "client",
            );
        }
    }

    /// A write the network holds: a slanted dotted arrow toward its arrival (or the window's
    /// edge, part way down).
    fn send(
        &mut self,
        p: &Panel,
        event: &Event,
        words: &Labels,
        asked: &[&Event],
        legend: &mut Legend,
    ) {
        let EventKind::Send {
            client, deliver_at, ..
        } = &event.kind
        else {
            return;
        };
        legend.delayed.see(event.t);
        let (x, t) = (p.x(event.t), event.t);
        let y = p.y(*client);
        let (x2, y2) = if *deliver_at <= p.window.until {
            (p.x(*deliver_at) + self.reach(p), p.storage)
        } else {
            let share = (p.window.until - t) as f64 / (*deliver_at - t).max(1) as f64;
            (p.x(p.window.until), y + (p.storage - y) * share)
        };
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{WRITE}" stroke-width="1.8" stroke-dasharray="2 3" marker-end="url(#{}warrow)"/>"#,
            self.id
        );
        self.arrow(Seg::new(x, y, x2, y2), 1.8);
        // The write a question asks about may be one the network held: this is its label.
        let asked = asked.iter().any(|e| {
            matches!(&e.kind, EventKind::Write { client: c, sent_at: Some(s), .. }
                if c == client && *s == t)
        });
        let (need, role) = if asked {
            (Need::Keep(1), "asked")
        } else {
            (Need::Want(5), "send")
        };
        let tries = spots::under_client(p, x + 3.0, y, Anchor::Start, &words.main);
        self.queue(p, t, (need, Tone::Plain, p.font), tries, role);
    }

    /// A message as a tick on its sender's line, in a compact panel: up for the lock service
    /// (dark for a grant, faint for a refusal), down for a write. False: not a message.
    fn tick_only(&mut self, p: &Panel, event: &Event, x: f64) -> bool {
        let (client, stroke, down) = match &event.kind {
            EventKind::Grant { client, .. } => (client, INK, false),
            EventKind::AcquireRefused { client, .. } => (client, FAINT, false),
            EventKind::Renew { client, .. }
            | EventKind::RenewRefused { client, .. }
            | EventKind::Release { client, .. }
            | EventKind::ReleaseRefused { client, .. } => (client, MUTED, false),
            EventKind::Send { client, .. } => (client, WRITE, true),
            EventKind::Write {
                client,
                sent_at: None,
                ..
            } => {
                // The verdict's mark stays on the storage's line: only the arrow goes.
                let y = p.y(*client);
                let _ = write!(
                    self.out,
                    r#"<line x1="{x:.1}" y1="{y:.1}" x2="{x:.1}" y2="{:.1}" stroke="{WRITE}" stroke-width="1"/>"#,
                    y + p.bar + 2.0
                );
                return false;
            }
            _ => return false,
        };
        let y = p.y(*client);
        let (y1, y2) = if down {
            (y, y + p.bar + 2.0)
        } else {
            (y - p.bar - 2.0, y)
        };
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="1"/>"#
        );
        true
    }

    /// A refused ask in a busy panel: a faint tick up from its client's line; its crowd is
    /// labelled once ([`Svg::crowd`]).
    fn refused_tick(&mut self, p: &Panel, event: &Event, x: f64) {
        let Some(client) = event.kind.client() else {
            return;
        };
        let y = p.y(client);
        let top = y - p.bar * 0.9;
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{y:.1}" stroke="{FAINT}" stroke-width="1.5"/>"#
        );
        self.placer.line(Seg::new(x, top, x, y), 1.0);
    }

    /// The one label of a crowd of refused asks in a busy panel: "client-3 asked 12 times:
    /// refused", shown from its last ask.
    pub(super) fn crowd(&mut self, p: &Panel, crowd: &Crowd, vocab: &Vocab) {
        let y = p.y(crowd.client);
        let n = crowd.count;
        let texts: Vec<String> = if n == 1 {
            vec![vocab.say("acquire: refused"), "refused".into()]
        } else {
            vec![
                format!("{} asked {n} times: refused", crowd.client),
                format!("asked {n} times: refused"),
                format!("{n} asks refused"),
                format!("{n} refused"),
            ]
        };
        let tries = spots::over_crowd(p, p.x(crowd.first), p.x(crowd.last), y, &texts);
        self.queue(
            p,
            crowd.last,
            (Need::Want(6), Tone::Quiet, p.font),
            tries,
            "crowd",
        );
    }

    /// Fencing or the check switched: a dashed line down the panel, labelled at its top.
    fn switch_line(&mut self, p: &Panel, t: Ms, words: &str) {
        let x = p.x(t);
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{INK}" stroke-width="1.5" stroke-dasharray="8 4"/>"#,
            p.bounds.t, p.bounds.b
        );
        self.placer
            .line(Seg::new(x, p.bounds.t, x, p.bounds.b), ARROW_ROOM);
        let tries = spots::beside_switch(p, x, words);
        self.queue(p, t, (Need::Want(2), Tone::Strong, p.font), tries, "switch");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(t: Ms, client: usize) -> Event {
        Event {
            t,
            kind: EventKind::AcquireRefused {
                client: ClientId::ALL[client],
                lock: crate::sim::LockId(0),
                holder: None,
            },
        }
    }

    #[test]
    fn a_clients_refused_asks_crowd_until_it_does_anything_else() {
        let grant = Event {
            t: 5,
            kind: EventKind::Resume {
                client: ClientId::ALL[2],
            },
        };
        let events = [
            refused(1, 2),
            refused(2, 0),
            refused(3, 2),
            refused(4, 2),
            grant,
            refused(6, 2),
        ];
        let crowds = crowds(&events);
        let of = |c: usize| -> Vec<(Ms, Ms, usize)> {
            crowds
                .iter()
                .filter(|k| k.client == ClientId::ALL[c])
                .map(|k| (k.first, k.last, k.count))
                .collect()
        };
        assert_eq!(of(2), [(1, 4, 3), (6, 6, 1)]);
        assert_eq!(of(0), [(2, 2, 1)]);
    }
}
