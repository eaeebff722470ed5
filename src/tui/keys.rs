//! One key table: it dispatches keys, fills the footer's hints and the `?` overlay, so the three
//! cannot drift apart.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{Action, Overlay};
use crate::sim::ClientId;

/// One row of the key table.
pub struct Binding {
    /// The keys as the help overlay shows them.
    pub keys: &'static str,
    /// What they do.
    pub label: &'static str,
    /// A short form for the footer, if the binding earns a place there.
    pub hint: Option<&'static str>,
    /// The key codes that trigger it.
    pub codes: &'static [KeyCode],
    pub action: Action,
}

const fn bind(
    keys: &'static str,
    label: &'static str,
    hint: Option<&'static str>,
    codes: &'static [KeyCode],
    action: Action,
) -> Binding {
    Binding {
        keys,
        label,
        hint,
        codes,
        action,
    }
}

/// Every key of the main view, in help order.
pub const KEYMAP: &[Binding] = &[
    bind(
        "n Enter",
        "next event or lesson beat",
        Some("next"),
        &[KeyCode::Char('n'), KeyCode::Enter],
        Action::NextMoment,
    ),
    bind(
        "→ l",
        "advance the clock one step",
        Some("step"),
        &[KeyCode::Right, KeyCode::Char('l')],
        Action::StepForward,
    ),
    bind(
        "← h",
        "step back (nothing is lost)",
        Some("back"),
        &[KeyCode::Left, KeyCode::Char('h')],
        Action::StepBack,
    ),
    bind(
        "space",
        "play / pause",
        Some("play"),
        &[KeyCode::Char(' ')],
        Action::TogglePlay,
    ),
    bind(
        "[ ]",
        "smaller / larger clock step",
        None,
        &[KeyCode::Char('[')],
        Action::SmallerStep,
    ),
    bind("", "", None, &[KeyCode::Char(']')], Action::LargerStep),
    bind(
        "+ -",
        "faster / slower playback",
        None,
        &[KeyCode::Char('+'), KeyCode::Char('=')],
        Action::Faster,
    ),
    bind(
        "",
        "",
        None,
        &[KeyCode::Char('-'), KeyCode::Char('_')],
        Action::Slower,
    ),
    bind(
        "1 2 3",
        "select a client",
        None,
        &[KeyCode::Char('1')],
        Action::Select(ClientId::ALL[0]),
    ),
    bind(
        "",
        "",
        None,
        &[KeyCode::Char('2')],
        Action::Select(ClientId::ALL[1]),
    ),
    bind(
        "",
        "",
        None,
        &[KeyCode::Char('3')],
        Action::Select(ClientId::ALL[2]),
    ),
    bind(
        "g",
        "GC pause the selected client",
        Some("GC"),
        &[KeyCode::Char('g')],
        Action::InjectPause,
    ),
    bind(
        "x",
        "crash it (it restarts later)",
        Some("crash"),
        &[KeyCode::Char('x')],
        Action::Crash,
    ),
    bind(
        "f",
        "fencing on/off from now on",
        Some("fencing"),
        &[KeyCode::Char('f')],
        Action::ToggleFencing,
    ),
    bind(
        "v",
        "cycle check: why >=, why per key",
        None,
        &[KeyCode::Char('v')],
        Action::CycleCheck,
    ),
    bind(
        "c",
        "compare fenced and unfenced",
        None,
        &[KeyCode::Char('c')],
        Action::ToggleCompare,
    ),
    bind(
        "r",
        "restart (same seed, fencing kept)",
        None,
        &[KeyCode::Char('r')],
        Action::Restart,
    ),
    bind(
        "s",
        "choose a scenario",
        None,
        &[KeyCode::Char('s')],
        Action::OpenPicker,
    ),
    bind(
        "y n",
        "answer the lesson's question",
        None,
        &[KeyCode::Char('y')],
        Action::Answer(true),
    ),
    bind(
        "?",
        "this help",
        Some("help"),
        &[KeyCode::Char('?')],
        Action::ToggleHelp,
    ),
    bind(
        "q Esc",
        "quit (Ctrl-C too)",
        Some("quit"),
        &[KeyCode::Char('q'), KeyCode::Esc],
        Action::Quit,
    ),
];

/// The action a key press asks for, given what covers the main view.
pub fn action_for(key: KeyEvent, overlay: Overlay) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d')).then_some(Action::Quit);
    }
    match overlay {
        Overlay::None => {}
        Overlay::Help => {
            return Some(match key.code {
                KeyCode::Char('q') => Action::Quit,
                _ => Action::CloseOverlay,
            })
        }
        Overlay::Picker { .. } => {
            return match key.code {
                KeyCode::Up | KeyCode::Char('k') => Some(Action::PickerUp),
                KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => Some(Action::PickerDown),
                KeyCode::Enter | KeyCode::Char(' ') => Some(Action::PickerChoose),
                KeyCode::Char('q') => Some(Action::Quit),
                KeyCode::Esc | KeyCode::Char('s') => Some(Action::CloseOverlay),
                _ => None,
            }
        }
    }
    KEYMAP
        .iter()
        .find(|b| b.codes.contains(&key.code))
        .map(|b| b.action)
}

/// The footer's hints: "key label" pairs from the table.
pub fn hints() -> impl Iterator<Item = (&'static str, &'static str)> {
    KEYMAP.iter().filter_map(|b| {
        b.hint
            .map(|hint| (b.keys.split(' ').next().unwrap_or(b.keys), hint))
    })
}

/// The help overlay's rows: bindings that have a label (continuation rows share the one above).
pub fn help_rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    KEYMAP
        .iter()
        .filter(|b| !b.label.is_empty())
        .map(|b| (b.keys, b.label))
}
