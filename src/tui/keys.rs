//! One key table per mode, as data: each dispatches the keys, fills the footer's hints and the
//! help overlay, so the three cannot drift apart. Key labels are rendered from the key codes.

use super::action::{Action, Mode};
use crate::sim::ClientId;

/// A key, as the tables name it: the terminal's keys (crossterm's, converted where the loop
/// reads them) and the page's (a browser's `KeyboardEvent.key`) are both this, so one table
/// serves both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyCode {
    Char(char),
    Enter,
    Esc,
    Left,
    Right,
    Up,
    Down,
    Tab,
    BackTab,
    /// Any other key: no table binds it.
    Other,
}

/// A key pressed, with whether Control was held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPress {
    pub code: KeyCode,
    pub ctrl: bool,
}

impl KeyPress {
    /// A key pressed alone.
    pub fn of(code: KeyCode) -> KeyPress {
        KeyPress { code, ctrl: false }
    }

    /// A key by its name: a browser's `KeyboardEvent.key` (`ArrowRight`, `Enter`, `Escape`,
    /// `Tab`, ` `, `n`), `Shift+Tab`, and the footer's own labels (`→`, `space`), so that a
    /// page, `frame --keys` and a test name keys one way. `None`: no such key.
    pub fn named(name: &str) -> Option<KeyPress> {
        if let Some(rest) = name.strip_prefix("Ctrl+") {
            let mut press = KeyPress::named(rest)?;
            press.ctrl = true;
            return Some(press);
        }
        let code = match name {
            "Enter" => KeyCode::Enter,
            "Escape" | "Esc" => KeyCode::Esc,
            "ArrowLeft" | "Left" | "←" => KeyCode::Left,
            "ArrowRight" | "Right" | "→" => KeyCode::Right,
            "ArrowUp" | "Up" | "↑" => KeyCode::Up,
            "ArrowDown" | "Down" | "↓" => KeyCode::Down,
            "Tab" => KeyCode::Tab,
            "Shift+Tab" | "S-Tab" | "BackTab" => KeyCode::BackTab,
            "space" | "Space" => KeyCode::Char(' '),
            _ => {
                let mut chars = name.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => KeyCode::Char(c),
                    _ => return None,
                }
            }
        };
        Some(KeyPress::of(code))
    }
}

/// One row of a key table.
pub struct Binding {
    /// The keys that trigger it.
    pub codes: &'static [KeyCode],
    pub action: Action,
    /// What it does, for the help; empty: it shares the row above (`[` and `]`).
    pub label: &'static str,
    /// A short form for the footer, if the binding earns a place there.
    pub hint: Option<&'static str>,
    /// The footer keeps hints of lower order longer when the screen is narrow.
    pub order: u8,
}

const fn bind(
    codes: &'static [KeyCode],
    action: Action,
    label: &'static str,
    hint: Option<&'static str>,
    order: u8,
) -> Binding {
    Binding {
        codes,
        action,
        label,
        hint,
        order,
    }
}

use KeyCode::{BackTab, Char, Down, Enter, Esc, Left, Right, Tab, Up};

/// The main view's keys, in help order.
pub const MAIN: &[Binding] = &[
    bind(
        &[Char('n'), Enter],
        Action::NextMoment,
        "next event or lesson beat",
        Some("next"),
        0,
    ),
    bind(
        &[Right, Char('l')],
        Action::StepForward,
        "advance the clock one step",
        Some("step"),
        4,
    ),
    bind(
        &[Left, Char('h')],
        Action::StepBack,
        "step back in time (nothing is lost)",
        Some("back"),
        5,
    ),
    bind(
        &[Char(' ')],
        Action::TogglePlay,
        "play / pause",
        Some("play"),
        6,
    ),
    bind(
        &[Char('[')],
        Action::SmallerStep,
        "smaller / larger clock step",
        None,
        20,
    ),
    bind(&[Char(']')], Action::LargerStep, "", None, 20),
    bind(
        &[Char('+'), Char('=')],
        Action::Faster,
        "faster / slower playback",
        None,
        20,
    ),
    bind(&[Char('-'), Char('_')], Action::Slower, "", None, 20),
    bind(
        &[Char('1')],
        Action::Select(ClientId::ALL[0]),
        "select a client (▸ marks it)",
        None,
        20,
    ),
    bind(&[Char('2')], Action::Select(ClientId::ALL[1]), "", None, 20),
    bind(&[Char('3')], Action::Select(ClientId::ALL[2]), "", None, 20),
    bind(
        &[Char('g')],
        Action::InjectPause,
        "GC-pause the selected client",
        Some("GC"),
        7,
    ),
    bind(
        &[Char('x')],
        Action::Crash,
        "crash it (it restarts 3 s later)",
        Some("crash"),
        9,
    ),
    bind(
        &[Char('d')],
        Action::DelayWrite,
        "delay its next write in the network",
        Some("delay"),
        10,
    ),
    bind(
        &[Char('f')],
        Action::ToggleFencing,
        "fencing on / off from now on",
        Some("fencing"),
        3,
    ),
    bind(
        &[Char('v')],
        Action::CycleCheck,
        "storage check: per-key, strict, global",
        Some("check"),
        11,
    ),
    bind(
        &[Char('c')],
        Action::ToggleCompare,
        "compare fenced and unfenced storage",
        Some("compare"),
        12,
    ),
    bind(
        &[Char('r')],
        Action::Restart,
        "restart (same seed, fencing kept)",
        Some("restart"),
        8,
    ),
    bind(
        &[Char('s')],
        Action::OpenPicker,
        "choose a scenario",
        Some("lessons"),
        13,
    ),
    bind(
        &[Char('?')],
        Action::ToggleHelp,
        "help: keys, marks, real systems",
        Some("help"),
        1,
    ),
    bind(
        &[Char('q'), Esc],
        Action::Quit,
        "quit (Ctrl-C too)",
        Some("quit"),
        2,
    ),
];

/// While a lesson question waits for a prediction.
pub const QUESTION: &[Binding] = &[
    bind(
        &[Char('a')],
        Action::Answer(true),
        "predict: the storage accepts the write",
        Some("accepted"),
        0,
    ),
    bind(
        &[Char('b')],
        Action::Answer(false),
        "predict: the storage rejects the write",
        Some("rejected"),
        0,
    ),
    bind(
        &[Char('n'), Enter],
        Action::Skip,
        "reveal the answer without predicting",
        Some("skip"),
        1,
    ),
    bind(&[Right, Char('l'), Char(' ')], Action::Skip, "", None, 1),
    bind(
        &[Left, Char('h')],
        Action::StepBack,
        "step back (the question goes away)",
        Some("back"),
        3,
    ),
    bind(
        &[Char('r')],
        Action::Restart,
        "restart the lesson",
        None,
        20,
    ),
    bind(
        &[Char('s')],
        Action::OpenPicker,
        "choose a scenario",
        None,
        20,
    ),
    bind(&[Char('?')], Action::ToggleHelp, "help", Some("help"), 4),
    bind(
        &[Char('q'), Esc],
        Action::Quit,
        "quit (Ctrl-C too)",
        Some("quit"),
        2,
    ),
];

/// While the help overlay is open; any other key closes it.
pub const HELP: &[Binding] = &[
    bind(
        &[Right, Tab, Char('l')],
        Action::HelpNext,
        "next page",
        Some("next page"),
        0,
    ),
    bind(
        &[Left, BackTab, Char('h')],
        Action::HelpBack,
        "previous page",
        Some("previous"),
        1,
    ),
    bind(&[Char('q')], Action::Quit, "quit", Some("quit"), 2),
];

/// While the scenario picker is open.
pub const PICKER: &[Binding] = &[
    bind(
        &[Up, Char('k')],
        Action::PickerUp,
        "previous scenario",
        Some("up"),
        0,
    ),
    bind(
        &[Down, Char('j'), Tab],
        Action::PickerDown,
        "next scenario",
        Some("down"),
        0,
    ),
    bind(
        &[Enter, Char(' ')],
        Action::PickerChoose,
        "load it",
        Some("load"),
        0,
    ),
    bind(
        &[Esc, Char('s')],
        Action::CloseOverlay,
        "cancel",
        Some("cancel"),
        1,
    ),
    bind(&[Char('q')], Action::Quit, "quit", Some("quit"), 2),
];

/// The key table of `mode`.
pub fn keymap(mode: Mode) -> &'static [Binding] {
    match mode {
        Mode::Main => MAIN,
        Mode::Question => QUESTION,
        Mode::Help => HELP,
        Mode::Picker => PICKER,
    }
}

/// The action a key press asks for in `mode`.
pub fn action_for(key: KeyPress, mode: Mode) -> Option<Action> {
    if key.ctrl {
        return matches!(key.code, Char('c') | Char('d')).then_some(Action::Quit);
    }
    let found = keymap(mode)
        .iter()
        .find(|b| b.codes.contains(&key.code))
        .map(|b| b.action);
    match (found, mode, key.code) {
        (Some(action), _, _) => Some(action),
        (None, Mode::Help, _) => Some(Action::CloseOverlay),
        (None, Mode::Main | Mode::Question, Char(c)) => Some(Action::Unbound(c)),
        (None, _, _) => None,
    }
}

/// A key as the footer and help show it.
pub fn key_label(code: KeyCode) -> String {
    match code {
        Char(' ') => "space".into(),
        Char(c) => c.to_string(),
        Enter => "Enter".into(),
        Esc => "Esc".into(),
        Left => "←".into(),
        Right => "→".into(),
        Up => "↑".into(),
        Down => "↓".into(),
        Tab => "Tab".into(),
        BackTab => "S-Tab".into(),
        KeyCode::Other => "another key".into(),
    }
}

/// One hint of the footer: the key as shown, its word, how long it stays on a narrow screen
/// (lower stays longer) and the action it asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Hint {
    pub key: String,
    pub text: &'static str,
    pub order: u8,
    pub action: Action,
}

/// The footer's hints of `mode`, in table order.
pub fn hints(mode: Mode) -> Vec<Hint> {
    keymap(mode)
        .iter()
        .filter_map(|b| {
            b.hint.map(|text| Hint {
                key: key_label(b.codes[0]),
                text,
                order: b.order,
                action: b.action,
            })
        })
        .collect()
}

/// The help's rows of `mode`: every key of a row (continuation rows share the one above) and
/// what it does.
pub fn help_rows(mode: Mode) -> Vec<(String, &'static str)> {
    help_rows_without(mode, &[])
}

/// The help's rows of `mode` without the commands in `missing` (those a run does not have,
/// which the help names once, with the reason, instead of offering them).
pub fn help_rows_without(mode: Mode, missing: &[Action]) -> Vec<(String, &'static str)> {
    let mut rows: Vec<(Vec<String>, &'static str)> = Vec::new();
    let mut skipping = false;
    for binding in keymap(mode) {
        let keys = binding.codes.iter().map(|&c| key_label(c));
        if binding.label.is_empty() {
            if let (false, Some(row)) = (skipping, rows.last_mut()) {
                row.0.extend(keys);
            }
            continue;
        }
        skipping = missing.contains(&binding.action);
        if !skipping {
            rows.push((keys.collect(), binding.label));
        }
    }
    rows.into_iter()
        .map(|(keys, label)| (keys.join(" "), label))
        .collect()
}

/// The first key that asks for `action` in `mode`, as the footer shows it, for sentences that
/// name a key ("press n to begin"), so that they follow the table.
pub fn key_for(mode: Mode, action: Action) -> String {
    keymap(mode)
        .iter()
        .find(|b| b.action == action)
        .map(|b| key_label(b.codes[0]))
        .unwrap_or_else(|| panic!("no key for {action:?} in {mode:?}"))
}
