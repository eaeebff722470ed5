//! The pictures: `run --format svg` (a space-time diagram), `run --format cast` (an asciicast of
//! the UI) and `export` (the lesson as one HTML page). Each checks its options first and says
//! what is wrong in one sentence.

use std::io::{self, Write};
use std::path::Path;

use super::args::{Format, WorldArgs};
use super::{lab, setup_with_impl, Failure};
use crate::pictures::{cast, html, svg};
use crate::sim::text::printable;
use crate::sim::time::fmt_seconds;
use crate::sim::{Ms, Session};
use crate::tui::{MAX_HEIGHT, MAX_WIDTH, MIN_HEIGHT, MIN_WIDTH};

/// What `run` was asked for beyond the world: the picture options.
pub struct PictureArgs {
    pub format: Format,
    pub until: Option<Ms>,
    pub from: Option<Ms>,
    pub compare: bool,
    pub axis: Option<(Ms, Ms)>,
    pub hide_idle: bool,
    /// svg: up to the question's verdict, with only the clients in the story (`--minimal`).
    pub minimal: bool,
    /// svg: the clients to draw (`--actors`).
    pub actors: Option<[bool; 3]>,
    pub size: Option<(u32, u32)>,
    /// svg: the run as these UI keys leave it.
    pub keys: Option<String>,
}

/// Refuses options the format does not take, before anything runs.
pub fn check_options(args: &PictureArgs, world: &WorldArgs) -> Result<(), Failure> {
    let name = match args.format {
        Format::Text => "text",
        Format::Json => "json",
        Format::Markdown => "markdown",
        Format::Svg => "svg",
        Format::Cast => "cast",
    };
    let svg_only = [
        ("--from", args.from.is_some()),
        ("--compare", args.compare),
        ("--axis", args.axis.is_some()),
        ("--hide-idle", args.hide_idle),
        ("--minimal", args.minimal),
        ("--actors", args.actors.is_some()),
        ("--keys", args.keys.is_some()),
    ];
    if args.format != Format::Svg {
        if let Some((flag, _)) = svg_only.iter().find(|(_, given)| *given) {
            return Err(Failure::usage(format!(
                "{flag} is for --format svg, not --format {name}"
            )));
        }
    }
    if args.compare && world.has_impl() {
        return Err(Failure::usage(
            "--compare draws the built-in storage with fencing on and off, so it does not take --impl",
        ));
    }
    if args.size.is_some() && !matches!(args.format, Format::Svg | Format::Cast) {
        return Err(Failure::usage(format!(
            "--size is for --format svg (pixels) or cast (columns x rows), not --format {name}"
        )));
    }
    Ok(())
}

/// `run SCENARIO --format svg` or `--format cast`; a student's implementation that stopped
/// answering is reported after the picture.
pub fn draw(
    out: &mut impl Write,
    scenario: &str,
    world: &WorldArgs,
    args: &PictureArgs,
) -> Result<(), Failure> {
    if args.format == Format::Svg {
        draw_svg(out, scenario, world, args)
    } else {
        draw_cast(out, scenario, world, args)
    }
}

fn draw_svg(
    out: &mut impl Write,
    scenario: &str,
    world: &WorldArgs,
    args: &PictureArgs,
) -> Result<(), Failure> {
    let (w, h) = args
        .size
        .unwrap_or((svg::Size::DEFAULT.width, svg::Size::DEFAULT.height));
    let size = svg::Size::new(w, h).map_err(Failure::usage)?;
    let (setup, fault) = setup_with_impl(scenario, world)?;
    if let Some(keys) = &args.keys {
        // The live page's diagram: the run as the keys leave it, at the page's size.
        let keys = crate::web::lesson::keys_of(keys)
            .map_err(|e| Failure::usage(format!("--keys: {e}")))?;
        let app = crate::web::lesson::played(setup, &keys, crate::tui::Theme::plain());
        out.write_all(crate::web::lesson::diagram_of(&app).as_bytes())?;
        return lab::fault_of(&fault);
    }
    let until = args.until.unwrap_or(setup.scenario.end);
    if let Some(from) = args.from.filter(|&from| from >= until) {
        return Err(Failure::usage(format!(
            "--from {} s is not before the run's end at {} s, so the diagram would show no time",
            fmt_seconds(from),
            fmt_seconds(until)
        )));
    }
    if let Some((from, _)) = args.axis.filter(|&(from, _)| from >= until) {
        return Err(Failure::usage(format!(
            "--axis begins at {} s, not before the run's end at {} s, so the diagram would show nothing",
            fmt_seconds(from),
            fmt_seconds(until)
        )));
    }
    if let Some(system) = setup.system.filter(|_| args.compare && !setup.has_token()) {
        return Err(Failure::usage(format!(
            "{} has no fencing token, so there is no fenced run to draw beside the unfenced one: drop --compare",
            system.name
        )));
    }
    // The run, or with --compare the fenced and the unfenced runs, played to `until`.
    let played = |until: Ms| -> Vec<Session> {
        if args.compare {
            vec![
                Session::played_to(setup.clone().fencing(true), until),
                Session::played_to(setup.clone().fencing(false), until),
            ]
        } else {
            vec![Session::played_to(setup.clone(), until)]
        }
    };
    let asked_lanes = args.actors.map(|clients| (clients, true));
    let (until, actors) = if args.minimal {
        let whole = played(setup.scenario.end);
        let whole: Vec<&Session> = whole.iter().collect();
        let at = svg::question_verdict(&whole).ok_or_else(|| {
            Failure::usage(format!(
                "--minimal draws a lesson up to the write its question asks about, and {} has no such write: use --until and --actors instead",
                setup.scenario.name
            ))
        })?;
        (
            at,
            Some(asked_lanes.unwrap_or_else(|| svg::story_actors(&whole, at))),
        )
    } else if args.hide_idle {
        // A slide of a build (--axis) keeps the lanes of the build's last slide, the run played
        // to the axis's end: an actor idle so far keeps its lane, so no lane moves between slides.
        let build = args.axis.map(|(from, to)| {
            let window = svg::Window::fixed(from, to);
            played(to)
                .iter()
                .map(|run| svg::busy_actors(run, window))
                .fold(([false; 3], false), |(c, s), (c2, s2)| {
                    ([c[0] || c2[0], c[1] || c2[1], c[2] || c2[2]], s || s2)
                })
        });
        (until, build)
    } else {
        (until, asked_lanes)
    };
    let runs = played(until);
    let runs: Vec<&Session> = runs.iter().collect();
    if let Some(lanes) = actors.filter(|_| !args.hide_idle) {
        svg::check_left_out(&runs, lanes, until).map_err(Failure::usage)?;
    }
    let options = svg::Options {
        hide_idle: args.hide_idle,
        actors,
        to_question: args.minimal,
    };
    let axis = args
        .axis
        .or(args.minimal.then(|| svg::question_axis(until)));
    let window = match axis {
        Some((from, to)) => svg::Window::fixed(from, to),
        None => svg::Window::choose(&runs, args.from, until),
    };
    let picture = match runs[..] {
        [fenced, unfenced] => svg::compare_with(fenced, unfenced, size, window, "", options),
        _ => svg::diagram_with(runs[0], size, window, "", options),
    };
    out.write_all(picture.as_bytes())?;
    lab::fault_of(&fault)
}

fn draw_cast(
    out: &mut impl Write,
    scenario: &str,
    world: &WorldArgs,
    args: &PictureArgs,
) -> Result<(), Failure> {
    let (w, h) = args.size.unwrap_or((80, 24));
    let fits = (MIN_WIDTH as u32..=MAX_WIDTH as u32).contains(&w)
        && (MIN_HEIGHT as u32..=MAX_HEIGHT as u32).contains(&h);
    if !fits {
        return Err(Failure::usage(format!(
            "a cast of {w}x{h} does not fit the UI: it takes {MIN_WIDTH}x{MIN_HEIGHT} to {MAX_WIDTH}x{MAX_HEIGHT} columns x rows"
        )));
    }
    let (setup, fault) = setup_with_impl(scenario, world)?;
    let until = args.until.unwrap_or(setup.scenario.end);
    out.write_all(cast::cast(&setup, until, w as u16, h as u16).as_bytes())?;
    lab::fault_of(&fault)
}

/// The WebAssembly the live pages carry, gzipped: `web`, built by `.ci/build-wasm`.
pub const MODULE: &[u8] = include_bytes!("../../assets/web/fencing_lab.wasm.gz");

/// Which page `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The lesson live above its steps (the default).
    Live,
    /// The steps alone (`--static`).
    Steps,
    /// The lab in a browser tab (`--lab`).
    Lab,
}

/// `export SCENARIO -o FILE`.
pub fn export(
    scenario: &str,
    world: &WorldArgs,
    output: &Path,
    until: Option<Ms>,
    kind: Page,
) -> Result<(), Failure> {
    let to_stdout = output == Path::new("-");
    if !to_stdout {
        // Refused before the page is made, which for a long run takes a while.
        crate::sim::files::can_write(output).map_err(|why| {
            Failure::usage(format!(
                "cannot export to {}: {why}",
                printable(&output.display().to_string())
            ))
        })?;
    }
    // The page's "watch it" plays a lesson the module carries, on the code pasted into the page.
    if kind == Page::Lab && crate::sim::Scenario::built_in(scenario).is_none() {
        return Err(Failure::usage(format!(
            "the lab page watches a built-in lesson, and '{}' is not one (see `fencing-lab list`)",
            printable(scenario)
        )));
    }
    let (setup, fault) = setup_with_impl(scenario, world)?;
    let until = until.unwrap_or(setup.scenario.end);
    let page = match kind {
        Page::Steps => html::page(&setup, until),
        Page::Live => html::live_page(&setup, until, MODULE),
        Page::Lab => html::lab_page(&setup, MODULE),
    };
    // A page handed to a class shows a whole run: on code that stopped answering, none is written.
    if let Err(Failure::Usage(why)) = lab::fault_of(&fault) {
        return Err(Failure::usage(format!("{why}; no page was written")));
    }
    if to_stdout {
        let mut out = io::stdout().lock();
        out.write_all(page.as_bytes())?;
        out.flush()?;
        return Ok(());
    }
    crate::sim::files::write_whole(output, page.as_bytes()).map_err(|e| {
        Failure::usage(format!(
            "could not write the page to {} ({e}); any earlier file there is unchanged",
            printable(&output.display().to_string())
        ))
    })
}
