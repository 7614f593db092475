//! The PTX text parser the PTX checks share (tests/tests/golden_ptx.rs,
//! litmus/tests/kernels_ptx.rs): a kernel's body, its lines, its statements and their opcodes.
//! What a check keeps of them (which opcodes count) stays with the check. And the one
//! `ptxas --compile-only` run those checks assert.

use std::collections::BTreeMap;

/// The text of kernel `name` in `ptx`: from `.entry name(` to the kernel's closing `}` (a line
/// of its own at column 0), exclusive. Panics if the PTX has no such kernel.
pub fn body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no kernel {name} in the PTX"));
    let rest = &ptx[start..];
    let end = rest
        .find("\n}\n")
        .unwrap_or_else(|| panic!("kernel {name}: no end"));
    &rest[..end]
}

/// The lines of kernel `name` ([`body`]) without their `//` comments, trimmed, empty ones
/// left out.
pub fn entry_lines<'a>(ptx: &'a str, name: &str) -> Vec<&'a str> {
    body(ptx, name)
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The statements of one (trimmed) line: `asm!` may put several statements, a `{ }` scope and a
/// label on one line. Each comes without its `;`, braces and label.
pub fn statements(line: &str) -> impl Iterator<Item = &str> {
    line.split(';').map(|stmt| {
        let stmt = stmt
            .trim()
            .trim_start_matches('{')
            .trim_end_matches('}')
            .trim();
        // A label ends at a single ':'; `::` belongs to an opcode (`.shared::cta`).
        match stmt.split_once(':') {
            Some((label, rest))
                if !label.contains(char::is_whitespace) && !rest.starts_with(':') =>
            {
                rest.trim()
            }
            _ => stmt,
        }
    })
}

/// The opcode of a statement or line (its first word, without a trailing `;`); `""` if none.
pub fn opcode(stmt: &str) -> &str {
    stmt.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches(';')
}

/// Every `.visible .entry` kernel of `ptx`, by name: `keep(statement, &mut out)` is called on
/// each [`statements`] of each line of the kernel, in order, and pushes what the check wants
/// of it. A kernel ends at the first line that is `}` alone.
pub fn kernels(
    ptx: &str,
    mut keep: impl FnMut(&str, &mut Vec<String>),
) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in ptx.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            current = Some((name, Vec::new()));
            continue;
        }
        if line == "}" {
            if let Some((name, insns)) = current.take() {
                out.insert(name, insns);
            }
            continue;
        }
        let Some((_, insns)) = current.as_mut() else {
            continue;
        };
        for stmt in statements(line) {
            keep(stmt, insns);
        }
    }
    out
}

/// Runs `ptxas -arch=sm_90 --compile-only` on `ptx` (unresolved externs allowed, as a kernel
/// crate that calls NVSHMEM leaves them until the link) and panics with ptxas's output if it
/// refuses the file. `tag` names the scratch object file (with the process id).
pub fn assert_ptxas_compiles_sm90(ptxas: &std::path::Path, ptx: &std::path::Path, tag: &str) {
    let out_file = std::env::temp_dir().join(format!("{tag}-{}.o", std::process::id()));
    let out = std::process::Command::new(ptxas)
        .args(["-arch=sm_90", "--compile-only", "-o"])
        .arg(&out_file)
        .arg(ptx)
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", ptxas.display()));
    let _ = std::fs::remove_file(&out_file);
    assert!(
        out.status.success(),
        "{} -arch=sm_90 --compile-only {} failed:\n{}{}",
        ptxas.display(),
        ptx.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{}: assembled (--compile-only)", ptx.display());
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.visible .entry k1(
\t.param .u64 k1_param_0
)
{
\tld.param.u64 \t%rd1, [k1_param_0];
\t// litmus role 0
	{ fence.acq_rel.gpu; $L__BB0_1: atom.add.u32 %r1, [%rd1], 1; }
\tmbarrier.arrive.shared::cta.b64 %rd2, [%rd3];
\tret;
}

.visible .entry k2()
{
\tret;
}
";

    #[test]
    fn bodies_and_lines() {
        assert!(body(PTX, "k1").starts_with(".entry k1("));
        assert!(!body(PTX, "k1").contains("k2"));
        let lines = entry_lines(PTX, "k1");
        assert_eq!(lines[0], ".entry k1(");
        assert!(!lines.iter().any(|l| l.contains("litmus")));
        assert_eq!(*lines.last().unwrap(), "ret;");
    }

    #[test]
    fn statements_lose_labels_braces_and_semicolons() {
        let line = "{ fence.acq_rel.gpu; $L__BB0_1: atom.add.u32 %r1, [%rd1], 1; }";
        let s: Vec<_> = statements(line).filter(|s| !s.is_empty()).collect();
        assert_eq!(s, ["fence.acq_rel.gpu", "atom.add.u32 %r1, [%rd1], 1"]);
        let s: Vec<_> = statements("mbarrier.try_wait.shared::cta.b64 p, [a];").collect();
        assert_eq!(opcode(s[0]), "mbarrier.try_wait.shared::cta.b64");
        assert_eq!(opcode("ret;"), "ret");
        assert_eq!(opcode(""), "");
    }

    #[test]
    fn kernels_by_name() {
        let found = kernels(PTX, |stmt, out| {
            let op = opcode(stmt);
            if [".", "ld.param", "//", "{", ")"]
                .iter()
                .all(|p| !op.starts_with(p))
                && !op.is_empty()
            {
                out.push(op.to_string());
            }
        });
        assert_eq!(
            found["k1"],
            [
                "fence.acq_rel.gpu",
                "atom.add.u32",
                "mbarrier.arrive.shared::cta.b64",
                "ret"
            ]
        );
        assert_eq!(found["k2"], ["ret"]);
    }
}
