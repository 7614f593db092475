//! Which stress parameters make weak outcomes show: the controls' launches grouped by each
//! parameter's value, weak outcomes per million instances in each group. This is how the
//! stress distribution in [`crate::plan`] is tuned, and it goes into `LITMUS.md`.

use crate::launch::Launch;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Reads one parameter of a launch.
pub type Get = fn(&Launch) -> u32;

/// The parameters tallied, and how to read each from a launch.
pub const PARAMETERS: &[(&str, Get)] = &[
    ("stress_iters", |l| l.stress_iters),
    ("stress_pattern", |l| l.stress_pattern),
    ("stress_lines", |l| l.stress_lines),
    ("stress_line_words", |l| l.stress_line_words),
    ("pre_stress_iters", |l| l.pre_stress_iters),
    ("pre_stress_pattern", |l| l.pre_stress_pattern),
    ("rendezvous", |l| l.rendezvous),
    ("stride", |l| l.stride),
];

/// (parameter, value) -> (instances, weak), summed over `launches` of (launch, instances, weak).
pub fn by_parameter(launches: &[(Launch, u64, u64)]) -> BTreeMap<(&'static str, u32), (u64, u64)> {
    let mut out = BTreeMap::new();
    for (l, instances, weak) in launches {
        for (name, get) in PARAMETERS {
            let e = out.entry((*name, get(l))).or_insert((0, 0));
            e.0 += instances;
            e.1 += weak;
        }
    }
    out
}

/// A markdown table of [`by_parameter`].
pub fn markdown(launches: &[(Launch, u64, u64)]) -> String {
    let mut out = String::from(
        "| parameter | value | instances | weak | weak per million |\n|---|---:|---:|---:|---:|\n",
    );
    for ((name, value), (instances, weak)) in by_parameter(launches) {
        let rate = if instances == 0 {
            0.0
        } else {
            weak as f64 * 1e6 / instances as f64
        };
        let _ = writeln!(
            out,
            "| {name} | {value} | {instances} | {weak} | {rate:.1} |"
        );
    }
    out
}
