//! The lessons that come with the tool, compiled in from `assets/scenarios/`, and how a name on
//! the command line finds one (or a file).

use std::path::Path;
use std::sync::OnceLock;

use super::{Scenario, ScenarioError};

const BUILT_IN: &[(&str, &str)] = &[
    (
        "gc-pause",
        include_str!("../../../assets/scenarios/gc-pause.toml"),
    ),
    (
        "late-release",
        include_str!("../../../assets/scenarios/late-release.toml"),
    ),
    (
        "renew",
        include_str!("../../../assets/scenarios/renew.toml"),
    ),
    (
        "heartbeat",
        include_str!("../../../assets/scenarios/heartbeat.toml"),
    ),
    (
        "per-key",
        include_str!("../../../assets/scenarios/per-key.toml"),
    ),
    (
        "two-locks",
        include_str!("../../../assets/scenarios/two-locks.toml"),
    ),
    (
        "lapsed-write",
        include_str!("../../../assets/scenarios/lapsed-write.toml"),
    ),
    (
        "crash-restart",
        include_str!("../../../assets/scenarios/crash-restart.toml"),
    ),
    (
        "network-delay",
        include_str!("../../../assets/scenarios/network-delay.toml"),
    ),
    (
        "clock-jump",
        include_str!("../../../assets/scenarios/clock-jump.toml"),
    ),
    (
        "chaos",
        include_str!("../../../assets/scenarios/chaos.toml"),
    ),
];

impl Scenario {
    /// The names of the built-in scenarios, in lesson order.
    pub fn built_in_names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(name, _)| *name)
    }

    /// The built-in scenario `name`.
    pub fn built_in(name: &str) -> Option<Scenario> {
        Scenario::all_built_in()
            .iter()
            .find(|s| s.name == name)
            .cloned()
    }

    /// Every built-in scenario, in lesson order, parsed once (the picker lists them per frame).
    pub fn all_built_in() -> &'static [Scenario] {
        static PARSED: OnceLock<Vec<Scenario>> = OnceLock::new();
        PARSED.get_or_init(|| {
            BUILT_IN
                .iter()
                .map(|(name, text)| {
                    match Scenario::parse(name, &format!("built-in scenario '{name}'"), text) {
                        Ok(scenario) => scenario,
                        Err(err) => panic!("a built-in scenario is invalid: {err}"),
                    }
                })
                .collect()
        })
    }

    /// A built-in name, or else a path to a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<Scenario, ScenarioError> {
        if let Some(scenario) = Scenario::built_in(name_or_path) {
            return Ok(scenario);
        }
        let path = Path::new(name_or_path);
        let looks_like_path = name_or_path.ends_with(".toml") || name_or_path.contains('/');
        if !looks_like_path && !path.exists() {
            let names: Vec<_> = Scenario::built_in_names().collect();
            return Err(ScenarioError {
                source: name_or_path.to_owned(),
                line: None,
                message: format!(
                    "no built-in scenario has this name and no such file exists; \
                     the built-in ones are {}",
                    names.join(", ")
                ),
            });
        }
        Scenario::from_file(path)
    }
}
