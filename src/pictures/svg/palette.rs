//! The colours; each kind of mark also has its own pattern or shape, so grey print reads the same.

pub(super) const INK: &str = "#1a1d23";
pub(super) const MUTED: &str = "#5b6270";
pub(super) const GRID: &str = "#e4e7ec";
pub(super) const FAINT: &str = "#a3aab6";
pub(super) const LIVE: &str = "#2f7d4a";
pub(super) const STALE: &str = "#c2570c";
pub(super) const GC: &str = "#1f6f8b";
pub(super) const CRASH: &str = "#8f2d2d";
pub(super) const WRITE: &str = "#1f4fa0";
pub(super) const REJECTED: &str = "#b91c1c";
pub(super) const CORRUPTED: &str = "#7f1010";
/// An honest write refused by a check stricter than the seed's.
pub(super) const HONEST: &str = "#8a5300";

/// The patterns and arrowheads every picture uses, their ids prefixed with `p`.
pub(super) fn defs(p: &str) -> String {
    format!(
        concat!(
            r#"<defs>"#,
            r#"<pattern id="{p}stripes" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="white"/><rect width="3.5" height="8" fill="{stale}"/></pattern>"#,
            r#"<pattern id="{p}dots" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="white"/><circle cx="3" cy="3" r="1.6" fill="{gc}"/></pattern>"#,
            r#"<pattern id="{p}cross" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="white"/><path d="M0,0L8,8M8,0L0,8" stroke="{crash}" stroke-width="1.4"/></pattern>"#,
            r#"<marker id="{p}arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{ink}"/></marker>"#,
            r#"<marker id="{p}warrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{write}"/></marker>"#,
            r#"<marker id="{p}rarrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{muted}"/></marker>"#,
            r#"</defs>"#
        ),
        p = p,
        stale = STALE,
        gc = GC,
        crash = CRASH,
        ink = INK,
        write = WRITE,
        muted = MUTED,
    )
}
