//! The suite's report: one [`Row`] per (test, variant), written as a terminal table, CSV, JSON
//! and the `LITMUS.md` table. GPU-free, so CI checks the verdicts and the formats.

use crate::oracle::Class;
use std::fmt::Write as _;

/// One observed outcome of a row and how many instances showed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The outcome as the report shows it: `[1, 0]` for registers/finals, or a word such as
    /// `ok` / `stale` for the primitive-shaped tests.
    pub label: String,
    pub count: u64,
    pub class: Class,
}

/// One (test, variant) cell of the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `MP`, `IRIW`, `mutex handoff`, ...
    pub test: String,
    /// `sync`, `relaxed`, `cta-across-ctas`, `cta-within-cta`, ...
    pub variant: String,
    /// PTX scope of the accesses: `cta`, `gpu`, `sys`.
    pub scope: String,
    /// Where the roles ran: `across CTAs`, `one CTA`, `host + GPU`, ...
    pub placement: String,
    /// Instances run (each contributes one outcome).
    pub instances: u64,
    pub outcomes: Vec<Outcome>,
    pub launches: u64,
    /// Wall time of the row on the GPU machine, launches and tallies included.
    pub seconds: f64,
    /// True: the model forbids the weak outcome here (a claim: must be 0). False: a control
    /// (the weak outcome is allowed and the harness should see it).
    pub claim: bool,
}

impl Row {
    fn count(&self, class: Class) -> u64 {
        self.outcomes
            .iter()
            .filter(|o| o.class == class)
            .map(|o| o.count)
            .sum()
    }

    /// Instances that showed the shape's weak outcome (allowed or not).
    pub fn weak(&self) -> u64 {
        self.count(Class::WeakAllowed) + self.count(Class::Forbidden)
    }

    pub fn forbidden(&self) -> u64 {
        self.count(Class::Forbidden)
    }

    pub fn impossible(&self) -> u64 {
        self.count(Class::Impossible)
    }

    /// Weak outcomes per million instances.
    pub fn weak_per_million(&self) -> f64 {
        if self.instances == 0 {
            0.0
        } else {
            self.weak() as f64 * 1e6 / self.instances as f64
        }
    }

    /// Whether the row passed: no impossible outcome, every instance accounted for, and for a
    /// claim no forbidden outcome. A control that shows no weak outcome passes (the model
    /// allows, not requires, it) but its verdict says the harness did not see one.
    pub fn passed(&self) -> bool {
        self.impossible() == 0 && self.forbidden() == 0 && self.all_counted()
    }

    /// Whether the outcomes account for every instance exactly.
    fn all_counted(&self) -> bool {
        self.outcomes.iter().map(|o| o.count).sum::<u64>() == self.instances
    }

    pub fn verdict(&self) -> &'static str {
        if self.impossible() != 0 || !self.all_counted() {
            "HARNESS ERROR"
        } else if self.forbidden() != 0 {
            "FORBIDDEN SEEN"
        } else if self.claim {
            "ok: 0 forbidden"
        } else if self.weak() != 0 {
            "weak seen"
        } else {
            "no weak seen"
        }
    }

    fn outcome_list(&self) -> String {
        let mut v: Vec<String> = self
            .outcomes
            .iter()
            .map(|o| {
                let mark = match o.class {
                    Class::Sc => "",
                    Class::WeakAllowed => " (weak)",
                    Class::Forbidden => " (FORBIDDEN)",
                    Class::Impossible => " (IMPOSSIBLE)",
                };
                format!("{}: {}{mark}", o.label, o.count)
            })
            .collect();
        v.sort();
        v.join("; ")
    }
}

/// Thousands separators: 123456789 -> "123,456,789".
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The terminal table (one line per row).
pub fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<16} {:<16} {:<5} {:<12} {:>15} {:>10} {:>12} {:>8}  {}\n",
        "test",
        "variant",
        "scope",
        "placement",
        "instances",
        "weak",
        "weak/M",
        "seconds",
        "verdict"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<16} {:<16} {:<5} {:<12} {:>15} {:>10} {:>12.1} {:>8.1}  {}",
            r.test,
            r.variant,
            r.scope,
            r.placement,
            grouped(r.instances),
            grouped(r.weak()),
            r.weak_per_million(),
            r.seconds,
            r.verdict()
        );
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One cell of the CSV and the JSON (the same columns, in the same order, in both).
enum Cell {
    /// Free text: quoted where CSV needs it, a JSON string.
    Text(String),
    /// A fixed word (scope, verdict): bare in CSV, a JSON string.
    Word(String),
    /// A number or boolean, written as is in both.
    Raw(String),
}

/// The columns before `outcomes` (which each format writes its own way): the CSV header and
/// the JSON keys of [`cells`].
const COLUMNS: [&str; 13] = [
    "test",
    "variant",
    "scope",
    "placement",
    "claim",
    "instances",
    "weak",
    "forbidden",
    "impossible",
    "weak_per_million",
    "launches",
    "seconds",
    "verdict",
];

/// A row's [`COLUMNS`].
fn cells(r: &Row) -> [Cell; 13] {
    use Cell::*;
    [
        Text(r.test.clone()),
        Text(r.variant.clone()),
        Word(r.scope.clone()),
        Text(r.placement.clone()),
        Raw(r.claim.to_string()),
        Raw(r.instances.to_string()),
        Raw(r.weak().to_string()),
        Raw(r.forbidden().to_string()),
        Raw(r.impossible().to_string()),
        Raw(format!("{:.3}", r.weak_per_million())),
        Raw(r.launches.to_string()),
        Raw(format!("{:.3}", r.seconds)),
        Word(r.verdict().to_string()),
    ]
}

/// CSV: one line per row, outcomes as `label: count` joined by `; `.
pub fn csv(rows: &[Row]) -> String {
    let mut out = format!("{},outcomes\n", COLUMNS.join(","));
    for r in rows {
        for cell in cells(r) {
            match cell {
                Cell::Text(s) => out.push_str(&csv_field(&s)),
                Cell::Word(s) | Cell::Raw(s) => out.push_str(&s),
            }
            out.push(',');
        }
        let _ = writeln!(out, "{}", csv_field(&r.outcome_list()));
    }
    out
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON: `{"rows": [...]}` plus whatever `extra` members the caller adds (device, seed, ...):
/// each `(key, raw JSON value)`.
pub fn json(rows: &[Row], extra: &[(&str, String)]) -> String {
    let mut out = String::from("{\n");
    for (k, v) in extra {
        let _ = writeln!(out, "  {}: {v},", json_str(k));
    }
    out.push_str("  \"rows\": [\n");
    for (n, r) in rows.iter().enumerate() {
        out.push_str("    {");
        for (name, cell) in COLUMNS.iter().zip(cells(r)) {
            let value = match cell {
                Cell::Text(s) | Cell::Word(s) => json_str(&s),
                Cell::Raw(s) => s,
            };
            let _ = write!(out, "{}: {value}, ", json_str(name));
        }
        let outcomes: Vec<String> = r
            .outcomes
            .iter()
            .map(|o| {
                format!(
                    "{{\"outcome\": {}, \"count\": {}, \"class\": \"{:?}\"}}",
                    json_str(&o.label),
                    o.count,
                    o.class
                )
            })
            .collect();
        let _ = write!(out, "\"outcomes\": [{}]}}", outcomes.join(", "));
        out.push_str(if n + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

/// The markdown table of `LITMUS.md`.
pub fn markdown_table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| test | variant | scope | placement | instances | outcomes (count) | weak per million | verdict |\n\
         |---|---|---|---|---:|---|---:|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.1} | {} |",
            r.test,
            r.variant,
            r.scope,
            r.placement,
            grouped(r.instances),
            r.outcome_list(),
            r.weak_per_million(),
            r.verdict()
        );
    }
    out
}
