//! Compares the memory/atomic/fence instructions of the Rust and C++ kernels of the same name
//! in `cuobjdump -sass` listings.

use std::collections::{BTreeMap, BTreeSet};

/// Kernel name -> the distinct memory-ordering opcodes (with modifiers) in its SASS.
pub fn parse(listing: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in listing.lines() {
        if let Some(name) = line.split("Function : ").nth(1) {
            let name = name.trim().to_string();
            out.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let (Some(k), Some(rest)) = (current.as_ref(), line.split("*/").nth(1)) else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let mut op = words.next().unwrap_or("");
        if op.starts_with('@') {
            op = words.next().unwrap_or("");
        }
        let op = op.trim_end_matches(';');
        let base = op.split('.').next().unwrap_or("");
        let memory = matches!(base, "LD" | "ST" | "LDG" | "STG" | "ERRBAR" | "CCTL")
            || ["ATOM", "RED", "MEMBAR", "FENCE"]
                .iter()
                .any(|p| base.starts_with(p));
        if memory {
            out.get_mut(k).unwrap().insert(op.to_string());
        }
    }
    out
}

/// A Markdown table: one row per kernel present on both sides.
pub fn compare(rust: &str, cpp: &str) -> String {
    let (r, c) = (parse(rust), parse(cpp));
    let mut o = String::from("| kernel | same instructions | Rust | C++ |\n|---|---|---|---|\n");
    let (mut same, mut total) = (0, 0);
    for (name, rs) in &r {
        let Some(cs) = c.get(name) else { continue };
        total += 1;
        let eq = rs == cs;
        same += eq as u32;
        let show = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(" ");
        if eq {
            o.push_str(&format!("| `{name}` | yes | {} | (same) |\n", show(rs)));
        } else {
            let only_r: BTreeSet<_> = rs.difference(cs).cloned().collect();
            let only_c: BTreeSet<_> = cs.difference(rs).cloned().collect();
            o.push_str(&format!(
                "| `{name}` | **no** | only: {} | only: {} |\n",
                show(&only_r),
                show(&only_c)
            ));
        }
    }
    format!("{same} of {total} kernels use the same memory/atomic/fence instructions.\n\n{o}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST: &str = "
        Function : k_same
        /*0040*/                   ATOMG.E.ADD.STRONG.GPU PT, R5, desc[UR4][R2.64], R5 ;
        /*0050*/                   STG.E desc[UR4][R4.64], R5 ;
        Function : k_diff
        /*0010*/              @!P0 MEMBAR.ALL.GPU ;
        /*0020*/                   IADD3 R1, R1, 0x1, RZ ;
";
    const CPP: &str = "
        Function : k_same
        /*0040*/                   ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R2.64], R7 ;
        /*0050*/                   STG.E desc[UR4][R4.64], R7 ;
        Function : k_diff
        /*0010*/                   MEMBAR.SC.GPU ;
";

    #[test]
    fn parse_keeps_memory_opcodes_with_modifiers_and_drops_predicates() {
        let k = parse(RUST);
        assert_eq!(
            k["k_same"].iter().collect::<Vec<_>>(),
            ["ATOMG.E.ADD.STRONG.GPU", "STG.E"]
        );
        assert_eq!(k["k_diff"].iter().collect::<Vec<_>>(), ["MEMBAR.ALL.GPU"]);
    }

    #[test]
    fn compare_reports_each_difference() {
        let table = compare(RUST, CPP);
        assert!(table.starts_with("1 of 2 kernels"), "{table}");
        assert!(
            table.contains("| `k_diff` | **no** | only: MEMBAR.ALL.GPU | only: MEMBAR.SC.GPU |"),
            "{table}"
        );
    }
}
