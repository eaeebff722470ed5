//! The lease bars: who holds each lock by the lock service (the truth, above its line) and what
//! each client believes it holds (above its line), with its GC pauses, crashes and waits as bands
//! under it. Both are read from the simulation: the lock's lane, and the client's belief lane
//! ([`belief_lane`]), the same record the UI's lane is drawn from.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{text_width, Anchor, Rect};
use super::legend::Legend;
use super::palette::{CRASH, GC, LIVE, MUTED, STALE};
use super::panel::Panel;
use super::placer::{Label, Need, Tone, Try};
use crate::pictures::xml::escape;
use crate::sim::lesson::{belief_lane, Held};
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, History, LaneState, Ms, Session, Vocab};

/// A bar to draw: its stretch, its top, what it is, and the words that may go inside it.
struct Bar<'a> {
    a: Ms,
    b: Ms,
    top: f64,
    /// Its class and its data attributes.
    class: &'a str,
    data: String,
    title: String,
    paint: String,
    words: Vec<String>,
    tone: Tone,
    need: Need,
}

/// When a state began, and when it ended if it had by the picture's moment.
type Lasted = (Ms, Option<Ms>);

impl Svg {
    /// The lock service's truth: who holds each lock, as bars above its line.
    pub(super) fn lock_bars(
        &mut self,
        p: &Panel,
        session: &Session,
        vocab: &Vocab,
        legend: &mut Legend,
    ) {
        let history = session.world().history();
        let locks = &session.scenario().locks;
        for (i, name) in locks.iter().enumerate() {
            let spans = history.lock_lane(i);
            let top = p.lock - 2.0 - p.bar * (i + 1) as f64 - i as f64;
            for (k, span) in spans.iter().enumerate() {
                let Some((client, token)) = span.holder else {
                    continue;
                };
                let stop = spans.get(k + 1).map_or(p.now, |s| s.start);
                let Some((a, b)) = p.clip(span.start, stop) else {
                    continue;
                };
                legend.live.see(a);
                let lock = if locks.len() > 1 {
                    format!("{name}: ")
                } else {
                    String::new()
                };
                self.bar(
                    p,
                    Bar {
                        a,
                        b,
                        top,
                        class: "lease",
                        data: format!(
                            r#" data-lock="{}" data-client="{client}" data-token="{token}""#,
                            escape(name)
                        ),
                        title: vocab.say(&format!(
                            "the lock service: {client} holds {name} with token {token}, {} to {} s",
                            fmt_seconds(span.start),
                            fmt_seconds(stop)
                        )),
                        paint: format!("fill=\"{LIVE}\""),
                        words: vocab.short_forms(vec![
                            vocab.say(&format!("{lock}{client}, token {token}")),
                            format!("{lock}c{} t{token}", client.number()),
                            format!("t{token}"),
                        ]),
                        tone: Tone::OnLive,
                        need: Need::Want(2),
                    },
                );
            }
        }
    }

    /// A client's lane: what it believes it holds (solid while the lock service agrees, striped
    /// once the lease is gone), its GC pauses and crashes as bands, waiting as a dashed line.
    pub(super) fn client_lane(
        &mut self,
        p: &Panel,
        history: &History,
        client: ClientId,
        vocab: &Vocab,
        legend: &mut Legend,
    ) {
        let Some(y) = p.clients[client.index()] else {
            return;
        };
        self.bands(p, history, client, y, legend);
        let lane = belief_lane(history, client);
        for (k, span) in lane.iter().enumerate() {
            let Some((token, held)) = span.belief else {
                continue;
            };
            let stop = lane.get(k + 1).map_or(p.now, |s| s.start);
            let Some((a, b)) = p.clip(span.start, stop.min(p.now)) else {
                continue;
            };
            let top = y - 2.0 - p.bar;
            let data = format!(r#" data-client="{client}" data-token="{token}""#);
            let (from, to) = (fmt_seconds(a), fmt_seconds(b));
            let bar = match held {
                Held::Live => {
                    legend.live.see(a);
                    Bar {
                        a,
                        b,
                        top,
                        class: "belief live",
                        data,
                        title: vocab.say(&format!(
                            "{client} holds token {token}, and the lock service agrees, {from} to {to} s"
                        )),
                        paint: format!("fill=\"{LIVE}\""),
                        words: vocab.short_forms(vec![
                            vocab.say(&format!("token {token}")),
                            format!("t{token}"),
                        ]),
                        tone: Tone::OnLive,
                        need: Need::Want(3),
                    }
                }
                Held::Gone => {
                    legend.believed.see(a);
                    Bar {
                        a,
                        b,
                        top,
                        class: "belief stale",
                        data,
                        title: vocab.say(&format!(
                            "{client} believes it holds token {token}, but that lease is gone, {from} to {to} s"
                        )),
                        paint: format!("fill=\"url(#{}stripes)\" stroke=\"{STALE}\"", self.id),
                        // Every form says the lease is gone: a stripe alone could be read
                        // as a lease still held.
                        words: vocab.short_forms(vec![
                            vocab.say(&format!("believes token {token}: lease gone")),
                            format!("believes t{token}: lease gone"),
                            format!("t{token}: lease gone"),
                            "lease gone".to_owned(),
                        ]),
                        tone: Tone::OnStale,
                        need: Need::Want(2),
                    }
                }
            };
            self.bar(p, bar);
        }
    }

    /// A client's GC pauses and crashes as bands under its line, and its waits as a dashed line.
    fn bands(
        &mut self,
        p: &Panel,
        history: &History,
        client: ClientId,
        y: f64,
        legend: &mut Legend,
    ) {
        let spans = history.lane(client.index());
        // Each state's drawn stretch, and how long it really lasted: unknown while it still
        // goes on at the picture's moment (a slide cut at 12 s does not end a pause there).
        let mut states: Vec<(Ms, Ms, LaneState, Lasted)> = Vec::new();
        let mut began = 0;
        for (k, span) in spans.iter().enumerate() {
            let next = spans.get(k + 1).map(|s| s.start).filter(|&t| t <= p.now);
            let stop = next.unwrap_or(p.now);
            if k == 0 || spans[k - 1].state != span.state {
                began = span.start;
            }
            let lasted = (began, next);
            let Some((a, b)) = p.clip(span.start, stop) else {
                continue;
            };
            match states.last_mut() {
                Some(last) if last.2 == span.state && last.1 == a => {
                    last.1 = b;
                    last.3 = lasted;
                }
                _ => states.push((a, b, span.state, lasted)),
            }
        }
        for (a, b, state, lasted) in states {
            match state {
                LaneState::Paused => {
                    legend.gc.see(a);
                    let look = ("gc", "dots", GC, 0);
                    self.band(p, (a, b), y, client, look, ("GC pause", lasted));
                }
                LaneState::Crashed => {
                    legend.crash.see(a);
                    let look = ("down", "cross", CRASH, 1);
                    self.band(p, (a, b), y, client, look, ("crashed", lasted));
                }
                LaneState::Waiting => {
                    legend.waiting.see(a);
                    let _ = write!(
                        self.out,
                        r#"<line class="waiting" data-client="{client}" data-t="{}" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{MUTED}" stroke-width="3" stroke-dasharray="6 4"><title>{client} waits to ask for the lock again, {} to {} s</title></line>"#,
                        fmt_seconds(a),
                        p.x(a),
                        p.x(b),
                        fmt_seconds(a),
                        fmt_seconds(b)
                    );
                }
                _ => {}
            }
        }
    }

    /// A bar, with its title, as a mark labels keep off, and its words queued to sit inside it
    /// where no arrow crosses.
    fn bar(&mut self, p: &Panel, bar: Bar) {
        let (xa, xb) = (p.x(bar.a), p.x(bar.b).max(p.x(bar.a) + 1.5));
        let _ = write!(
            self.out,
            r#"<g class="{}"{} data-t="{}" data-from="{}" data-to="{}"><title>{}</title><rect x="{xa:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {}/></g>"#,
            bar.class,
            bar.data,
            fmt_seconds(bar.a),
            fmt_seconds(bar.a),
            fmt_seconds(bar.b),
            escape(&bar.title),
            bar.top,
            xb - xa,
            p.bar,
            bar.paint,
        );
        let rect = Rect {
            l: xa,
            t: bar.top,
            r: xb,
            b: bar.top + p.bar,
        };
        self.inside(p, rect, bar.words, bar.tone, bar.need, bar.a);
    }

    /// A band under a client's line from `a` to `b`: (class, pattern, colour, tone) and words.
    fn band(
        &mut self,
        p: &Panel,
        (a, b): (Ms, Ms),
        y: f64,
        client: ClientId,
        (class, pattern, stroke, tone): (&str, &str, &str, u8),
        (words, (began, ended)): (&str, Lasted),
    ) {
        let (xa, xb) = (p.x(a), p.x(b).max(p.x(a) + 1.5));
        let top = y + 2.0;
        let when = match ended {
            Some(end) => format!("{} to {} s", fmt_seconds(began), fmt_seconds(end)),
            None => format!(
                "from {} s, still on at {} s",
                fmt_seconds(began),
                fmt_seconds(p.now)
            ),
        };
        let _ = write!(
            self.out,
            r#"<g class="{class}" data-client="{client}" data-t="{}" data-from="{}" data-to="{}"><title>{client}: {words}, {when}</title><rect x="{xa:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="url(#{}{pattern})" stroke="{stroke}" stroke-width="1.2"/></g>"#,
            fmt_seconds(a),
            fmt_seconds(a),
            fmt_seconds(b),
            xb - xa,
            p.bar,
            self.id
        );
        let rect = Rect {
            l: xa,
            t: top,
            r: xb,
            b: top + p.bar,
        };
        let long = ended.map(|end| format!("{words} {} s", fmt_seconds(end - began)));
        let words = long.into_iter().chain([words.to_owned()]).collect();
        self.inside(p, rect, words, Tone::OnBand(tone), Need::Want(5), a);
    }

    /// Blocks `rect` for other labels and queues `words` (longest first) to sit inside it, at the
    /// first place along it that no arrow crosses.
    fn inside(&mut self, p: &Panel, rect: Rect, words: Vec<String>, tone: Tone, need: Need, t: Ms) {
        let host = self.placer.block(rect);
        let size = p.bar_text();
        let y = rect.t + p.bar * 0.5 + size * 0.32;
        let mut tries = Vec::new();
        for text in words {
            let w = text_width(&text, size, true);
            let room = rect.r - rect.l - 6.0 - w;
            if room < 0.0 {
                continue;
            }
            // Places along the bar, the first at its start, close enough to find a gap between
            // two arrows.
            let step = 3.0_f64.max(room / 150.0);
            let mut x = rect.l + 3.0;
            while x <= rect.r - 3.0 - w {
                tries.push(Try {
                    x,
                    y,
                    anchor: Anchor::Start,
                    text: text.clone(),
                });
                x += step;
            }
        }
        let area = rect.grown(2.0);
        self.label(
            area,
            Label {
                need,
                tone,
                size,
                tries,
                t: Some(t),
                hosts: vec![host],
                mark: None,
                role: "bar",
                whole: 0,
                copies: 1,
            },
        );
    }
}
