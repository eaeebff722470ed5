//! What the user can ask for and which key table is in force: the words keys and the model share.

use crate::sim::{ClientId, Ms};

/// Everything the user can ask for; keys map to these first, so tests drive the app directly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    StepForward,
    NextMoment,
    StepBack,
    TogglePlay,
    SmallerStep,
    LargerStep,
    Faster,
    Slower,
    Select(ClientId),
    InjectPause,
    Crash,
    DelayWrite,
    ToggleFencing,
    CycleCheck,
    ToggleCompare,
    Restart,
    OpenPicker,
    ToggleHelp,
    /// Predict the write's verdict: `true` accepted, `false` rejected.
    Answer(bool),
    /// Reveal the answer without predicting.
    Skip,
    Quit,
    /// Real time passed while playing, in ms.
    Tick(Ms),
    PickerUp,
    PickerDown,
    PickerChoose,
    HelpNext,
    HelpBack,
    CloseOverlay,
    /// A key that means nothing here (its label, for the status line).
    Unbound(char),
}

/// Which key table is in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Main,
    Question,
    Help,
    Picker,
}
