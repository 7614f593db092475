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
        let ratio = self
            .ratio()
            .map(|x| format!("{x:.2}"))
            .unwrap_or_else(|| "-".into());
        let cpp_absent = if self.rust_only { "-" } else { "not measured" };
        [side(&self.rust, "-"), side(&self.cpp, cpp_absent), ratio]
    }

    /// Rust median / C++ median.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.rust.as_ref()?.median()? / self.cpp.as_ref()?.median()?)
    }

    fn verdict(&self) -> String {
        let failed = [&self.rust, &self.cpp]
            .iter()
            .filter_map(|s| s.as_ref()?.error.clone())
            .next();
        if let Some(e) = failed {
            return format!("FAIL: {e}");
        }
        match (self.ratio(), self.target) {
            (Some(r), Some(t)) if r <= t * 1.02 => format!("meets <= {t:.2}"),
            (Some(_), Some(t)) => format!("misses <= {t:.2}"),
            (None, _) if self.rust.is_none() => "C++ only (Rust row: primitives issue)".into(),
            (None, _) if self.rust_only => "Rust only (no C++ counterpart)".into(),
            _ => String::new(),
        }
    }
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
    match case.split('/').next().unwrap_or("") {
        "atomic" => "ns per op, whole grid (aggregate)",
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
        "grid_barrier" => Some(0.75),
        _ => Some(1.0),
    }
}

/// One terminal line.
pub fn line(r: &Row) -> String {
    let [rust, cpp, ratio] = r.cells();
    format!(
        "{:<46} {:>20} {:>20} {:>6}  {}",
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
        "{:<46} {:>20} {:>20} {:>6}  {}",
        "case", "Rust (spread)", "C++ (spread)", "R/C", "target"
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
            "    {{\"case\": {}, \"unit\": {}, \"rust\": {}, \"cpp\": {}, \"ratio\": {}}}{}",
            json_str(&r.case),
            json_str(r.unit),
            json_side(&r.rust),
            json_side(&r.cpp),
            r.ratio()
                .map(|v| format!("{v:.4}"))
                .unwrap_or("null".into()),
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
         p10-p90 spread as a percentage of the median. R/C: Rust median / C++ median (lower is better\n\
         for Rust). Targets are the issue's: atomics 1.00, mutex at 132x256 at most 0.5, grid barrier at\n\
         most 0.75, everything else at most 1.0 (a 2% noise allowance is applied).\n\n",
    );
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
        assert_eq!(row.verdict(), "meets <= 1.00");
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

    #[test]
    fn targets_follow_the_issue() {
        assert_eq!(target("mutex/132x256"), Some(0.5));
        assert_eq!(target("grid_barrier/grid_sync/132"), Some(0.75));
        assert_eq!(target("hash_table/132x256"), Some(1.0));
        assert_eq!(
            target("atomic/fetch_add/contended/gpu/relaxed/u32"),
            Some(1.0)
        );
    }
}
