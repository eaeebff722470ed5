use std::process::Command;

use super::*;
use crate::lab::program::Program;
use crate::lab::testing::{lab_path, PATIENTLY, SH_HELLO};
use crate::sim::backend::Backend;
use crate::LeaseError;

fn share(command: Command) -> Shared {
    Arc::new(Mutex::new(Program::start(command, PATIENTLY).unwrap()))
}

/// The correct Python solution in a starter laid out as `lab init` does.
fn python() -> (Shared, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    crate::lab::starter::init("python", dir.path()).unwrap();
    std::fs::copy(
        lab_path("zoo/python-raise-none/lock_service.py"),
        dir.path().join("lock_service.py"),
    )
    .unwrap();
    let mut command = Command::new("python3");
    command.arg(dir.path().join("adapter.py"));
    (share(command), dir)
}

/// What a program that follows the clock answers to the experiments the backend runs first
/// (profile.rs): a lease of 5 s with token 7 at 0, renewed at 4 and 6, and token 8 at 5000.
const EXPERIMENTS: [&str; 40] = [
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":7,"expires_at":5.0}}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":7,"expires_at":9.0}}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":7,"expires_at":11.0}}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":8,"expires_at":5005.0}}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"returned":5}"#,
    // A lease long over is free.
    r#"{"id":#,"returned":{"token":9,"expires_at":5005.0}}"#,
    // Which calls use a token: two grants around a refused acquire, a renew, a release.
    r#"{"id":#,"returned":{"token":10,"expires_at":5005.0}}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"returned":{"token":11,"expires_at":5005.0}}"#,
    r#"{"id":#,"returned":{"token":11,"expires_at":5005.0}}"#,
    r#"{"id":#,"returned":{"token":12,"expires_at":5005.0}}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"returned":{"token":13,"expires_at":5005.0}}"#,
    // A short lease, timed in real time while the clock stands still.
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":1,"expires_at":0.02}}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"returned":null}"#,
    // A lease just granted, live at once to another client's acquire, holder, renew, release.
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":1,"expires_at":5.0}}"#,
    r#"{"id":#,"returned":null}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":1,"expires_at":5.0}}"#,
    r#"{"id":#,"returned":"client-1"}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":1,"expires_at":5.0}}"#,
    r#"{"id":#,"returned":{"token":1,"expires_at":5.0}}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"done":true}"#,
    r#"{"id":#,"returned":{"token":1,"expires_at":5.0}}"#,
    r#"{"id":#,"returned":null}"#,
];

/// A program that says hello, answers the experiments, then answers the next requests with
/// `replies` in turn (`#` stands for the request's id), whatever they ask, and exits.
fn scripted(replies: &[&str]) -> Shared {
    let mut script = SH_HELLO.to_owned();
    let all: Vec<&str> = EXPERIMENTS.iter().chain(replies).copied().collect();
    for (id, reply) in all.iter().enumerate() {
        script += &format!(
            "\nread l; echo '{}'",
            reply.replace('#', &(id + 1).to_string())
        );
    }
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    share(command)
}

/// gc-pause, with a lease and a first token no implementation defaults to.
fn scenario() -> Scenario {
    let mut scenario = Scenario::built_in("gc-pause").unwrap();
    scenario.lease_seconds = 8.0;
    scenario.first_token = 40;
    scenario
}

fn calls(program: &Shared) -> u64 {
    program.lock().unwrap().answered() + 1
}

fn lease(client: &str, token: u64, granted_at: f64, expires_at: f64) -> Lease {
    Lease {
        name: "file-lock".into(),
        client_id: client.into(),
        token,
        granted_at,
        expires_at,
    }
}

fn differences(backend: &Backend) -> Vec<Difference> {
    backend.differences.lock().unwrap().clone()
}

/// Where the program answers as the seed does, the world hears the seed's own account: its
/// reasons and its check.
#[test]
fn a_correct_program_is_told_in_the_seeds_own_words() {
    if !crate::lab::testing::python3() {
        return;
    }
    let (program, _dir) = python();
    let make = factory(Arc::clone(&program));
    let experimented = calls(&program);
    assert_eq!(
        experimented,
        1 + EXPERIMENTS.len() as u64,
        "hello and the experiments"
    );
    let backend = make(&scenario(), FenceCheck::PerKey);
    let Backend {
        mut locks,
        mut storage,
        ..
    } = backend;
    assert_eq!(calls(&program), experimented + 1, "new");
    assert_eq!(locks.next_token(), NextToken::Unknown);
    locks.set_time(0.0);
    assert_eq!(
        calls(&program),
        experimented + 1,
        "the clock is sent only when it changes"
    );
    assert_eq!(
        locks.acquire("file-lock", "client-1"),
        Some(lease("client-1", 40, 0.0, 8.0))
    );
    locks.set_time(3.0);
    assert_eq!(locks.acquire("file-lock", "client-3"), None);
    assert_eq!(locks.holder("file-lock"), ClientId::from_number(1));
    assert_eq!(
        locks.renew("file-lock", "client-1", 40),
        Ok(lease("client-1", 40, 0.0, 11.0)),
        "a renew keeps the grant's time, as the library's does"
    );
    // The seed's reason, with its code, where the program refused as the seed did.
    let refused = locks.renew("file-lock", "client-3", 40).unwrap_err();
    assert!(
        matches!(refused, Refusal::Lease(LeaseError::HeldByOther { .. })),
        "{refused:?}"
    );
    assert_eq!(refused.code(), "held_by_other");
    let refused = locks.release("file-lock", "client-3", 40).unwrap_err();
    assert_eq!(refused.code(), "held_by_other");
    assert_eq!(locks.release("file-lock", "client-1", 40), Ok(()));
    assert_eq!(locks.holder("file-lock"), None);
    // The seed's check judged every write the program judged alike.
    let v = storage.write("file", "a", 2);
    assert_eq!(
        (v.judge, v.accepted),
        (Judge::Check(FenceCheck::PerKey), true)
    );
    let v = storage.write("file", "b", 1);
    assert_eq!(
        (v.judge, v.accepted, v.key_highest),
        (Judge::Check(FenceCheck::PerKey), false, Some(2))
    );
    assert_eq!(storage.judge(), Judge::External);
    assert!(!storage.set_check(FenceCheck::Strict));
    let entries = storage.entries();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (entries[0].1.value.as_str(), entries[0].1.highest),
        ("a", 2)
    );
    let backend = factory(Arc::clone(&program))(&scenario(), FenceCheck::PerKey);
    assert_eq!(differences(&backend), []);
}

/// Where the program answers otherwise, the world hears what it really returned, and the
/// difference is noted with its rule. A difference that leaves the program's state unlike the
/// seed's (a renew's new token) is the last noted: the program's later answers are still told as
/// they are, but the seed, answering another state, would charge them to rules the code may not
/// break.
#[test]
fn a_wrong_program_is_told_as_it_answered_and_noted_until_its_state_differs() {
    let program = scripted(&[
        r#"{"id":#,"done":true}"#,
        r#"{"id":#,"done":true}"#,
        r#"{"id":#,"returned":{"token":40,"expires_at":12.0}}"#,
        r#"{"id":#,"done":true}"#,
        r#"{"id":#,"returned":{"token":41,"expires_at":13.0}}"#,
        r#"{"id":#,"threw":"not yours"}"#,
        // write x 3, read back
        r#"{"id":#,"returned":null,"shown":"None"}"#,
        r#"{"id":#,"returned":"x"}"#,
        r#"{"id":#,"returned":3}"#,
        // write y 2: stale, let through
        r#"{"id":#,"returned":null,"shown":"None"}"#,
        r#"{"id":#,"returned":"y"}"#,
        r#"{"id":#,"returned":3}"#,
    ]);
    let backend = factory(Arc::clone(&program))(&scenario(), FenceCheck::PerKey);
    let noted = Arc::clone(&backend.differences);
    let Backend {
        mut locks,
        mut storage,
        ..
    } = backend;
    locks.set_time(4.0);
    // The program's lease lasts 8 s from 4.0 as it should: no difference.
    assert_eq!(
        locks.acquire("file-lock", "client-1"),
        Some(lease("client-1", 40, 4.0, 12.0))
    );
    locks.set_time(5.0);
    // A renew that hands out a new token: drawn as the program's lease, token 41.
    assert_eq!(
        locks.renew("file-lock", "client-1", 40),
        Ok(lease("client-1", 41, 5.0, 13.0))
    );
    assert_eq!(
        locks.release("file-lock", "client-1", 40),
        Err(Refusal::Said("not yours".into()))
    );
    // A stale write the program let through, returning none.
    storage.write("file", "x", 3);
    let v = storage.write("file", "y", 2);
    assert_eq!((v.judge, v.accepted), (Judge::External, true));
    let noted = noted.lock().unwrap().clone();
    let rules: Vec<&str> = noted.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["renew-keeps-token"], "{noted:?}");
    assert_eq!(noted[0].call, "renew(file-lock, client-1, 40)");
    assert_eq!(noted[0].got, "lease token 41 (expires 13.0)");
    assert_eq!(
        noted[0].seed,
        "the seed gives token 40: renew keeps the lease's token"
    );
    // Reading back what the storage holds is the backend's own call, told as the program keeps
    // it.
    assert_eq!(storage.entries()[0].1.value, "y");
    assert_eq!(calls(&program), 1 + EXPERIMENTS.len() as u64 + 12);
}

/// Where the program agrees with the seed, the world hears the seed's lease, even where the
/// program's expiry differs in its last bits; where it differs, the program's own lease, its
/// time kept across a renew that keeps its token and its expiry drawn by the seed's rule when
/// it reported none; and a renew or release the seed refuses but the program grants is granted.
#[test]
fn the_world_hears_the_seeds_lease_where_they_agree_and_the_programs_where_they_differ() {
    let program = scripted(&[
        r#"{"id":#,"done":true}"#,
        r#"{"id":#,"done":true}"#,
        r#"{"id":#,"returned":{"token":40,"expires_at":12.000000000001}}"#,
        r#"{"id":#,"done":true}"#,
        r#"{"id":#,"returned":{"token":40,"expires_at":13.000000000001}}"#,
        r#"{"id":#,"done":true}"#,
        // Extended from the old expiry: 13 + 8.
        r#"{"id":#,"returned":{"token":40,"expires_at":21.0}}"#,
        r#"{"id":#,"done":true}"#,
        // Another token than the seed's 41, and no expiry.
        r#"{"id":#,"returned":{"token":45}}"#,
        // The seed refuses a renew with a token it never granted.
        r#"{"id":#,"returned":{"token":45,"expires_at":39.0}}"#,
        // ... and a release by a client that holds nothing.
        r#"{"id":#,"returned":null,"shown":"None"}"#,
    ]);
    let Backend { mut locks, .. } = factory(program)(&scenario(), FenceCheck::PerKey);
    locks.set_time(4.0);
    assert_eq!(
        locks.acquire("file-lock", "client-1"),
        Some(lease("client-1", 40, 4.0, 12.0))
    );
    locks.set_time(5.0);
    assert_eq!(
        locks.renew("file-lock", "client-1", 40),
        Ok(lease("client-1", 40, 4.0, 13.0))
    );
    locks.set_time(6.0);
    assert_eq!(
        locks.renew("file-lock", "client-1", 40),
        Ok(lease("client-1", 40, 4.0, 21.0)),
        "the program's expiry, the grant's time"
    );
    locks.set_time(30.0);
    assert_eq!(
        locks.acquire("file-lock", "client-2"),
        Some(lease("client-2", 45, 30.0, 38.0))
    );
    assert_eq!(
        locks.renew("file-lock", "client-2", 45),
        Ok(lease("client-2", 45, 30.0, 39.0))
    );
    assert_eq!(locks.release("file-lock", "client-3", 45), Ok(()));
}

/// Two runs alive at once over one program (a lesson's page finds its moments while it walks):
/// each finds the program in its own state, its calls answered as if it ran alone.
#[test]
fn runs_that_overlap_each_find_the_program_in_their_own_state() {
    if !crate::lab::testing::python3() {
        return;
    }
    let (program, _dir) = python();
    let make = factory(Arc::clone(&program));
    let mut first = make(&scenario(), FenceCheck::PerKey);
    first.locks.set_time(0.0);
    assert_eq!(
        first.locks.acquire("file-lock", "client-1"),
        Some(lease("client-1", 40, 0.0, 8.0))
    );
    // Another run starts over in the same program and takes two grants.
    let mut second = make(&scenario(), FenceCheck::PerKey);
    second.locks.set_time(0.0);
    assert_eq!(
        second.locks.acquire("file-lock", "client-2"),
        Some(lease("client-2", 40, 0.0, 8.0))
    );
    second.locks.set_time(9.0);
    assert_eq!(
        second.locks.acquire("file-lock", "client-3"),
        Some(lease("client-3", 41, 9.0, 17.0))
    );
    assert!(second.storage.write("file", "second's", 41).accepted);
    // The first run again: client 1 still holds its lease, the next grant is 41, and the
    // second run's write is not in its storage.
    first.locks.set_time(3.0);
    assert_eq!(first.locks.holder("file-lock"), ClientId::from_number(1));
    assert_eq!(first.locks.acquire("file-lock", "client-3"), None);
    first.locks.set_time(8.0);
    assert_eq!(
        first.locks.acquire("file-lock", "client-3"),
        Some(lease("client-3", 41, 8.0, 16.0))
    );
    assert!(first.storage.write("file", "first's", 40).accepted);
    // And the second run, back again, still has its own highest token for the key.
    second.locks.set_time(10.0);
    assert!(!second.storage.write("file", "late", 40).accepted);
    assert_eq!(differences(&first), []);
    assert_eq!(differences(&second), []);
}
