//! What a live run tells as it goes, and how it can fail: one sentence each.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::sim::board::StoredRow;
use crate::sim::{Caption, Event, Ms, Stats};

/// Where and how the run happens, told once at its start.
#[derive(Clone, Debug)]
pub struct Start {
    pub run_id: String,
    /// `fencing-lab/<run id>/`.
    pub prefix: String,
    pub endpoints: Vec<String>,
    /// The lesson's own etcd, when no `--etcd` was given.
    pub private: Option<Private>,
    /// The lesson's lease, in seconds.
    pub lease_seconds: f64,
    /// The TTL asked of etcd (whole seconds, rounded up).
    pub ttl_asked: i64,
    /// The TTL etcd granted a probe lease of that length (its minimum may be higher).
    pub ttl_granted: i64,
    /// The client processes' ids, by client.
    pub pids: [u32; 3],
    /// When the lesson ends, since its start.
    pub end: Ms,
    /// Whether the data is left in place at the end (`--until`).
    pub keeps: bool,
}

/// The lesson's own etcd.
#[derive(Clone, Debug)]
pub struct Private {
    pub pid: u32,
    pub dir: PathBuf,
    pub version: String,
}

/// One thing the run says.
#[derive(Clone, Debug)]
pub enum Said {
    Start(Start),
    /// An event of the lesson, with what really happened for it: fields for the JSON line
    /// (a transaction's `etcdctl` among them), and a sentence for the transcript.
    Event {
        event: Event,
        extra: Map<String, Value>,
        side: Option<Side>,
    },
    /// The storage as read back from etcd after a write.
    Storage(Vec<StoredRow>),
    /// Time passes.
    Tick(Ms),
    /// What the simulated lesson says of the run, where etcd played it as the script did: a
    /// beat's caption (told once its window has closed), a question (just before the write
    /// it asks about) and its answer (what etcd decided). Its `source` says which.
    Caption {
        t: Ms,
        caption: Caption,
    },
    /// A sentence for the transcript that is no event (a client with no lease sends nothing).
    Note {
        t: Ms,
        text: String,
    },
    /// What etcd did that the lesson did not plan (a client moved to another endpoint, the
    /// cluster changed leader, a lease outlived the plan): told in the transcript, the JSON
    /// stream (`etcd_<what>`, with `fields`) and the UI.
    News {
        t: Ms,
        what: News,
        fields: Map<String, Value>,
        text: String,
    },
}

/// What really happened for an event, and who did it: etcd, only for etcd's requests and
/// answers; the operating system, for a signal or a new process; a client, for what it does
/// on its own (a request it holds back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Side {
    Etcd(String),
    Os(String),
    Client(String),
}

impl Side {
    /// Its transcript line's label.
    pub fn label(&self) -> &'static str {
        match self {
            Side::Etcd(_) => "etcd",
            Side::Os(_) => "os",
            Side::Client(_) => "client",
        }
    }

    pub fn text(&self) -> &str {
        match self {
            Side::Etcd(text) | Side::Os(text) | Side::Client(text) => text,
        }
    }
}

/// The kinds of [`Said::News`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum News {
    /// A client's connection moved to another endpoint.
    EndpointChanged,
    /// The cluster lost its leader, or elected another.
    LeaderChanged,
    /// A lease lived on past the end the lesson planned for it.
    LeaseOutlived,
    /// A write the lesson planned as stale came while its writer still held the lock.
    NotStale,
}

impl News {
    /// Its JSON event name.
    pub fn name(self) -> &'static str {
        match self {
            News::EndpointChanged => "etcd_endpoint_changed",
            News::LeaderChanged => "etcd_leader_changed",
            News::LeaseOutlived => "etcd_lease_outlived",
            News::NotStale => "etcd_not_stale",
        }
    }
}

/// How the run ended.
#[derive(Clone, Debug)]
pub struct Finished {
    pub stats: Stats,
    /// When, since the start.
    pub at: Ms,
    pub fencing: bool,
    /// What was cleaned up, or where the data was left (`--until`): one sentence.
    pub afterwards: String,
    /// Whether the data was left in place.
    pub kept: bool,
}

/// Why the lesson could not be told, in one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault(pub String);

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for Fault {
    fn from(s: String) -> Fault {
        Fault(s)
    }
}
