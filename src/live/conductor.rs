//! A live run from start to end: etcd (the lesson's own, or a cluster under a prefix of the
//! run's own), a probe of the TTL etcd grants, the three client processes, the lesson played,
//! and everything stopped and cleaned up afterwards, whatever happened.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::captions::Captions;
use super::fleet::Fleet;
use super::gateway::Etcd;
use super::http::Url;
use super::keys::{self, Layout};
use super::observer::{Leaders, Observer};
use super::ops;
use super::plan;
use super::play::{Play, Stage};
use super::said::{Fault, Finished, Private, Said, Start};
use super::server::{self, PrivateEtcd};
use crate::sim::{EventKind, Ms, Scenario, Stats};

/// One request on one endpoint waits at most this long.
const TIMEOUT: Duration = Duration::from_secs(2);
/// A call during the lesson tries endpoints this long (an election takes a second or two).
const PATIENCE: Duration = Duration::from_secs(8);
/// The first call, which finds out whether etcd is there at all, gives up sooner when no
/// endpoint answers at all (a cluster electing a leader is waited for as long as any call).
const FIRST_SILENCE: Duration = Duration::from_secs(3);

/// What a live run is asked to do.
pub struct Settings {
    pub scenario: Arc<Scenario>,
    pub fencing: bool,
    pub seed: u64,
    /// `--until`: stop then, and leave the data in place.
    pub until: Option<Ms>,
    /// `--etcd`: a cluster's endpoints; `None` for the lesson's own etcd.
    pub etcd: Option<Vec<Url>>,
    /// This program, which the client processes run.
    pub exe: PathBuf,
    /// Set by a signal or the UI: stop now, and clean up.
    pub stop: Arc<AtomicBool>,
}

/// The sentence for a missing etcd.
pub const NO_ETCD: &str =
    "the live lesson needs etcd, and there is no `etcd` on the PATH: install \
     etcd (e.g. `apt-get install etcd-server etcd-client`), or give --etcd URL of a running one";

/// Plays the lesson on etcd, telling `say` as it goes; how it ended, or why it could not be
/// told. Either way no process, no etcd of its own and no temporary directory is left behind
/// (with `--until` the data is kept, and the last report says where).
pub fn run(settings: &Settings, say: &mut dyn FnMut(Said)) -> Result<Finished, Fault> {
    if let Some(why) = plan::refusal(&settings.scenario) {
        return Err(Fault(why));
    }
    let run_id = keys::run_id();
    let layout = Layout::new(&run_id);
    let (urls, private) = match &settings.etcd {
        Some(urls) => (urls.clone(), None),
        None => {
            let program = server::find_etcd().ok_or_else(|| Fault(NO_ETCD.into()))?;
            let etcd = PrivateEtcd::start(&program, &run_id).map_err(Fault)?;
            (vec![etcd.url().clone()], Some(etcd))
        }
    };
    let mut stats = Stats::default();
    let mut counting = |said: Said| {
        if let Said::Event { event, .. } = &said {
            match &event.kind {
                EventKind::Grant { .. } => stats.grants += 1,
                EventKind::Write {
                    verdict,
                    lease_live,
                    ..
                } => stats.count(verdict, *lease_live),
                _ => {}
            }
        }
        say(said);
    };
    let (mut wrote, mut silent) = (false, false);
    let mut captions = Captions::new(
        Arc::clone(&settings.scenario),
        settings.seed,
        settings.fencing,
    );
    let played = play(
        settings,
        &urls,
        private.as_ref(),
        (&run_id, &layout),
        (&mut wrote, &mut silent),
        &mut |said| captions.relay(said, &mut counting),
    );
    if let Ok((at, _)) = &played {
        captions.finish(*at, &mut counting);
    }
    let kept = played.is_ok() && settings.until.is_some();
    let afterwards = if wrote || private.is_some() {
        clean_up(&urls, private, &layout, (kept, silent))
    } else {
        "nothing was written to etcd".to_owned()
    };
    match played {
        Ok((at, fencing)) => Ok(Finished {
            stats,
            at,
            fencing,
            afterwards,
            kept,
        }),
        Err(Fault(why)) => Err(Fault(format!("{why}; {afterwards}"))),
    }
}

/// The part of a run with etcd up: the probe, the processes, the lesson.
fn play(
    settings: &Settings,
    urls: &[Url],
    private: Option<&PrivateEtcd>,
    (run_id, layout): (&str, &Layout),
    (wrote, silent): (&mut bool, &mut bool),
    say: &mut dyn FnMut(Said),
) -> Result<(Ms, bool), Fault> {
    let scenario = Arc::clone(&settings.scenario);
    let shown: Vec<String> = urls.iter().map(Url::to_string).collect();
    let ttl_asked = plan::ttl_of(scenario.lease_seconds);
    // The probe: is etcd there, and what does it make of this TTL (its minimum may be higher)?
    let mut admin = Etcd::new(urls, TIMEOUT, PATIENCE).with_silence(FIRST_SILENCE);
    let (probe, ttl_granted) = ops::grant(&mut admin, ttl_asked)
        .map_err(|e| Fault(format!("cannot use etcd at {}: {e}", shown.join(", "))))?;
    let _ = ops::release(&mut admin, probe);
    interrupted(settings)?;
    // From here on the clients may write under the run's prefix.
    *wrote = true;
    let endpoints = shown.join(",");
    let fleet = Fleet::start(&settings.exe, &endpoints, layout.prefix(), run_id).map_err(Fault)?;
    let pids = crate::sim::ClientId::ALL.map(|c| fleet.pid(c).unwrap_or(0));
    interrupted(settings)?;
    let end = plan::end_of(&scenario, settings.until);
    let start = Instant::now();
    say(Said::Start(Start {
        run_id: run_id.to_owned(),
        prefix: layout.prefix().to_owned(),
        endpoints: shown,
        private: private.map(|p| Private {
            pid: p.pid().unwrap_or(0),
            dir: p.dir().to_owned(),
            version: p.version().to_owned(),
        }),
        lease_seconds: scenario.lease_seconds,
        ttl_asked,
        ttl_granted,
        pids,
        end,
        keeps: settings.until.is_some(),
    }));
    let observer = Observer::start(urls, layout, start, TIMEOUT, PATIENCE);
    let leaders = Leaders::start(urls, start);
    let reader = Etcd::new(urls, TIMEOUT, PATIENCE);
    let stage = Stage {
        scenario,
        layout: layout.clone(),
        fencing: settings.fencing,
        seed: settings.seed,
        end,
        stop: Arc::clone(&settings.stop),
        etcd_pid: private.and_then(PrivateEtcd::pid),
        endpoints,
    };
    let mut play = Play::new(stage, fleet, reader, (observer, leaders), start, say);
    let result = play.run();
    *silent = play.etcd_silent;
    Ok((result?, play.fencing))
}

fn interrupted(settings: &Settings) -> Result<(), Fault> {
    if settings.stop.load(Ordering::SeqCst) {
        return Err(Fault("interrupted before the lesson began".into()));
    }
    Ok(())
}

/// Stops the lesson's etcd and removes its directory, or deletes the run's keys from the
/// cluster; with `keep`, leaves the data and says where; a cluster that stopped answering
/// (`silent`) is not asked, and the sentence says how to delete the keys later. One sentence
/// either way.
fn clean_up(
    urls: &[Url],
    private: Option<PrivateEtcd>,
    layout: &Layout,
    (keep, silent): (bool, bool),
) -> String {
    let prefix = layout.prefix();
    let endpoints: Vec<String> = urls.iter().map(Url::to_string).collect();
    let endpoints = endpoints.join(",");
    if silent && private.is_none() {
        // Asking a silent etcd to delete the keys would only wait out its patience.
        return format!(
            "the client processes are stopped; the run's keys under {prefix} are left in etcd, \
             which is not answering: when it is back, delete them with `etcdctl --endpoints \
             {endpoints} del --prefix {prefix}`"
        );
    }
    match (private, keep) {
        (Some(etcd), false) => {
            let (pid, dir) = (etcd.pid().unwrap_or(0), etcd.dir().display().to_string());
            match etcd.stop() {
                Ok(()) => format!(
                    "the client processes and the lesson's etcd (pid {pid}) are stopped, and {dir} is removed"
                ),
                Err(why) => format!(
                    "the client processes and the lesson's etcd (pid {pid}) are stopped, but {why}"
                ),
            }
        }
        (Some(etcd), true) => {
            let reopen = etcd.reopen_command();
            let url = etcd.url().to_string();
            let dir = etcd.stop_keeping_data();
            format!(
                "the client processes and the lesson's etcd are stopped, and etcd's data is kept in \
                 {}: to look, run `{reopen}` \
                 and then `etcdctl --endpoints {url} get --prefix {prefix}`; a lock key still \
                 under {prefix}lock/ goes when its lease's TTL runs out once etcd runs again, \
                 since no client renews it; remove the directory when you are done",
                dir.display()
            )
        }
        (None, false) => {
            let mut etcd = Etcd::new(urls, TIMEOUT, PATIENCE);
            match ops::delete_run(&mut etcd, layout) {
                Ok(n) => format!(
                    "the client processes are stopped, and the run's {} under {prefix} deleted from etcd",
                    crate::sim::text::counted(n, "key", "keys")
                ),
                Err(e) => format!(
                    "the run's keys under {prefix} could not be deleted ({e}); delete them with \
                     `etcdctl --endpoints {endpoints} del --prefix {prefix}`"
                ),
            }
        }
        (None, true) => format!(
            "the client processes are stopped, and the run's keys are left in etcd under {prefix}: look with `etcdctl --endpoints \
             {endpoints} get --prefix {prefix}`, and delete them with `etcdctl --endpoints \
             {endpoints} del --prefix {prefix}`; a lock key still under {prefix}lock/ goes \
             when its lease's TTL runs out, since the client that renewed it is stopped"
        ),
    }
}
