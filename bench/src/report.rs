//! Statistics and output: the terminal table, JSON, and BENCHMARKS.md.

use std::fmt::Write;

/// One side's timed launches of one case.
#[derive(Default, Clone)]
pub struct Side {
    /// Milliseconds per launch.
    pub ms: Vec<f64>,
    /// Units of work per launch (ops, round trips, barriers, critical sections).
    pub units: f64,
    /// Why it failed (wrong result or error), if it did.
    pub error: Option<String>,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

impl Side {
    fn sorted(&self) -> Vec<f64> {
        let mut v = self.ms.clone();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v
    }

    /// Median ms per launch.
    pub fn median(&self) -> Option<f64> {
        (!self.ms.is_empty() && self.error.is_none()).then(|| quantile(&self.sorted(), 0.5))
    }

    /// Median nanoseconds per unit of work.
    pub fn ns_per_unit(&self) -> Option<f64> {
        self.median().map(|m| m * 1e6 / self.units)
    }

    /// (p90 - p10) / median, in percent.
    pub fn spread(&self) -> Option<f64> {
        self.median().map(|m| {
            let s = self.sorted();
            (quantile(&s, 0.9) - quantile(&s, 0.1)) / m * 100.0
        })
    }

    fn cell(&self) -> String {
        match (&self.error, self.ns_per_unit()) {
            (Some(_), _) => "FAIL".into(),
            (None, Some(ns)) => format!("{} ({:.0}%)", fmt_ns(ns), self.spread().unwrap()),
            _ => "-".into(),
        }
    }
}

/// A case's result on both sides.
pub struct Row {
    pub case: String,
    pub unit: &'static str,
    pub rust: Option<Side>,
    pub cpp: Option<Side>,
    pub target: Option<f64>,
    /// No C++ case of this name exists (while the C++ side is measured).
    pub rust_only: bool,
}

impl Row {
    /// The Rust, C++ and ratio cells, as the terminal and Markdown tables show them.
    fn cells(&self) -> [String; 3] {
        let side = |s: &Option<Side>, absent: &str| {
            s.as_ref().map(Side::cell).unwrap_or_else(|| absent.into())
        };
        let ratio = match (self.ratio(), self.ratio_interval()) {
            (Some(x), Some((lo, hi))) => format!("{x:.2} ({lo:.2}-{hi:.2})"),
            _ => "-".into(),
        };
        let cpp_absent = if self.rust_only { "-" } else { "not measured" };
        [side(&self.rust, "-"), side(&self.cpp, cpp_absent), ratio]
    }

    /// R/C: the median over launch pairs of (Rust launch time / C++ launch time). The sides
    /// alternate, so each pair ran under the same clocks and neighbours.
    pub fn ratio(&self) -> Option<f64> {
        let r = self.pair_ratios()?;
        Some(quantile(&r, 0.5))
    }

    /// The per-pair ratios, sorted; `None` unless both sides ran the same launches cleanly.
    fn pair_ratios(&self) -> Option<Vec<f64>> {
        let (rust, cpp) = (self.rust.as_ref()?, self.cpp.as_ref()?);
        rust.median()?;
        cpp.median()?;
        if rust.ms.len() != cpp.ms.len() {
            return None;
        }
        let mut r: Vec<f64> = rust.ms.iter().zip(&cpp.ms).map(|(a, b)| a / b).collect();
        r.sort_by(|a, b| a.partial_cmp(b).unwrap());
        Some(r)
    }

    /// A distribution-free 95% confidence interval for the median pair ratio: the order
    /// statistics k and n-1-k (0-based) with k = floor((n - 1.96 sqrt(n)) / 2), the normal
    /// approximation of the sign test's binomial bound.
    pub fn ratio_interval(&self) -> Option<(f64, f64)> {
        let r = self.pair_ratios()?;
        let n = r.len() as f64;
        let k = ((n - 1.96 * n.sqrt()) / 2.0).floor().max(0.0) as usize;
        Some((r[k], r[r.len() - 1 - k]))
    }

    /// The first side's error, if a side failed.
    fn failure(&self) -> Option<String> {
        [&self.rust, &self.cpp]
            .iter()
            .filter_map(|s| s.as_ref()?.error.clone())
            .next()
    }

    /// Whether the row meets its target, as far as its launches can tell: meets when the whole
    /// 95% interval is at or under the target (with a 2% allowance), misses when the whole
    /// interval is above it, undecided otherwise. `None` without a ratio or a target.
    pub fn meets(&self) -> Option<Verdict> {
        let allowed = self.target? * 1.02;
        let (lo, hi) = self.ratio_interval()?;
        Some(if hi <= allowed {
            Verdict::Meets
        } else if lo > allowed {
            Verdict::Misses
        } else {
            Verdict::Undecided
        })
    }

    /// Timed launch pairs so far.
    pub fn pairs(&self) -> usize {
        self.rust.as_ref().map_or(0, |s| s.ms.len())
    }

    fn verdict(&self) -> String {
        if let Some(e) = self.failure() {
            return format!("FAIL: {e}");
        }
        match (self.meets(), self.target, self.ratio_interval()) {
            (Some(Verdict::Meets), Some(t), _) => format!("meets <= {t:.2}"),
            (Some(Verdict::Misses), Some(t), _) => format!("misses <= {t:.2}"),
            (Some(Verdict::Undecided), Some(t), Some((lo, hi))) => format!(
                "undecided <= {t:.2} (95% interval {lo:.2}-{hi:.2} after {} pairs)",
                self.pairs()
            ),
            (None, _, _) if self.rust.is_none() => "C++ only (Rust row: primitives issue)".into(),
            (None, _, _) if self.rust_only => "Rust only (no C++ counterpart)".into(),
            _ => String::new(),
        }
    }
}

/// A row against its target: see [`Row::meets`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    Meets,
    Misses,
    Undecided,
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 10_000.0 {
        format!("{:.2} us", ns / 1000.0)
    } else if ns >= 10.0 {
        format!("{ns:.0} ns")
    } else if ns >= 1.0 {
        format!("{ns:.3} ns")
    } else {
        format!("{ns:.4} ns")
    }
}

/// The unit a case's per-unit time is in.
pub fn unit(case: &str) -> &'static str {
    if case.starts_with("latch/per_tile/") {
        return "per tile, 4 blocks and a latch a tile (aggregate)";
    }
    match case.split('/').next().unwrap_or("") {
        "binary_semaphore" => "per critical section",
        "semaphore" | "queue" => {
            "per item, 66 producer + 66 consumer blocks, 1024 slots (aggregate)"
        }
        "rwlock" => "per operation, whole grid (aggregate)",
        "scan" => "per element (aggregate)",
        "atomic" => "ns per op, whole grid (aggregate)",
        "space" if case.contains("spinlock") => "per critical section, whole grid (aggregate)",
        "space" => "ns per op, whole grid (aggregate)",
        "mp" => "per round trip",
        "fence" => "ns per store+fence, whole grid (aggregate)",
        "mutex" | "semaphore4" | "semaphore32" => "per critical section",
        "hash_table" => "per insert, 65,536 buckets with a lock each (aggregate)",
        "latch" => "per latch phase",
        _ => "per barrier",
    }
}

/// The issue's target ratio for a case (Rust/C++), if it has one.
pub fn target(case: &str) -> Option<f64> {
    match case.split('/').next().unwrap_or("") {
        "atomic" => Some(1.0),
        "mutex" if case.ends_with("132x256") => Some(0.5),
        "grid_barrier" if case.starts_with("grid_barrier/grid_sync/") => Some(0.75),
        _ => Some(1.0),
    }
}

/// One terminal line.
pub fn line(r: &Row) -> String {
    let [rust, cpp, ratio] = r.cells();
    format!(
        "{:<46} {:>20} {:>20} {:>17}  {}",
        r.case,
        rust,
        cpp,
        ratio,
        r.verdict()
    )
}

/// The header for [`line`].
pub fn header() -> String {
    format!(
        "{:<46} {:>20} {:>20} {:>17}  {}",
        "case", "Rust (spread)", "C++ (spread)", "R/C (95%)", "target"
    )
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn json_side(s: &Option<Side>) -> String {
    match s {
        None => "null".into(),
        Some(s) => format!(
            "{{\"median_ms\": {}, \"ns_per_unit\": {}, \"spread_pct\": {}, \"units\": {}, \"launches\": {}, \"error\": {}}}",
            s.median().map(|v| format!("{v:.6}")).unwrap_or("null".into()),
            s.ns_per_unit().map(|v| format!("{v:.4}")).unwrap_or("null".into()),
            s.spread().map(|v| format!("{v:.2}")).unwrap_or("null".into()),
            s.units,
            s.ms.len(),
            s.error.as_deref().map(json_str).unwrap_or("null".into())
        ),
    }
}

/// Machine-readable results.
pub fn json(meta: &[(&str, String)], rows: &[Row]) -> String {
    let mut o = String::from("{\n");
    for (k, v) in meta {
        writeln!(o, "  {}: {},", json_str(k), json_str(v)).unwrap();
    }
    o.push_str("  \"cases\": [\n");
    for (i, r) in rows.iter().enumerate() {
        writeln!(
            o,
            "    {{\"case\": {}, \"unit\": {}, \"rust\": {}, \"cpp\": {}, \"ratio\": {}, \"ratio_95\": {}, \"verdict\": {}}}{}",
            json_str(&r.case),
            json_str(r.unit),
            json_side(&r.rust),
            json_side(&r.cpp),
            r.ratio()
                .map(|v| format!("{v:.4}"))
                .unwrap_or("null".into()),
            r.ratio_interval()
                .map(|(lo, hi)| format!("[{lo:.4}, {hi:.4}]"))
                .unwrap_or("null".into()),
            json_str(&r.verdict()),
            if i + 1 < rows.len() { "," } else { "" }
        )
        .unwrap();
    }
    o.push_str("  ]\n}\n");
    o
}

/// BENCHMARKS.md.
pub fn markdown(meta: &[(&str, String)], rows: &[Row], sass: &str) -> String {
    let mut o =
        String::from("# Benchmarks: ptx-sync (Rust) vs CUDA C++ (libcu++), side by side\n\n");
    o.push_str("Generated by `cargo xtask bench-gpu` from one run; do not edit by hand.\n\n");
    for (k, v) in meta {
        writeln!(o, "- {k}: {v}").unwrap();
    }
    o.push_str(
        "\nEach case: 2 warm-up launches per side, then Rust and C++ launches alternate (A B A B ...) on the\n\
         same stream of the same context; each launch is timed with CUDA events around the kernel and\n\
         checked (a wrong result is FAIL, not a time). Cells: median time per unit of work, with the\n\
         p10-p90 spread as a percentage of the median. R/C: the median over launch pairs of Rust time /\n\
         C++ time (lower is better for Rust), with its distribution-free 95% confidence interval.\n\
         Targets: atomics 1.00, mutex at 132x256 at most 0.5, grid barrier (`grid_sync` rows) at most\n\
         0.75, everything else at most 1.0, with a 2% allowance. A row meets its target when the whole\n\
         interval is at or under it and misses when the whole interval is above it; a row the first\n\
         launches cannot decide gets more pairs (up to the maximum in the list above), and one still\n\
         undecided says so with its interval.\n\n",
    );
    o.push_str(&format!("![R/C per row]({SVG_NAME})\n\n"));
    o.push_str("| case | unit | Rust | C++ | R/C | target |\n|---|---|---|---|---|---|\n");
    for r in rows {
        let [rust, cpp, ratio] = r.cells();
        writeln!(
            o,
            "| `{}` | {} | {} | {} | {} | {} |",
            r.case,
            r.unit,
            rust,
            cpp,
            ratio,
            r.verdict()
        )
        .unwrap();
    }
    if !sass.is_empty() {
        o.push_str("\n## SASS: memory, atomic and fence instructions per kernel\n\n");
        o.push_str(sass);
    }
    o
}

/// The chart's file name, next to BENCHMARKS.md (which embeds it).
pub const SVG_NAME: &str = "bench.svg";

/// Text for XML: `&`, `<`, `>` and `"` escaped.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart of every row's R/C ([`SVG_NAME`], embedded in BENCHMARKS.md): one horizontal bar
/// per row (the only `<rect>`s), green where the row meets its target, red where it misses,
/// grey without a target; a row without a ratio (a failure, one side only) has an empty bar and
/// says why. A vertical line marks 1.0 (Rust and C++ equally fast; left of it Rust is faster),
/// and a dashed mark on a row its target where that is not 1.0.
/// The axis runs from 0 to at least 2, at most 4; a longer bar is cut there and keeps its
/// number. Hand-written SVG, no dependencies.
pub fn svg(rows: &[Row]) -> String {
    const LABEL_W: f64 = 340.0;
    const BAR_W: f64 = 440.0;
    const VALUE_W: f64 = 150.0;
    const ROW_H: f64 = 16.0;
    const TOP: f64 = 48.0;
    const GREEN: &str = "#2e7d32";
    const RED: &str = "#c62828";
    const GREY: &str = "#9e9e9e";
    const AMBER: &str = "#f9a825";
    let xmax = rows
        .iter()
        .filter_map(Row::ratio)
        .filter(|r| r.is_finite())
        .fold(2.0f64, f64::max)
        .min(4.0);
    let xmax = (xmax * 2.0).ceil() / 2.0;
    let x = |r: f64| LABEL_W + r.clamp(0.0, xmax) / xmax * BAR_W;
    let bottom = TOP + rows.len() as f64 * ROW_H;
    let (width, height) = (LABEL_W + BAR_W + VALUE_W, bottom + 28.0);
    let mut o = String::new();
    writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"11\">"
    )
    .unwrap();
    writeln!(
        o,
        "<text x=\"8\" y=\"16\" font-size=\"13\">R/C per row: Rust time / C++ time (below 1.0: Rust is faster)</text>"
    )
    .unwrap();
    // Legend (circles, not rects: the rects are the bars).
    for (i, (color, what)) in [
        (GREEN, "meets its target"),
        (RED, "misses its target"),
        (AMBER, "undecided"),
        (GREY, "no ratio"),
    ]
    .iter()
    .enumerate()
    {
        let lx = 8.0 + i as f64 * 150.0;
        writeln!(
            o,
            "<circle cx=\"{}\" cy=\"30\" r=\"5\" fill=\"{color}\"/><text x=\"{}\" y=\"34\">{what}</text>",
            lx + 5.0,
            lx + 14.0
        )
        .unwrap();
    }
    writeln!(
        o,
        "<line x1=\"613\" y1=\"24\" x2=\"613\" y2=\"36\" stroke=\"#000000\" stroke-width=\"2\" \
         stroke-dasharray=\"2,1\"/><text x=\"622\" y=\"34\">a target other than 1.0</text>"
    )
    .unwrap();
    // Grid and axis labels every 0.5.
    let mut tick = 0.0;
    while tick <= xmax + 1e-9 {
        let tx = x(tick);
        writeln!(
            o,
            "<line x1=\"{tx:.1}\" y1=\"{:.1}\" x2=\"{tx:.1}\" y2=\"{bottom:.1}\" stroke=\"#e0e0e0\"/>\
             <text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{tick:.1}</text>",
            TOP - 4.0,
            bottom + 14.0
        )
        .unwrap();
        tick += 0.5;
    }
    // Per row: its name, its bar, then (after the 1.0 line) its target mark and its number.
    let bars: Vec<(&str, String, Option<f64>)> = rows
        .iter()
        .map(|r| {
            let (color, value) = match (r.failure(), r.ratio(), r.meets()) {
                (Some(_), _, _) => (RED, "FAIL".to_string()),
                (None, Some(ratio), Some(Verdict::Meets)) => (GREEN, format!("{ratio:.2}")),
                (None, Some(ratio), Some(Verdict::Misses)) => (RED, format!("{ratio:.2}")),
                (None, Some(ratio), Some(Verdict::Undecided)) => (AMBER, format!("{ratio:.2} ?")),
                (None, Some(ratio), None) => (GREY, format!("{ratio:.2}")),
                (None, None, _) if r.rust.is_none() => (GREY, "C++ only".into()),
                (None, None, _) if r.cpp.is_none() || r.rust_only => (GREY, "Rust only".into()),
                (None, None, _) => (GREY, "-".into()),
            };
            let ratio = r.ratio().filter(|v| v.is_finite() && r.failure().is_none());
            (color, value, ratio)
        })
        .collect();
    for (i, (r, (color, value, ratio))) in rows.iter().zip(&bars).enumerate() {
        let y = TOP + i as f64 * ROW_H;
        let end = ratio.map(x).unwrap_or(LABEL_W);
        let target = r
            .target
            .map(|t| format!(", target <= {t:.2}"))
            .unwrap_or_default();
        writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\
             <rect x=\"{LABEL_W:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{color}\">\
             <title>{}</title></rect>",
            LABEL_W - 6.0,
            y + 12.0,
            xml(&r.case),
            y + 3.0,
            end - LABEL_W,
            ROW_H - 6.0,
            xml(&format!("{}: {value}{target}", r.case)),
        )
        .unwrap();
    }
    // The 1.0 line, over the bars.
    let one = x(1.0);
    writeln!(
        o,
        "<line id=\"ratio-1\" x1=\"{one:.1}\" y1=\"{:.1}\" x2=\"{one:.1}\" y2=\"{bottom:.1}\" \
         stroke=\"#000000\" stroke-width=\"1.5\"/>",
        TOP - 4.0
    )
    .unwrap();
    for (i, (r, (_, value, ratio))) in rows.iter().zip(&bars).enumerate() {
        let y = TOP + i as f64 * ROW_H;
        // A target other than 1.0: a mark across the row's bar.
        if let Some(t) = r.target.filter(|t| (t - 1.0).abs() > 1e-9) {
            writeln!(
                o,
                "<line class=\"target\" x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" \
                 stroke=\"#000000\" stroke-width=\"2\" stroke-dasharray=\"2,1\"/>",
                x(t),
                y + 1.0,
                y + ROW_H - 1.0
            )
            .unwrap();
        }
        // The number, with a white outline where it crosses a line.
        writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" stroke=\"#ffffff\" stroke-width=\"3\" \
             paint-order=\"stroke\">{value}{}</text>",
            ratio.map(x).unwrap_or(LABEL_W) + 4.0,
            y + 12.0,
            if ratio.is_some_and(|v| v > xmax) {
                " (cut)"
            } else {
                ""
            }
        )
        .unwrap();
    }
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(ms: &[f64]) -> Side {
        Side {
            ms: ms.to_vec(),
            units: 1000.0,
            error: None,
        }
    }

    #[test]
    fn median_spread_and_ratio() {
        let r = side(&[1.0, 2.0, 3.0, 4.0, 100.0]);
        assert_eq!(r.median(), Some(3.0));
        assert_eq!(r.ns_per_unit(), Some(3000.0));
        let row = Row {
            case: "mutex/1x32".into(),
            unit: "x",
            rust: Some(r),
            cpp: Some(side(&[6.0; 5])),
            target: Some(1.0),
            rust_only: false,
        };
        assert_eq!(row.ratio(), Some(0.5));
        // Five pairs: the interval is the whole range, 1/6 to 100/6.
        assert_eq!(row.ratio_interval(), Some((1.0 / 6.0, 100.0 / 6.0)));
        assert_eq!(row.meets(), Some(Verdict::Undecided));
        assert!(row
            .verdict()
            .starts_with("undecided <= 1.00 (95% interval 0.17-16.67 after 5 pairs)"));
    }

    /// Fifteen pairs: the interval runs from the 4th to the 12th smallest ratio.
    #[test]
    fn a_verdict_needs_the_whole_interval_on_one_side() {
        let row = |ratios: &[f64]| Row {
            case: "atomic/x".into(),
            unit: "x",
            rust: Some(side(ratios)),
            cpp: Some(side(&vec![1.0; ratios.len()])),
            target: Some(1.0),
            rust_only: false,
        };
        let mut r: Vec<f64> = (0..15).map(|i| 0.90 + i as f64 * 0.01).collect();
        assert_eq!(row(&r).ratio_interval(), Some((r[3], r[11])));
        // 0.93-1.01: at or under 1.02.
        assert_eq!(row(&r).meets(), Some(Verdict::Meets));
        // Shifted to 1.03-1.11: all above the allowance.
        r.iter_mut().for_each(|x| *x += 0.10);
        assert_eq!(row(&r).meets(), Some(Verdict::Misses));
        assert_eq!(row(&r).verdict(), "misses <= 1.00");
        // 0.98-1.06 straddles 1.02.
        r.iter_mut().for_each(|x| *x -= 0.05);
        assert_eq!(row(&r).meets(), Some(Verdict::Undecided));
        // The ratio pairs launches by position: the reversed Rust side gives other ratios.
        r.reverse();
        let mut c = side(&[1.0; 15]);
        c.ms[0] = 2.0;
        let paired = Row {
            cpp: Some(c),
            ..row(&r)
        };
        assert_eq!(paired.pair_ratios().unwrap()[0], r[0] / 2.0);
    }

    #[test]
    fn a_wrong_result_is_a_failure_not_a_time() {
        let mut bad = side(&[1.0; 10]);
        bad.error = Some("wrong result: word 0".into());
        assert_eq!(bad.median(), None);
        let row = Row {
            case: "atomic/x".into(),
            unit: "x",
            rust: Some(bad),
            cpp: Some(side(&[1.0; 10])),
            target: Some(1.0),
            rust_only: false,
        };
        assert!(row.verdict().starts_with("FAIL: wrong result"));
        assert!(json(&[], &[row]).contains("\"error\": \"wrong result: word 0\""));
    }

    /// A small well-formedness check: every element closes in order, under one `<svg>` root,
    /// and attribute values are quoted.
    fn well_formed(doc: &str) -> Result<(), String> {
        let mut stack: Vec<String> = Vec::new();
        let mut roots = 0;
        let mut rest = doc;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').ok_or("unclosed tag")? + start;
            let tag = &rest[start + 1..end];
            rest = &rest[end + 1..];
            if !tag.matches('"').count().is_multiple_of(2) {
                return Err(format!("odd quotes in <{tag}>"));
            }
            if let Some(name) = tag.strip_prefix('/') {
                match stack.pop() {
                    Some(open) if open == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
                continue;
            }
            let name = tag.split_whitespace().next().unwrap_or("").to_string();
            if stack.is_empty() {
                roots += 1;
            }
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        if !stack.is_empty() || roots != 1 || !doc.trim_start().starts_with("<svg") {
            return Err(format!("unclosed {stack:?}, {roots} roots"));
        }
        Ok(())
    }

    #[test]
    fn the_chart_has_a_bar_per_row_and_the_line_at_one() {
        let row = |case: &str, rust: Option<Side>, cpp: Option<Side>| Row {
            case: case.into(),
            unit: "x",
            rust_only: cpp.is_none(),
            rust,
            cpp,
            target: Some(1.0),
        };
        let mut failed = side(&[1.0; 10]);
        failed.error = Some("wrong result".into());
        let rows = [
            row("a/meets", Some(side(&[1.0; 10])), Some(side(&[2.0; 10]))),
            row("a/misses", Some(side(&[3.0; 10])), Some(side(&[2.0; 10]))),
            row("b/rust<only>&", Some(side(&[1.0; 10])), None),
            row("c/failed", Some(failed), Some(side(&[1.0; 10]))),
            row("d/slow", Some(side(&[10.0; 10])), Some(side(&[1.0; 10]))),
        ];
        let doc = svg(&rows);
        well_formed(&doc).unwrap();
        assert_eq!(doc.matches("<rect").count(), rows.len(), "{doc}");
        // The axis ends at 4 (the slow row's 10 is cut): 1.0 is a quarter of the bars' width.
        assert!(doc.contains("<line id=\"ratio-1\" x1=\"450.0\""), "{doc}");
        assert!(doc.contains("<title>a/meets: 0.50, target &lt;= 1.00</title>"));
        assert!(doc.contains("fill=\"#2e7d32\"><title>a/meets"));
        assert!(doc.contains("fill=\"#c62828\"><title>a/misses: 1.50"));
        assert!(doc.contains("width=\"0.0\" height=\"10.0\" fill=\"#9e9e9e\"><title>b/rust&lt;only&gt;&amp;: Rust only"));
        assert!(
            doc.contains("width=\"0.0\" height=\"10.0\" fill=\"#c62828\"><title>c/failed: FAIL")
        );
        assert!(doc.contains(">10.00 (cut)</text>"));
        // Only targets other than 1.0 are marked.
        assert_eq!(doc.matches("class=\"target\"").count(), 0);
        // A bar's length is its ratio: 0.5 of the axis' 4 is 1/8 of 440.
        assert!(doc.contains("width=\"55.0\" height=\"10.0\" fill=\"#2e7d32\""));
        let mut half = row("e/half", Some(side(&[1.0; 10])), Some(side(&[1.0; 10])));
        half.target = Some(0.5);
        let doc = svg(&[half]);
        well_formed(&doc).unwrap();
        assert_eq!(doc.matches("class=\"target\"").count(), 1);
        assert!(doc.contains("<title>e/half: 1.00, target &lt;= 0.50</title>"));
        assert!(well_formed("<svg><rect></svg>").is_err());
        assert!(well_formed("<svg><rect/></svg><svg/>").is_err());
        // BENCHMARKS.md embeds it.
        assert!(markdown(&[], &rows, "").contains("![R/C per row](bench.svg)"));
    }

    #[test]
    fn queue_and_rwlock_rows_have_their_own_units() {
        assert_eq!(
            unit("queue/turn_ring/66+66x64"),
            unit("semaphore/mpmc_queue/66+66x64")
        );
        assert_eq!(
            unit("rwlock/read_mostly/132x256"),
            "per operation, whole grid (aggregate)"
        );
        assert_eq!(unit("grid_barrier/grid_sync/132"), "per barrier");
    }

    #[test]
    fn targets_follow_the_issue() {
        assert_eq!(target("mutex/132x256"), Some(0.5));
        assert_eq!(target("grid_barrier/grid_sync/132"), Some(0.75));
        assert_eq!(target("grid_barrier/cuda_barrier/132"), Some(1.0));
        assert_eq!(target("hash_table/132x256"), Some(1.0));
        assert_eq!(
            target("atomic/fetch_add/contended/gpu/relaxed/u32"),
            Some(1.0)
        );
    }
}
