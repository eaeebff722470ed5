//! The live lesson on clusters that fail: a leader killed while a lease is live (at 5 s) and
//! after client 2's write (at 13 s), ten times each; a follower killed; an `--etcd` that stops
//! answering (SIGSTOP); the lesson's own etcd killed. Each run's events are checked against
//! what etcd did, and nothing of a run may be left.

use std::net::TcpListener;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{etcd_here, etcdctl, int, nothing_left, text, Lesson};

pub(super) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// An etcd cluster on loopback (three members unless said), stopped (and its directory
/// removed) when dropped.
pub(super) struct Cluster {
    members: Vec<(Child, String)>,
    _dir: tempfile::TempDir,
}

impl Cluster {
    pub(super) fn start() -> Cluster {
        Cluster::of(3)
    }

    /// A cluster of `size`; started again (up to three times) if a member could not start,
    /// its port taken between `free_port` and etcd's bind by another test's cluster.
    pub(super) fn of(size: usize) -> Cluster {
        for _ in 0..3 {
            if let Some(cluster) = Cluster::try_of(size) {
                return cluster;
            }
        }
        panic!("a cluster of {size} could not be started three times");
    }

    fn try_of(size: usize) -> Option<Cluster> {
        let dir = tempfile::tempdir().unwrap();
        let ports: Vec<(u16, u16)> = (0..size).map(|_| (free_port(), free_port())).collect();
        let initial: Vec<String> = ports
            .iter()
            .enumerate()
            .map(|(i, (_, peer))| format!("m{i}=http://127.0.0.1:{peer}"))
            .collect();
        let members = ports
            .iter()
            .enumerate()
            .map(|(i, (client, peer))| {
                let url = format!("http://127.0.0.1:{client}");
                let log = std::fs::File::create(dir.path().join(format!("m{i}.log"))).unwrap();
                let child = Command::new("etcd")
                    .arg(format!("--name=m{i}"))
                    .arg(format!(
                        "--data-dir={}",
                        dir.path().join(format!("m{i}")).display()
                    ))
                    .arg(format!("--listen-client-urls={url}"))
                    .arg(format!("--advertise-client-urls={url}"))
                    .arg(format!("--listen-peer-urls=http://127.0.0.1:{peer}"))
                    .arg(format!(
                        "--initial-advertise-peer-urls=http://127.0.0.1:{peer}"
                    ))
                    .arg(format!("--initial-cluster={}", initial.join(",")))
                    .args([
                        "--initial-cluster-state=new",
                        "--logger=zap",
                        "--log-level=error",
                    ])
                    .stdout(log.try_clone().unwrap())
                    .stderr(log)
                    .spawn()
                    .unwrap();
                (child, url)
            })
            .collect();
        let mut cluster = Cluster { members, _dir: dir };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let statuses = cluster.statuses();
            if cluster.leader_by(&statuses).is_some() && statuses.len() == size {
                break;
            }
            // A member that could not start (its port taken meanwhile) is never waited for.
            for (child, _) in &mut cluster.members {
                if child.try_wait().unwrap().is_some() {
                    return None;
                }
            }
            assert!(Instant::now() < deadline, "the cluster did not come up");
            std::thread::sleep(Duration::from_millis(200));
        }
        Some(cluster)
    }

    pub(super) fn endpoints(&self) -> Vec<String> {
        self.members.iter().map(|(_, url)| url.clone()).collect()
    }

    /// Kills member `i` (SIGKILL) and reaps it.
    fn kill(&mut self, i: usize) {
        let (child, _) = &mut self.members[i];
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Ends member `i` as `systemctl stop` does (SIGTERM: it shuts down, answering what it is
    /// still asked with "the client connection is closing"), and reaps it.
    fn stop(&mut self, i: usize) {
        self.signal(i, "TERM");
        self.members[i].0.wait().unwrap();
    }

    /// Sends `signal` (`STOP`, `CONT`) to member `i`.
    fn signal(&self, i: usize, signal: &str) {
        let pid = self.members[i].0.id().to_string();
        let sent = Command::new("kill").args(["-s", signal, &pid]).status();
        assert!(sent.unwrap().success());
    }

    /// Each answering member's status, by etcdctl (a member that does not answer has none).
    fn statuses(&self) -> Vec<Value> {
        let out = Command::new("etcdctl")
            .arg(format!("--endpoints={}", self.endpoints().join(",")))
            .args(["endpoint", "status", "-w", "json", "--command-timeout=1s"])
            .output();
        let statuses = out
            .ok()
            .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
        match statuses {
            Some(Value::Array(all)) => all,
            _ => Vec::new(),
        }
    }

    /// The index of the member that leads, by etcdctl.
    fn leader(&self) -> Option<usize> {
        self.leader_by(&self.statuses())
    }

    /// The index of the member that leads by `statuses`: found by its endpoint, since a member
    /// that does not answer is missing from etcdctl's list.
    fn leader_by(&self, statuses: &[Value]) -> Option<usize> {
        let leads = statuses.iter().find(|s| {
            s["Status"]["leader"].is_u64()
                && s["Status"]["leader"] == s["Status"]["header"]["member_id"]
        })?;
        let endpoint = leads["Endpoint"].as_str()?;
        self.members.iter().position(|(_, url)| url == endpoint)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (child, _) in &mut self.members {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A three-node cluster whose leader is killed during the lesson (after client 2's write at
/// 12 s): the clients move to the surviving members, the lesson completes, the late write is
/// still refused, and the run's keys are deleted after. Then `--until` leaves them in place.
#[test]
fn a_three_node_cluster_loses_its_leader_and_the_late_write_is_still_refused() {
    if !etcd_here("a_three_node_cluster_loses_its_leader_and_the_late_write_is_still_refused") {
        return;
    }
    let mut cluster = Cluster::start();
    let leader = cluster.leader().unwrap();
    // The leader first: every client starts on it, so every client must fail over.
    let mut endpoints = cluster.endpoints();
    endpoints.rotate_left(leader);
    let list = endpoints.join(",");
    let mut lesson = Lesson::start(&["gc-pause", "--etcd", &list]);
    let live = lesson.next("live", None);
    let run = text(&live["run"]).to_owned();
    let prefix = text(&live["prefix"]).to_owned();
    assert!(live.get("private").is_none(), "no etcd of its own: {live}");
    let t1 = int(&lesson.next("grant", Some("client-1"))["token"]);
    let t2 = int(&lesson.next("grant", Some("client-2"))["token"]);
    lesson.next("write", Some("client-2"));
    let (child, _) = &mut cluster.members[leader];
    child.kill().unwrap();
    child.wait().unwrap();
    let late = lesson.next("write", Some("client-1"));
    assert_eq!(
        (int(&late["token"]), late["highest"].clone()),
        (t1, Value::from(t2))
    );
    assert_eq!(
        text(&late["outcome"]),
        "rejected",
        "refused on the survivors"
    );
    assert_eq!(text(&late["read_back"]), "client 2's data");
    let (code, stderr, events) = lesson.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(events.last().unwrap()["event"], "summary");
    assert_eq!(
        events.iter().filter(|e| e["event"] == "grant").count(),
        3,
        "the lesson completed"
    );
    let survivors: Vec<String> = endpoints[1..].to_vec();
    let survivors = survivors.join(",");
    let left = etcdctl(&survivors, &["get", "--prefix", &prefix, "--keys-only"]);
    assert_eq!(
        left.trim(),
        "",
        "the run's keys are deleted after the lesson"
    );
    nothing_left(&run);

    // --until leaves the data on the cluster, and says where.
    let mut kept = Lesson::start(&["gc-pause", "--etcd", &survivors, "--until", "1.5"]);
    let prefix = text(&kept.next("live", None)["prefix"]).to_owned();
    let (code, stderr, _) = kept.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("del --prefix {prefix}"))
            && stderr.contains(&format!(
                "a lock key still under {prefix}lock/ goes when its lease's TTL runs out"
            )),
        "{stderr}"
    );
    let left = etcdctl(&survivors, &["get", "--prefix", &prefix, "--keys-only"]);
    assert!(left.contains(&format!("{prefix}lock/file-lock")), "{left}");
}

/// The events named `name`.
fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

fn seconds_of(event: &Value) -> f64 {
    event["t"]
        .as_f64()
        .unwrap_or_else(|| panic!("no time: {event}"))
}

fn story(events: &[Value]) -> String {
    events
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// gc-pause on a new three-node cluster whose leader is killed `at` seconds in (SIGKILL, or
/// with `gently` SIGTERM), the clients starting on the leader so each must fail over. The
/// lesson must end as it should (exit 0, the summary, the run's keys deleted, nothing left);
/// its events are returned.
fn leader_killed(at: f64, gently: bool) -> Vec<Value> {
    let mut cluster = Cluster::start();
    let leader = cluster.leader().unwrap();
    let mut endpoints = cluster.endpoints();
    endpoints.rotate_left(leader);
    let mut lesson = Lesson::start(&["gc-pause", "--etcd", &endpoints.join(",")]);
    let live = lesson.next("live", None);
    let began = Instant::now();
    let run = text(&live["run"]).to_owned();
    let prefix = text(&live["prefix"]).to_owned();
    std::thread::sleep(Duration::from_secs_f64(at).saturating_sub(began.elapsed()));
    if gently {
        cluster.stop(leader);
    } else {
        cluster.kill(leader);
    }
    let (code, stderr, events) = lesson.finish();
    let how = if gently {
        "stopped (SIGTERM)"
    } else {
        "killed"
    };
    let what = format!("leader {how} at {at} s");
    assert_eq!(code, Some(0), "{what}: {stderr}\n{}", story(&events));
    assert_eq!(events.last().unwrap()["event"], "summary", "{what}");
    let survivors = endpoints[1..].join(",");
    let left = etcdctl(&survivors, &["get", "--prefix", &prefix, "--keys-only"]);
    assert_eq!(left.trim(), "", "{what}: the run's keys are deleted");
    nothing_left(&run);
    events
}

/// What every leader-kill lesson must have told, whatever etcd made of it: the new leader, in
/// place of the killed one; each lease the new leader kept past its planned end, before the
/// story turns on it; a late write that lands told as not stale; an expiry never before the
/// end etcd gave.
fn told_truly(at: f64, events: &[Value]) {
    let what = format!("leader killed at {at} s:\n{}", story(events));
    let changes = named(events, "etcd_leader_changed");
    let elected = changes
        .iter()
        .find(|e| e["leader"].is_string() && seconds_of(e) >= at)
        .unwrap_or_else(|| panic!("no new leader told: {what}"));
    assert!(
        text(&elected["says"]).contains("which no longer answers")
            && elected["old_leader"].is_string(),
        "the killed leader is named: {elected}"
    );
    let grants = named(events, "grant");
    let token_of =
        |client: &str| int(&grants.iter().find(|g| g["client"] == client).unwrap()["token"]);
    let t1 = token_of("client-1");
    let outlived = named(events, "etcd_lease_outlived");
    let outlived_of = |token: u64| outlived.iter().find(|o| int(&o["token"]) == token).copied();
    // The lease held when the leader died lives on: the new leader renewed it.
    let holder = if at < 10.0 { "client-1" } else { "client-2" };
    let kept = outlived_of(token_of(holder)).unwrap_or_else(|| {
        panic!("{holder}'s lease, renewed by the new leader, is not told: {what}")
    });
    assert!(
        seconds_of(kept) >= seconds_of(elected)
            && kept["ends_about"].as_f64() > kept["planned_end"].as_f64(),
        "{kept}"
    );
    // An expiry comes no sooner than etcd's figure for it (its TTL is told in whole seconds).
    for expiry in named(events, "expire") {
        if let Some(o) = outlived_of(int(&expiry["token"])) {
            assert!(
                seconds_of(expiry) + 1.0 >= o["ends_about"].as_f64().unwrap(),
                "{expiry} before {o}"
            );
        }
    }
    // A client refused while client 1's kept lease still holds the lock is told why first.
    for refused in named(events, "acquire_refused") {
        if refused["holder"] == "client-1" && seconds_of(refused) > 10.5 {
            let told = outlived_of(t1).map(seconds_of);
            assert!(
                told.is_some_and(|t| t <= seconds_of(refused) + 0.5),
                "{refused} comes before the lease's news: {what}"
            );
        }
    }
    let late = named(events, "write")
        .into_iter()
        .find(|w| w["client"] == "client-1" && int(&w["token"]) == t1)
        .unwrap_or_else(|| panic!("client 1's late write is missing: {what}"));
    match text(&late["outcome"]) {
        "rejected" => assert!(int(&late["highest"]) > t1, "{late}"),
        _ if late["lease_live"] == true => {
            let told = named(events, "etcd_not_stale")
                .into_iter()
                .any(|n| n["client"] == "client-1" && seconds_of(n) == seconds_of(late));
            assert!(
                told,
                "client 1's write landed while it held the lock, and that is not told: {what}"
            );
        }
        _ => {
            // Its lease had ended, and no one had written since: nothing to compare with.
            assert!(late["highest"].is_null(), "{what}");
        }
    }
    if at > 12.0 {
        assert_eq!(
            text(&late["outcome"]),
            "rejected",
            "client 2 wrote at 12 s: {what}"
        );
    }
    lesson_told_truly(events, &grants, late, &what);
}

/// The simulated lesson's sentences are told only where etcd played the script: no caption of
/// the beat at 11 s or after (beat 5 on) unless client 2 took the lock then; the question only
/// just before client 1's late write, with etcd's verdict just after; every token named one
/// etcd gave.
fn lesson_told_truly(events: &[Value], grants: &[&Value], late: &Value, what: &str) {
    let client_2_took_it = grants
        .iter()
        .any(|g| g["client"] == "client-2" && (11.0..12.0).contains(&seconds_of(g)));
    let tokens: Vec<u64> = grants.iter().map(|g| int(&g["token"])).collect();
    for caption in named(events, "caption") {
        let beat = int(&caption["beat"]);
        assert!(
            beat < 5 || client_2_took_it,
            "beat {beat}'s caption told though client 2 did not take the lock at 11 s: {what}"
        );
        let says = text(&caption["says"]);
        for named in says.split("token ").skip(1) {
            let digits: String = named.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(token) = digits.parse::<u64>() {
                assert!(
                    tokens.contains(&token),
                    "{says:?} names token {token}: {what}"
                );
            }
        }
    }
    let at = |event: &Value| events.iter().position(|e| e == event).unwrap();
    for question in named(events, "question") {
        assert!(client_2_took_it, "{question} asked: {what}");
        assert_eq!(
            at(question) + 1,
            at(late),
            "the question comes just before: {what}"
        );
        let answer = &events[at(late) + 1];
        assert_eq!(answer["event"], "answer", "{what}");
        let word = if late["outcome"] == "rejected" {
            "REJECTED"
        } else {
            "ACCEPTED"
        };
        assert!(
            text(&answer["says"]).starts_with(word),
            "{answer} for {late}"
        );
    }
}

/// How many times each leader kill is played (`FENCING_LAB_KILLS`, default 10).
fn kills() -> usize {
    std::env::var("FENCING_LAB_KILLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
}

/// The proof: the leader killed at 5 s (client 1's lease is live) and at 13 s (after
/// client 2's write), ten times each (every other time stopped with SIGTERM instead), on four
/// clusters at a time; every lesson ends with exit 0 and tells what etcd did.
#[test]
fn a_leader_killed_at_5_or_13_s_never_ends_the_lesson_and_is_told() {
    if !etcd_here("a_leader_killed_at_5_or_13_s_never_ends_the_lesson_and_is_told") {
        return;
    }
    let n = kills();
    // Each moment both ways in turn: SIGKILL, and the SIGTERM of `systemctl stop`.
    let moments: Vec<(f64, bool)> = (0..n)
        .flat_map(|i| [(5.0, i % 2 == 1), (13.0, i % 2 == 1)])
        .collect();
    let lanes = 4;
    let handles: Vec<_> = (0..lanes)
        .map(|lane| {
            let mine: Vec<(f64, bool)> =
                moments.iter().skip(lane).step_by(lanes).copied().collect();
            std::thread::spawn(move || {
                for (at, gently) in mine {
                    told_truly(at, &leader_killed(at, gently));
                }
            })
        })
        .collect();
    let failed = handles.into_iter().filter_map(|h| h.join().err()).count();
    assert_eq!(
        failed, 0,
        "{failed} of {lanes} lanes failed (their panics are above)"
    );
}

/// A follower killed while client 1 is paused: the clients that start on it move to the
/// others, the leader stays, and the lesson is told as planned.
#[test]
fn a_killed_follower_is_failed_over_and_changes_no_leader() {
    if !etcd_here("a_killed_follower_is_failed_over_and_changes_no_leader") {
        return;
    }
    let mut cluster = Cluster::start();
    let leader = cluster.leader().unwrap();
    let follower = (leader + 1) % 3;
    let mut endpoints = cluster.endpoints();
    endpoints.rotate_left(follower);
    let mut lesson = Lesson::start(&["gc-pause", "--etcd", &endpoints.join(",")]);
    let run = text(&lesson.next("live", None)["run"]).to_owned();
    lesson.next("acquire_refused", Some("client-3"));
    cluster.kill(follower);
    let (code, stderr, events) = lesson.finish();
    let what = story(&events);
    assert_eq!(code, Some(0), "{stderr}\n{what}");
    assert!(named(&events, "etcd_leader_changed").is_empty(), "{what}");
    let moved = named(&events, "etcd_endpoint_changed");
    assert!(
        moved
            .iter()
            .any(|m| m["client"] == "client-2" && m["endpoint"] != endpoints[0].as_str()),
        "client 2 moved off the killed member: {what}"
    );
    let late = named(&events, "write")
        .into_iter()
        .find(|w| w["client"] == "client-1")
        .unwrap();
    assert_eq!(text(&late["outcome"]), "rejected", "{what}");
    nothing_left(&run);
}

/// An `--etcd` that stops answering (SIGSTOP) ends the lesson within 2 s, in one sentence,
/// with the clients stopped and the way to delete the keys later.
#[test]
fn an_etcd_that_stops_answering_ends_the_lesson_within_2_s() {
    if !etcd_here("an_etcd_that_stops_answering_ends_the_lesson_within_2_s") {
        return;
    }
    let cluster = Cluster::of(1);
    let mut lesson = Lesson::start(&["gc-pause", "--etcd", &cluster.endpoints()[0]]);
    let live = lesson.next("live", None);
    let run = text(&live["run"]).to_owned();
    let prefix = text(&live["prefix"]).to_owned();
    lesson.next("acquire_refused", Some("client-3"));
    cluster.signal(0, "STOP");
    let stopped = Instant::now();
    let (code, stderr, _) = lesson.finish();
    let took = stopped.elapsed();
    cluster.signal(0, "CONT");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        took < Duration::from_secs(2),
        "the lesson took {took:?} to end"
    );
    let line = stderr.trim_end();
    assert_eq!(line.lines().count(), 1, "{stderr}");
    assert!(
        line.contains("etcd stopped answering: no member has answered for"),
        "{line}"
    );
    assert!(line.contains(&format!("del --prefix {prefix}")), "{line}");
    nothing_left(&run);
}

/// The lesson's own etcd killed in the middle: seen at once (it is the lesson's child), one
/// sentence, and nothing left, its directory included.
#[test]
fn the_lesson_s_own_etcd_killed_is_seen_at_once() {
    if !etcd_here("the_lesson_s_own_etcd_killed_is_seen_at_once") {
        return;
    }
    let mut lesson = Lesson::start(&["gc-pause"]);
    let live = lesson.next("live", None);
    let run = text(&live["run"]).to_owned();
    let etcd = int(&live["private"]["pid"]);
    lesson.next("acquire_refused", Some("client-3"));
    let sent = Command::new("kill")
        .args(["-s", "KILL", &etcd.to_string()])
        .status();
    assert!(sent.unwrap().success());
    let killed = Instant::now();
    let (code, stderr, _) = lesson.finish();
    let took = killed.elapsed();
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        took < Duration::from_millis(1500),
        "the lesson took {took:?} to end"
    );
    let line = stderr.trim_end();
    assert_eq!(line.lines().count(), 1, "{stderr}");
    assert!(
        line.contains(&format!("the lesson's etcd (pid {etcd}) ended at about")),
        "{line}"
    );
    assert!(line.contains("is removed"), "{line}");
    nothing_left(&run);
}
