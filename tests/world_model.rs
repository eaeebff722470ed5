//! Property test of the simulation: random scripts and random user inputs must keep the event
//! stream's invariants, replay exactly from recorded inputs, and survive time travel.

use std::collections::HashMap;
use std::sync::Arc;

use fencing_lab::sim::{
    Beat, BeatAction, Captions, ClientAction, ClientId, Event, EventKind, InputKind, LockId, Ms,
    Scenario, Session, Setup,
};
use proptest::prelude::*;

/// Times on the half-second grid lessons use, so that things coincide often: ordering bugs
/// live in ties (a client waking on exactly the tick its lease expires).
fn half_seconds(range: std::ops::Range<u64>) -> impl Strategy<Value = Ms> {
    range.prop_map(|k| k * 500)
}

fn client() -> impl Strategy<Value = ClientId> {
    (0..3usize).prop_map(|i| ClientId::ALL[i])
}

fn action() -> impl Strategy<Value = ClientAction> {
    prop_oneof![
        4 => prop::option::of(half_seconds(1..4)).prop_map(|retry| ClientAction::Acquire { lock: LockId::FIRST, retry }),
        2 => Just(ClientAction::Renew { lock: LockId::FIRST, token: None }),
        2 => Just(ClientAction::Release { lock: LockId::FIRST, token: None }),
        4 => (0..2usize, 0..100u32, prop::option::of(half_seconds(1..8))).prop_map(|(k, v, delay)| ClientAction::Write {
            lock: LockId::FIRST,
            key: ["a", "b"][k].to_owned(),
            value: format!("v{v}"),
            token: None,
            delay,
        }),
        2 => half_seconds(1..16).prop_map(|ms| ClientAction::Pause { ms }),
        1 => half_seconds(1..10).prop_map(|down| ClientAction::Crash { down }),
    ]
}

fn beat() -> impl Strategy<Value = (Ms, Option<BeatAction>)> {
    (
        half_seconds(0..40),
        prop_oneof![
            8 => (client(), action()).prop_map(|(client, action)| Some(BeatAction::Client { client, action })),
            1 => any::<bool>().prop_map(|on| Some(BeatAction::Fencing { on })),
            1 => Just(None),
        ],
    )
}

fn input() -> impl Strategy<Value = (Ms, InputKind)> {
    (
        half_seconds(0..50),
        prop_oneof![
            3 => client().prop_map(|client| InputKind::Pause { client }),
            2 => client().prop_map(|client| InputKind::Crash { client }),
            1 => client().prop_map(|client| InputKind::Delay { client }),
            1 => any::<bool>().prop_map(|on| InputKind::Fencing { on }),
        ],
    )
}

fn scenario(lease_ms: Ms, mut beats: Vec<(Ms, Option<BeatAction>)>) -> Arc<Scenario> {
    beats.sort_by_key(|b| b.0);
    let mut scenario = Scenario::built_in("gc-pause").unwrap();
    scenario.name = "random".into();
    scenario.lease_ms = lease_ms;
    scenario.lease_seconds = lease_ms as f64 / 1000.0;
    scenario.end = 30_000;
    scenario.beats = beats
        .into_iter()
        .map(|(at, action)| Beat {
            at,
            action,
            captions: Captions {
                fenced: "c".into(),
                unfenced: None,
                strict: None,
                global: None,
            },
            ask: None,
        })
        .collect();
    Arc::new(scenario)
}

/// The invariants every stream keeps, whatever the script and the user do.
fn check(events: &[Event]) -> Result<(), String> {
    let mut last_token = 0;
    let mut live: Option<u64> = None;
    let mut fencing = true;
    let mut highest: HashMap<&str, u64> = HashMap::new();
    let mut last_t = 0;
    for e in events {
        if e.t < last_t {
            return Err(format!("time went back at {}", e.t));
        }
        last_t = e.t;
        match &e.kind {
            EventKind::Grant { token, .. } => {
                if *token <= last_token {
                    return Err(format!("{} ms: token {token} after {last_token}", e.t));
                }
                if let Some(other) = live {
                    return Err(format!(
                        "{} ms: grant of {token} while {other} is live",
                        e.t
                    ));
                }
                last_token = *token;
                live = Some(*token);
            }
            EventKind::Expire { token, .. } | EventKind::Release { token, .. } => {
                if live != Some(*token) {
                    return Err(format!("{} ms: {token} ended but {live:?} was live", e.t));
                }
                live = None;
            }
            EventKind::Renew { token, .. } if live != Some(*token) => {
                return Err(format!("{} ms: renewed {token} but {live:?} was live", e.t));
            }
            EventKind::Fencing { on } => fencing = *on,
            EventKind::Write { key, verdict, .. } => {
                let (token, accepted, before) =
                    (&verdict.token, &verdict.accepted, &verdict.key_highest);
                let h = highest.get(key.as_str()).copied();
                if *before != h {
                    return Err(format!(
                        "{} ms: write says highest {before:?}, stream says {h:?}",
                        e.t
                    ));
                }
                let stale = h.is_some_and(|h| *token < h);
                if fencing && *accepted && stale {
                    return Err(format!(
                        "{} ms: stale token {token} accepted with fencing",
                        e.t
                    ));
                }
                if fencing && !*accepted && !stale {
                    return Err(format!("{} ms: honest token {token} refused", e.t));
                }
                if *accepted {
                    highest.insert(key.as_str(), h.map_or(*token, |h| h.max(*token)));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_scripts_and_inputs_keep_the_invariants(
        lease_ms in half_seconds(1..12),
        beats in prop::collection::vec(beat(), 1..40),
        inputs in prop::collection::vec(input(), 0..8),
        back_to in 0..30_000u64,
    ) {
        let scenario = scenario(lease_ms, beats);
        // The script alone never makes more events than validation's bound allows for.
        let scripted = Session::played_to(Setup::new(scenario.clone()), 30_000);
        let made = scripted.world().events().len() as u64;
        prop_assert!(
            made <= scenario.worst_case_events(30_000),
            "{} events, bound {}", made, scenario.worst_case_events(30_000)
        );
        // Live: the user steps to each input's moment and presses the key.
        let mut inputs = inputs;
        inputs.sort_by_key(|i| i.0);
        let setup = Setup::new(scenario.clone());
        let mut live = Session::new(setup.clone());
        for (t, kind) in &inputs {
            live.seek(*t);
            live.inject(*kind);
        }
        live.seek(30_000);
        let events = live.world().events().to_vec();
        if let Err(why) = check(&events) {
            prop_assert!(false, "{}", why);
        }

        // Replayed from the recorded inputs: the same stream.
        let mut replay = Session::with_inputs(setup, live.inputs().to_vec());
        replay.seek(30_000);
        prop_assert_eq!(replay.world().events(), &events[..]);

        // Travelled back and forward again: the same stream.
        live.seek(back_to);
        prop_assert!(live.world().events().iter().all(|e| e.t <= back_to));
        let prefix = events.iter().filter(|e| e.t <= back_to).count();
        prop_assert_eq!(live.world().events(), &events[..prefix]);
        live.seek(30_000);
        prop_assert_eq!(live.world().events(), &events[..]);

        // The storage's own books agree with the stream.
        let stats = live.world().stats();
        let accepted = events.iter().filter(|e| e.kind.verdict().is_some_and(|v| v.accepted)).count() as u64;
        prop_assert_eq!(stats.writes_accepted, accepted);
        let grants = events.iter().filter(|e| matches!(e.kind, EventKind::Grant { .. })).count() as u64;
        prop_assert_eq!(stats.grants, grants);
    }
}

/// The lab's lesson on a student's program stops trusting the run once the program breaks: the
/// world must pass on the backend's fault, word for word, and report none while there is none.
#[test]
fn the_world_reports_its_backends_fault_word_for_word() {
    use fencing_lab::sim::{built_in, World};
    let scenario = Arc::new(Scenario::built_in("gc-pause").expect("built-in lesson"));
    let fault = Arc::new(std::sync::Mutex::new(None::<String>));
    let shared = fault.clone();
    let mut setup = Setup::new(scenario);
    setup.backend = Arc::new(move |scenario: &Scenario, check| {
        let mut backend = built_in()(scenario, check);
        backend.fault = Some(shared.clone());
        backend
    });
    let mut world = World::new(&setup, &[], fencing_lab::sim::Keep::All);
    assert_eq!(world.fault(), None);
    world.advance_to(5_000, &[]);
    let told = world.events().len();
    assert!(world.next_due(&[]).is_some());
    *fault.lock().unwrap() = Some("the program exited with status 3".to_owned());
    assert_eq!(
        world.fault().as_deref(),
        Some("the program exited with status 3")
    );
    // The run stops where the program did: nothing is due, time does not move, nothing more is
    // told.
    assert_eq!(world.next_due(&[]), None);
    world.advance_to(20_000, &[]);
    assert_eq!((world.now(), world.events().len()), (5_000, told));
    // A replay on a program already stopped tells nothing at all, not a story of refusals.
    let mut replay = World::new(&setup, &[], fencing_lab::sim::Keep::All);
    replay.advance_to(20_000, &[]);
    assert_eq!((replay.now(), replay.events().len()), (0, 0));
}
