//! The lease bars: who holds each lock by the lock service (the truth, above its line), and what
//! each client believes it holds (above its line), with its GC pauses, crashes and waits as bands.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{text_width, Rect};
use super::legend::Legend;
use super::palette::{CRASH, GC, INK, LIVE, MUTED, STALE};
use super::panel::Panel;
use crate::pictures::xml::escape;
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, History, LaneState, Ms, Session};

impl Svg {
    /// The lock service's truth: who holds each lock, as bars above its line.
    pub(super) fn lock_bars(
        &mut self,
        p: &Panel,
        history: &History,
        session: &Session,
        legend: &mut Legend,
    ) {
        let locks = &session.scenario().locks;
        let end = session.now();
        for (i, name) in locks.iter().enumerate() {
            let spans = history.lock_lane(i);
            let y = p.lock - 2.0 - p.bar * (i + 1) as f64 - i as f64;
            for (k, span) in spans.iter().enumerate() {
                let Some((client, token)) = span.holder else {
                    continue;
                };
                let stop = spans.get(k + 1).map_or(end, |s| s.start);
                let Some((a, b)) = p.clip(span.start, stop) else {
                    continue;
                };
                legend.live.see(a);
                let lock = if locks.len() > 1 {
                    format!("{name}: ")
                } else {
                    String::new()
                };
                let title = format!(
                    "the lock service: {client} holds {name} with token {token}, {} to {} s",
                    fmt_seconds(span.start),
                    fmt_seconds(stop)
                );
                self.bar(
                    p,
                    a,
                    b,
                    y,
                    "lease",
                    &title,
                    &format!("fill=\"{LIVE}\""),
                    &[
                        format!("{lock}{client}, token {token}"),
                        format!("{lock}c{} t{token}", client.number()),
                        format!("t{token}"),
                    ],
                    "white",
                );
            }
        }
    }

    /// A bar from `a` to `b` ms whose top is `y`, with a title and the first label that fits
    /// inside it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bar(
        &mut self,
        p: &Panel,
        a: Ms,
        b: Ms,
        y: f64,
        class: &str,
        title: &str,
        paint: &str,
        labels: &[String],
        text_fill: &str,
    ) {
        let (xa, xb) = (p.x(a), p.x(b).max(p.x(a) + 1.5));
        let _ = write!(
            self.out,
            r#"<g class="{class}" data-t="{}"><title>{}</title><rect x="{xa:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" {paint}/>"#,
            fmt_seconds(a),
            escape(title),
            xb - xa,
            p.bar
        );
        let size = (p.bar * 0.85).min(p.font);
        if let Some(label) = labels
            .iter()
            .find(|l| text_width(l, size, true) + 6.0 <= xb - xa)
        {
            let halo = if text_fill == "white" {
                String::new()
            } else {
                r##" stroke="white" stroke-width="3" paint-order="stroke""##.to_owned()
            };
            let _ = write!(
                self.out,
                r#"<text x="{:.1}" y="{:.1}" font-size="{size:.1}" font-weight="bold" fill="{text_fill}"{halo}>{}</text>"#,
                xa + 3.0,
                y + p.bar * 0.5 + size * 0.36,
                escape(label)
            );
        }
        self.out.push_str("</g>");
        self.taken.push(Rect {
            l: xa,
            t: y,
            r: xb,
            b: y + p.bar,
        });
    }

    /// A client's lane: what it believes it holds (solid while the lock service agrees, striped
    /// once the lease is gone), its GC pauses and crashes as bands, waiting as a dashed line.
    pub(super) fn client_lane(
        &mut self,
        p: &Panel,
        history: &History,
        locks: usize,
        client: ClientId,
        legend: &mut Legend,
    ) {
        let y = p.clients[client.index()];
        let spans = history.lane(client.index());
        let end = p.window.until;
        // Stretches of one state (bands) and of one believed token (belief bars), each merged
        // across the lane's spans so a bar is not cut where only the other changed.
        let mut states: Vec<(Ms, Ms, LaneState)> = Vec::new();
        let mut beliefs: Vec<(Ms, Ms, u64)> = Vec::new();
        for (k, span) in spans.iter().enumerate() {
            let stop = spans.get(k + 1).map_or(end, |s| s.start).min(end);
            let Some((a, b)) = p.clip(span.start, stop) else {
                continue;
            };
            match states.last_mut() {
                Some(last) if last.2 == span.state && last.1 == a => last.1 = b,
                _ => states.push((a, b, span.state)),
            }
            if let Some(token) = span.token.filter(|_| span.state != LaneState::Crashed) {
                match beliefs.last_mut() {
                    Some(last) if last.2 == token && last.1 == a => last.1 = b,
                    _ => beliefs.push((a, b, token)),
                }
            }
        }
        for (a, b, state) in states {
            match state {
                LaneState::Paused => {
                    legend.gc.see(a);
                    self.band(p, a, b, y, "gc", "dots", GC, client, "GC pause");
                }
                LaneState::Crashed => {
                    legend.crash.see(a);
                    self.band(p, a, b, y, "down", "cross", CRASH, client, "crashed");
                }
                LaneState::Waiting => {
                    legend.waiting.see(a);
                    let _ = write!(
                        self.out,
                        r#"<line class="waiting" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{MUTED}" stroke-width="3" stroke-dasharray="6 4"><title>{client} waits to ask for the lock again, {} to {} s</title></line>"#,
                        p.x(a),
                        p.x(b),
                        fmt_seconds(a),
                        fmt_seconds(b)
                    );
                }
                _ => {}
            }
        }
        for (a, b, token) in beliefs {
            // The belief split where the lock service's truth changes.
            let mut cuts: Vec<Ms> = vec![a];
            for lock in 0..locks {
                for s in history.lock_lane(lock) {
                    if s.start > a && s.start < b {
                        cuts.push(s.start);
                    }
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            cuts.push(b);
            let mut pieces: Vec<(Ms, Ms, bool)> = Vec::new();
            for w in cuts.windows(2) {
                let live =
                    (0..locks).any(|lock| holder_at(history, lock, w[0]) == Some((client, token)));
                match pieces.last_mut() {
                    Some(last) if last.2 == live && last.1 == w[0] => last.1 = w[1],
                    _ => pieces.push((w[0], w[1], live)),
                }
            }
            for (a, b, live) in pieces {
                let top = y - 2.0 - p.bar;
                if live {
                    legend.live.see(a);
                    self.bar(
                        p,
                        a,
                        b,
                        top,
                        "belief live",
                        &format!(
                            "{client} holds token {token}, and the lock service agrees, {} to {} s",
                            fmt_seconds(a),
                            fmt_seconds(b)
                        ),
                        &format!("fill=\"{LIVE}\""),
                        &[format!("token {token}"), format!("t{token}")],
                        "white",
                    );
                } else {
                    legend.believed.see(a);
                    self.bar(
                        p,
                        a,
                        b,
                        top,
                        "belief stale",
                        &format!(
                            "{client} believes it holds token {token}, but that lease is gone, {} to {} s",
                            fmt_seconds(a),
                            fmt_seconds(b)
                        ),
                        &format!("fill=\"url(#{}stripes)\" stroke=\"{STALE}\"", self.id),
                        &[
                            format!("believes token {token}: lease gone"),
                            format!("believes t{token}"),
                            format!("t{token}?"),
                        ],
                        INK,
                    );
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn band(
        &mut self,
        p: &Panel,
        a: Ms,
        b: Ms,
        y: f64,
        class: &str,
        pattern: &str,
        stroke: &str,
        client: ClientId,
        words: &str,
    ) {
        let (xa, xb) = (p.x(a), p.x(b).max(p.x(a) + 1.5));
        let top = y + 2.0;
        let _ = write!(
            self.out,
            r#"<g class="{class}" data-t="{}"><title>{client}: {words}, {} to {} s</title><rect x="{xa:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="url(#{}{pattern})" stroke="{stroke}" stroke-width="1.2"/>"#,
            fmt_seconds(a),
            fmt_seconds(a),
            fmt_seconds(b),
            xb - xa,
            p.bar,
            self.id
        );
        let size = (p.bar * 0.85).min(p.font);
        let long = format!("{words} {} s", fmt_seconds(b - a));
        if let Some(label) = [long.as_str(), words]
            .into_iter()
            .find(|l| text_width(l, size, true) + 6.0 <= xb - xa)
        {
            let _ = write!(
                self.out,
                r##"<text x="{:.1}" y="{:.1}" font-size="{size:.1}" font-weight="bold" fill="{stroke}" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"##,
                xa + 3.0,
                top + p.bar * 0.5 + size * 0.36,
                escape(label)
            );
        }
        self.out.push_str("</g>");
        self.taken.push(Rect {
            l: xa,
            t: top,
            r: xb,
            b: top + p.bar,
        });
    }
}

/// Who held lock `lock` at `t`, by the lock service's lane.
pub(super) fn holder_at(history: &History, lock: usize, t: Ms) -> Option<(ClientId, u64)> {
    let spans = history.lock_lane(lock);
    let i = spans.partition_point(|s| s.start <= t);
    i.checked_sub(1).and_then(|i| spans[i].holder)
}
