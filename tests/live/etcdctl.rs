//! The `etcdctl txn` a live lesson prints for a write is the transaction it sent: pasted into a
//! shell after the lesson (`--until` keeps the keys), it does what the lesson said etcd did.

use std::process::Command;

use super::failover::Cluster;
use super::{etcd_here, etcdctl, int, text, Lesson};

/// Client 1's late write, sent again by pasting its `etcdctl` line: fenced, etcd refuses it
/// again (the compare holds, so the branch that only reads runs) and client 2's data stays;
/// unfenced, it lands.
fn pasted_late_write(fenced: bool) {
    let cluster = Cluster::of(1);
    let endpoint = cluster.endpoints()[0].clone();
    let mut args = vec!["gc-pause", "--etcd", &endpoint, "--until", "17"];
    if !fenced {
        args.push("--no-fencing");
    }
    let mut lesson = Lesson::start(&args);
    let prefix = text(&lesson.next("live", None)["prefix"]).to_owned();
    let late = lesson.next("write", Some("client-1"));
    let (code, stderr, events) = lesson.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let command = text(&late["etcdctl"]);
    assert!(
        command.starts_with(&format!("etcdctl --endpoints={endpoint} txn <<'EOF'\n")),
        "{command}"
    );
    // Every transaction of the lesson is told, and only transactions are.
    for event in &events {
        let is_txn = matches!(event["event"].as_str(), Some("write" | "grant"));
        assert_eq!(event.get("etcdctl").is_some(), is_txn, "{event}");
    }
    let data = format!("{prefix}data/file");
    let before = etcdctl(&endpoint, &["get", &data, "--print-value-only"]);
    let out = Command::new("bash")
        .arg("-c")
        .arg(command)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{command}\n{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = etcdctl(&endpoint, &["get", &data, "--print-value-only"]);
    let highest = int(&late["highest"]);
    assert!(highest > int(&late["token"]), "{late}");
    if fenced {
        assert_eq!(text(&late["outcome"]), "rejected");
        assert_eq!(
            said.lines().next(),
            Some("SUCCESS"),
            "the compare holds: {said}"
        );
        assert_eq!(
            (before.trim(), after.trim()),
            ("client 2's data", "client 2's data")
        );
    } else {
        assert_eq!(text(&late["outcome"]), "corrupted");
        assert_eq!(said.lines().next(), Some("SUCCESS"), "{said}");
        assert_eq!(
            after.trim(),
            "client 1's data",
            "no check: the value lands again"
        );
    }
    let highest_after = etcdctl(
        &endpoint,
        &[
            "get",
            &format!("{prefix}highest/file"),
            "--print-value-only",
        ],
    );
    assert_eq!(
        highest_after.trim().parse::<u64>().ok(),
        Some(highest),
        "{highest_after}"
    );
}

#[test]
fn a_pasted_etcdctl_txn_does_what_the_lesson_said_etcd_did() {
    if !etcd_here("a_pasted_etcdctl_txn_does_what_the_lesson_said_etcd_did") {
        return;
    }
    super::in_parallel(vec![
        ("fenced", || pasted_late_write(true)),
        ("unfenced", || pasted_late_write(false)),
    ]);
}
