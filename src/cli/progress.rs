//! What a long run shows on a terminal's stderr while it works: a bar for `grade`, a line for
//! `check` naming the check under way. Nothing at all when stderr is not a terminal, so a log or
//! a CI runner gets only the results.

use std::io::IsTerminal;
use std::time::Duration;

use crate::lab::grade::Graded;
use crate::lab::CheckId;
use crate::sim::text::printable;

/// A progress bar on a terminal's stderr, nothing otherwise (a log or a CI runner gets only
/// the tables).
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub fn on_stderr(total: usize) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        let style = indicatif::ProgressStyle::with_template(
            "{pos}/{len} submissions checked [{bar:30}] {elapsed} {msg}",
        )
        .map(|s| s.progress_chars("=> "));
        if let Ok(style) = style {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress(Some(bar))
    }

    pub fn graded(&self, graded: &Graded) {
        if let Some(bar) = &self.0 {
            let report = &graded.report;
            bar.set_message(format!(
                "last: {} {}/{}",
                printable(&graded.name),
                report.passed(),
                report.outcomes.len()
            ));
            bar.inc(1);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// The check under way, on a line of its own that the results printed above it never garble.
pub struct Spinner(Option<indicatif::ProgressBar>);

impl Spinner {
    pub fn on_stderr() -> Spinner {
        if !std::io::stderr().is_terminal() {
            return Spinner(None);
        }
        let spinner = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            spinner.set_style(style);
        }
        spinner.enable_steady_tick(Duration::from_millis(120));
        Spinner(Some(spinner))
    }

    pub fn starting(&self, check: CheckId) {
        if let Some(spinner) = &self.0 {
            spinner.set_message(format!("checking {}", check.id()));
            spinner.reset_elapsed();
        }
    }

    /// Runs `print` (a result for stdout) with the line out of its way.
    pub fn above<T>(&self, print: impl FnOnce() -> T) -> T {
        match &self.0 {
            Some(spinner) => spinner.suspend(print),
            None => print(),
        }
    }

    pub fn finish(&self) {
        if let Some(spinner) = &self.0 {
            spinner.finish_and_clear();
        }
    }
}
