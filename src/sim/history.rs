//! The record of a run: the events, each client's lane and the lock lanes over time, the marks
//! at instants, and what became of each scripted beat. The world writes it; every view reads it.

use super::event::{ClientId, Event, EventKind};
use super::scenario::CLIENT_COUNT;
use super::time::Ms;
use crate::Outcome;

/// How much of the history a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything: events, lanes, marks (the UI, and anything that draws).
    All,
    /// Events only, until the caller takes them ([`History::take_events`]): a long headless run
    /// streams its events in bounded memory.
    Stream,
    /// Nothing but counts: chaos summaries.
    Counts,
    /// Nothing but counts, of every check: the same writes also sent to a storage of each check
    /// (`chaos --check all`). [`Keep::All`] keeps them too, for the compare view.
    EveryCheck,
}

impl Keep {
    /// Whether every write is also judged by a storage of each check.
    pub fn every_check(self) -> bool {
        matches!(self, Keep::All | Keep::EveryCheck)
    }
}

/// How a client's lane looks over a stretch of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneState {
    Idle,
    Waiting,
    /// Holds the live lease.
    Holding,
    /// Believes it holds a lock, but that lease is gone: the dangerous moment.
    Stale,
    Paused,
    Crashed,
}

/// A stretch of a client's lane from `start` until the next span starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: Ms,
    pub state: LaneState,
    /// The token held or believed held.
    pub token: Option<u64>,
}

/// A stretch of one lock's lane: who holds the live lease, from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockSpan {
    pub start: Ms,
    pub holder: Option<(ClientId, u64)>,
}

/// Something that happened at an instant on a client's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MarkKind {
    // Ordered by how much a student must see it when several share one column.
    Released,
    Renewed,
    Refused,
    LeaseRefusal,
    Sent,
    Accepted,
    Rejected,
    Corrupted,
    /// The implementation's answer differed from the seed's (a student's, in the lab).
    Differs,
}

impl MarkKind {
    /// The mark of a write's verdict: the one mapping from verdict to mark.
    pub fn of(outcome: Outcome) -> MarkKind {
        match outcome {
            Outcome::Accepted => MarkKind::Accepted,
            Outcome::Rejected => MarkKind::Rejected,
            Outcome::Corrupted => MarkKind::Corrupted,
        }
    }
}

/// An instant on a client's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub t: Ms,
    pub kind: MarkKind,
}

/// What became of a scripted beat's action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Its time has not come.
    Pending,
    /// A caption-only beat, or a fencing switch or clock jump: nothing for a client to do.
    Narrated,
    /// Done, at this time (later than the beat when its client was frozen).
    Done { at: Ms },
    /// Its client is frozen in a GC pause: it does it when it wakes.
    Deferred,
    /// Its client was down after a crash (at this time): it never happens.
    Dropped { at: Ms },
    /// A write, renew or release by a client that believes it holds no lease (it found out at
    /// this time): nothing to send.
    NoLease { at: Ms },
}

/// The record of a run.
#[derive(Clone, Debug)]
pub struct History {
    keep: Keep,
    events: Vec<Event>,
    /// Events handed out by [`take_events`](Self::take_events) so far.
    taken: usize,
    lanes: [Vec<Span>; CLIENT_COUNT],
    lock_lanes: Vec<Vec<LockSpan>>,
    marks: [Vec<Mark>; CLIENT_COUNT],
    fates: Vec<Fate>,
}

impl History {
    /// An empty history of a scenario with `locks` locks and `beats` beats.
    pub fn new(keep: Keep, locks: usize, beats: usize) -> History {
        History {
            keep,
            events: Vec::new(),
            taken: 0,
            lanes: Default::default(),
            lock_lanes: vec![Vec::new(); locks],
            marks: Default::default(),
            fates: vec![Fate::Pending; beats],
        }
    }

    /// How much it keeps.
    pub fn keep(&self) -> Keep {
        self.keep
    }

    /// Every event so far (in [`Keep::Stream`], those not yet taken).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// How many events happened in all, taken ones included.
    pub fn event_count(&self) -> usize {
        self.taken + self.events.len()
    }

    /// The events since the last call, in a streaming history (in any other, all of them,
    /// copied).
    pub fn take_events(&mut self) -> Vec<Event> {
        if self.keep == Keep::Stream {
            self.taken += self.events.len();
            std::mem::take(&mut self.events)
        } else {
            self.events.clone()
        }
    }

    /// Client `index`'s lane.
    pub fn lane(&self, index: usize) -> &[Span] {
        &self.lanes[index]
    }

    /// The instants on client `index`'s lane.
    pub fn marks(&self, index: usize) -> &[Mark] {
        &self.marks[index]
    }

    /// Lock `index`'s lane.
    pub fn lock_lane(&self, index: usize) -> &[LockSpan] {
        &self.lock_lanes[index]
    }

    /// How many locks it has a lane for.
    pub fn lock_count(&self) -> usize {
        self.lock_lanes.len()
    }

    /// What became of beat `index` by the end of the history.
    pub fn fate(&self, index: usize) -> Fate {
        self.fates.get(index).copied().unwrap_or(Fate::Pending)
    }

    /// What had become of beat `index`, due at `beat_at`, by time `t`: a beat done or dropped
    /// after `t` was still waiting then.
    pub fn fate_at(&self, index: usize, beat_at: Ms, t: Ms) -> Fate {
        if beat_at > t {
            return Fate::Pending;
        }
        match self.fate(index) {
            Fate::Done { at } | Fate::Dropped { at } | Fate::NoLease { at } if at > t => {
                Fate::Deferred
            }
            fate => fate,
        }
    }

    /// Records an event, if events are kept; `kind` is built only then.
    pub fn emit(&mut self, t: Ms, kind: impl FnOnce() -> EventKind) {
        if matches!(self.keep, Keep::All | Keep::Stream) {
            self.events.push(Event { t, kind: kind() });
        }
    }

    /// Records a mark on client `index`'s lane.
    pub fn mark(&mut self, index: usize, t: Ms, kind: MarkKind) {
        if self.keep == Keep::All {
            self.marks[index].push(Mark { t, kind });
        }
    }

    /// Records what became of beat `index`.
    pub fn set_fate(&mut self, index: usize, fate: Fate) {
        if let Some(slot) = self.fates.get_mut(index) {
            *slot = fate;
        }
    }

    /// Extends the lanes with the state at `t` (a new span only where something changed).
    pub fn update_lanes(
        &mut self,
        t: Ms,
        clients: impl Iterator<Item = (LaneState, Option<u64>)>,
        locks: impl Iterator<Item = Option<(ClientId, u64)>>,
    ) {
        if self.keep != Keep::All {
            return;
        }
        for (lane, (state, token)) in self.lanes.iter_mut().zip(clients) {
            let span = Span {
                start: t,
                state,
                token,
            };
            extend(lane, span, |s| s.start, |s| (s.state, s.token));
        }
        for (lane, holder) in self.lock_lanes.iter_mut().zip(locks) {
            let span = LockSpan { start: t, holder };
            extend(lane, span, |s| s.start, |s| s.holder);
        }
    }
}

/// Extends a lane with `span`. An unchanged value adds nothing; a change at the instant the last
/// stretch began replaces that stretch, and where the stretch before already holds the new value
/// it simply goes on. So a lane never holds two equal stretches in a row, and a reader may take
/// the stretch before as a real change (the lesson's beliefs do).
fn extend<S, V: PartialEq>(
    lane: &mut Vec<S>,
    span: S,
    start: impl Fn(&S) -> Ms,
    value: impl Fn(&S) -> V,
) {
    match lane.last() {
        Some(last) if value(last) == value(&span) => {}
        Some(last) if start(last) == start(&span) => {
            lane.pop();
            if lane
                .last()
                .is_none_or(|before| value(before) != value(&span))
            {
                lane.push(span);
            }
        }
        _ => lane.push(span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resume(client: usize) -> impl FnOnce() -> EventKind {
        move || EventKind::Resume {
            client: ClientId::ALL[client],
        }
    }

    #[test]
    fn a_streaming_history_hands_each_event_out_once_and_counts_them_all() {
        let mut history = History::new(Keep::Stream, 1, 0);
        history.emit(1, resume(0));
        history.emit(2, resume(1));
        history.emit(3, resume(2));
        assert_eq!(history.event_count(), 3);
        let first: Vec<Ms> = history.take_events().iter().map(|e| e.t).collect();
        assert_eq!(first, [1, 2, 3]);
        assert!(history.events().is_empty());
        history.emit(4, resume(0));
        history.emit(5, resume(1));
        assert_eq!(history.event_count(), 5, "taken ones still count");
        assert_eq!(history.take_events().len(), 2);
        assert_eq!(history.event_count(), 5);
        // A history that keeps everything copies instead, and still holds them.
        let mut all = History::new(Keep::All, 1, 0);
        all.emit(1, resume(0));
        assert_eq!(all.take_events().len(), 1);
        assert_eq!((all.events().len(), all.event_count()), (1, 1));
        // Counts keep no events, and so count none.
        let mut counts = History::new(Keep::Counts, 1, 0);
        counts.emit(1, resume(0));
        assert_eq!(counts.event_count(), 0);
    }

    #[test]
    fn a_beat_done_or_dropped_later_was_waiting_until_then() {
        let mut history = History::new(Keep::All, 1, 4);
        history.set_fate(0, Fate::Done { at: 16_000 });
        history.set_fate(1, Fate::Dropped { at: 9_000 });
        history.set_fate(2, Fate::NoLease { at: 12_000 });
        history.set_fate(3, Fate::Narrated);
        // Due at 12 s, done at 16 s (its client was frozen): waiting in between.
        assert_eq!(history.fate_at(0, 12_000, 11_999), Fate::Pending);
        assert_eq!(history.fate_at(0, 12_000, 12_000), Fate::Deferred);
        assert_eq!(history.fate_at(0, 12_000, 15_999), Fate::Deferred);
        assert_eq!(
            history.fate_at(0, 12_000, 16_000),
            Fate::Done { at: 16_000 }
        );
        assert_eq!(history.fate_at(1, 5_000, 8_999), Fate::Deferred);
        assert_eq!(
            history.fate_at(1, 5_000, 9_000),
            Fate::Dropped { at: 9_000 }
        );
        assert_eq!(
            history.fate_at(2, 12_000, 12_000),
            Fate::NoLease { at: 12_000 }
        );
        assert_eq!(history.fate_at(3, 1_000, 1_000), Fate::Narrated);
        assert_eq!(
            history.fate(9),
            Fate::Pending,
            "a beat the script does not have"
        );
    }

    #[test]
    fn a_lane_gets_a_new_span_only_where_something_changed() {
        let mut history = History::new(Keep::All, 1, 0);
        let idle = (LaneState::Idle, None);
        let holding = (LaneState::Holding, Some(1));
        let stale = (LaneState::Stale, Some(1));
        let lock = |holder: Option<(ClientId, u64)>| std::iter::once(holder);
        let c1 = ClientId::ALL[0];
        history.update_lanes(0, [idle; 3].into_iter(), lock(None));
        history.update_lanes(0, [holding, idle, idle].into_iter(), lock(Some((c1, 1))));
        history.update_lanes(5, [holding, idle, idle].into_iter(), lock(Some((c1, 1))));
        history.update_lanes(10, [stale, idle, idle].into_iter(), lock(None));
        let span = |start, (state, token)| Span {
            start,
            state,
            token,
        };
        assert_eq!(
            history.lane(0),
            [span(0, holding), span(10, stale)],
            "the same instant replaces its span; an unchanged state adds none"
        );
        assert_eq!(history.lane(1), [span(0, idle)]);
        assert_eq!(
            history.lock_lane(0),
            [
                LockSpan {
                    start: 0,
                    holder: Some((c1, 1))
                },
                LockSpan {
                    start: 10,
                    holder: None
                }
            ]
        );
        // A change undone in the instant it was made leaves one stretch, not two equal ones:
        // frozen on token 1, holding it at 7 s and frozen again at 7 s is one frozen stretch.
        let paused = (LaneState::Paused, Some(1));
        history.update_lanes(15, [paused, idle, idle].into_iter(), lock(None));
        history.update_lanes(17, [holding, idle, idle].into_iter(), lock(Some((c1, 1))));
        history.update_lanes(17, [paused, idle, idle].into_iter(), lock(None));
        assert_eq!(
            history.lane(0),
            [span(0, holding), span(10, stale), span(15, paused)]
        );
        assert_eq!(history.lock_lane(0).len(), 2, "{:?}", history.lock_lane(0));
        // Only a history that draws keeps lanes and marks.
        let mut stream = History::new(Keep::Stream, 1, 0);
        stream.update_lanes(0, [holding; 3].into_iter(), lock(None));
        stream.mark(0, 0, MarkKind::Accepted);
        assert!(stream.lane(0).is_empty() && stream.marks(0).is_empty());
    }
}
