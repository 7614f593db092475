//! A check of the PTX a kernel crate built to: stores that keep the low bits of a register a
//! floating-point instruction wrote.
//!
//! rustc's LLVM stores the low half of a float's bits (`(x + y).to_bits() as u32` written to
//! memory) as a narrow store straight from the float's register: `add.rn.f64 %rd9, ..;` then
//! `st.global.b32 [%rd10], %rd9;`. The PTX ISA defines a store from a register wider than its
//! type as keeping the register's low bits, but ptxas (and the driver's JIT compiler) of CUDA
//! 12.9 and 13.0 compile this one as a float-to-integer conversion (`F2I.U32.F64.TRUNC`), so the
//! stored word is the float's value rounded to an integer, not its bits; CUDA 13.5's ptxas
//! stores the bits. The same holds for `f32` bits stored as 16 or 8 bits. The kernel's source is
//! correct, so no compiler warns; this check does.

/// One narrowing store of a float register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FloatNarrowStore {
    /// The function (`.entry` or `.func`) it is in.
    pub function: String,
    /// Its 1-based line in the PTX file.
    pub line: usize,
    /// The store instruction, trimmed.
    pub store: String,
}

/// The narrowing stores of float registers in `ptx`, in file order.
pub(crate) fn float_narrow_stores(ptx: &str) -> Vec<FloatNarrowStore> {
    let mut found = vec![];
    let lines: Vec<&str> = ptx.lines().collect();
    let mut start = 0;
    while start < lines.len() {
        let Some(name) = function_name(lines[start]) else {
            start += 1;
            continue;
        };
        let end = (start + 1..lines.len())
            .find(|&i| function_name(lines[i]).is_some())
            .unwrap_or(lines.len());
        let body = &lines[start..end];
        // Whether a register's latest write above a store was a float instruction's; a store
        // in a loop may come above every write of its register, and then any float write of
        // it in the function counts.
        let any_float: Vec<&str> = body
            .iter()
            .filter_map(|l| destination(l))
            .filter(|&(_, float)| float)
            .map(|(r, _)| r)
            .collect();
        let mut latest: Vec<(&str, bool)> = vec![];
        for (i, l) in body.iter().enumerate() {
            if let Some((reg, float)) = destination(l) {
                match latest.iter_mut().find(|(r, _)| *r == reg) {
                    Some(entry) => entry.1 = float,
                    None => latest.push((reg, float)),
                }
                continue;
            }
            let is_float = |r: &str| match latest.iter().find(|(x, _)| *x == r) {
                Some(&(_, float)) => float,
                None => any_float.contains(&r),
            };
            if let Some(store) = narrow_store_of(l, is_float) {
                found.push(FloatNarrowStore {
                    function: name.to_string(),
                    line: start + i + 1,
                    store: store.split_whitespace().collect::<Vec<_>>().join(" "),
                });
            }
        }
        start = end;
    }
    found
}

/// The name of the function a line declares (`.entry name(` or `.func (ret) name(`).
fn function_name(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t
        .strip_prefix(".visible ")
        .or_else(|| t.strip_prefix(".weak "))
        .or_else(|| t.strip_prefix(".extern "))
        .unwrap_or(t)
        .trim_start();
    let rest = t
        .strip_prefix(".entry ")
        .or_else(|| t.strip_prefix(".func "))?
        .trim_start();
    // A `.func` may return through a parameter list before its name.
    let rest = match rest.strip_prefix('(') {
        Some(r) => r.split_once(')')?.1.trim_start(),
        None => rest,
    };
    let name = rest
        .split(|c: char| c == '(' || c.is_whitespace() || c == ';')
        .next()?;
    (!name.is_empty()).then_some(name)
}

/// The register an instruction on this line writes, and whether it is a float instruction
/// (its opcode's first type is `.f16`, `.f32` or `.f64`; for `cvt`, the first type is the
/// destination's). Inline assembly counts like any instruction: rustc writes it into the PTX.
fn destination(line: &str) -> Option<(&str, bool)> {
    let t = line.trim();
    let (opcode, operands) = t.split_once(char::is_whitespace)?;
    let name = opcode.split('.').next()?;
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric())
        || matches!(
            name,
            "st" | "setp" | "bra" | "call" | "ret" | "red" | "prefetch"
        )
    {
        return None;
    }
    let dest = operands.trim().split(',').next()?.trim();
    if !dest.starts_with('%') || dest.contains(['[', ' ', '|']) {
        return None;
    }
    let first_type = opcode.split('.').skip(1).find(|m| is_type(m));
    let float = matches!(first_type, Some("f16" | "f32" | "f64"));
    Some((dest, float))
}

/// A PTX fundamental type suffix (`b32`, `u64`, `f32`, `s8`, ...).
fn is_type(m: &str) -> bool {
    let (kind, bits) = m.split_at(1.min(m.len()));
    matches!(kind, "b" | "u" | "s" | "f") && matches!(bits, "8" | "16" | "32" | "64")
}

/// The trimmed line, if it stores fewer bits than one of its source registers holds and that
/// register holds a float (`is_float`).
fn narrow_store_of(line: &str, is_float: impl Fn(&str) -> bool) -> Option<String> {
    let t = line.trim();
    let (opcode, operands) = t.split_once(char::is_whitespace)?;
    if opcode.split('.').next()? != "st" {
        return None;
    }
    let bits: u32 = opcode
        .split('.')
        .skip(1)
        .find(|m| is_type(m))?
        .get(1..)?
        .parse()
        .ok()?;
    // The value operand(s): after the address's closing bracket.
    let values = operands.split_once(']')?.1;
    let narrowing = values
        .split(|c: char| matches!(c, ',' | '{' | '}' | ';') || c.is_whitespace())
        .filter(|r| r.starts_with('%'))
        .any(|r| register_bits(r).is_some_and(|w| w > bits) && is_float(r));
    narrowing.then(|| t.to_string())
}

/// The width of one of LLVM's NVPTX registers, by its name: `%rd` 64, `%r` 32, `%rs` 16.
fn register_bits(reg: &str) -> Option<u32> {
    let name = reg.strip_prefix('%')?;
    let prefix: String = name
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match prefix.as_str() {
        "rd" => Some(64),
        "r" => Some(32),
        "rs" => Some(16),
        _ => None,
    }
}

/// The `cargo:warning=` lines for `found` in the PTX of package `package` at `ptx`: the first
/// `max` stores, then a line counting the rest.
pub(crate) fn warning_lines(
    found: &[FloatNarrowStore],
    package: &str,
    ptx: &std::path::Path,
    max: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = found
        .iter()
        .take(max)
        .map(|s| {
            format!(
                "cargo:warning={package}: `{}` in `{}` ({}:{}) stores the low bits of a float's register: \
                 ptxas and the driver JIT of CUDA 12.9 and 13.0 compile it as a float-to-integer conversion, \
                 not the bits; store the whole value, or pass the bits through core::hint::black_box \
                 before narrowing them",
                s.store,
                s.function,
                ptx.display(),
                s.line
            )
        })
        .collect();
    if found.len() > max {
        lines.push(format!(
            "cargo:warning={package}: {} more such stores in {}",
            found.len() - max,
            ptx.display()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rustc 1.99.1 emits for `(v + w).to_bits()` stored as two `u32` words (trimmed).
    const F64_LOW_WORD: &str = "
.visible .entry low_add(
\t.param .u64 .ptr .align 1 low_add_param_0
)
{
\tadd.rn.f64 \t%rd9, %rd7, %rd8;
\tst.volatile.global.b32 \t[%rd10], %rd9;
\tshr.u64 \t%rd11, %rd9, 32;
\tst.volatile.global.b32 \t[%rd10+4], %rd11;
\tret;
}
";

    #[test]
    fn the_low_word_of_an_f64_add_is_found_and_the_shifted_high_word_is_not() {
        let found = float_narrow_stores(F64_LOW_WORD);
        assert_eq!(
            found,
            vec![FloatNarrowStore {
                function: "low_add".into(),
                line: 7,
                store: "st.volatile.global.b32 [%rd10], %rd9;".into(),
            }]
        );
    }

    #[test]
    fn selects_and_f32_halves_and_funcs_with_return_parameters_count() {
        let ptx = "
.func  (.param .b32 func_retval0) helper(
)
{
\tselp.f64 \t%rd13, %rd12, %rd7, %p1;
\tst.global.b32 \t[%rd1], %rd13;
\tadd.rn.f32 \t%r4, %r2, %r3;
\tst.volatile.global.b16 \t[%rd7], %r4;
\tst.global.v2.b32 \t[%rd2], {%rd13, %r9};
}
.visible .entry k(
)
{
\tst.global.b32 \t[%rd1], %rd13;
}
";
        let found = float_narrow_stores(ptx);
        let at: Vec<(&str, usize)> = found
            .iter()
            .map(|f| (f.function.as_str(), f.line))
            .collect();
        // The second function's %rd13 is its own register, which no float instruction wrote.
        assert_eq!(at, vec![("helper", 6), ("helper", 8), ("helper", 9)]);
    }

    #[test]
    fn integer_values_full_width_stores_and_conversions_to_integers_are_not_found() {
        let ptx = "
.visible .entry k(
)
{
\tadd.s64 \t%rd9, %rd7, %rd8;
\tst.global.b32 \t[%rd1], %rd9;
\tadd.rn.f64 \t%rd10, %rd7, %rd8;
\tst.global.b64 \t[%rd1], %rd10;
\tst.global.f64 \t[%rd1], %rd10;
\tcvt.rzi.u32.f64 \t%r1, %rd10;
\tst.global.b16 \t[%rd1], %r1;
\tsetp.lt.f64 \t%p1, %rd10, %rd9;
\tcvt.rn.f32.f64 \t%r2, %rd10;
\tst.global.b32 \t[%rd1], %r2;
}
";
        assert_eq!(float_narrow_stores(ptx), vec![]);
    }

    #[test]
    fn warning_lines_name_the_store_and_the_fix_and_count_the_rest() {
        let found = float_narrow_stores(F64_LOW_WORD);
        let three: Vec<_> = std::iter::repeat_n(found[0].clone(), 3).collect();
        let lines = warning_lines(&three, "kernels", std::path::Path::new("k.ptx"), 2);
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with(
            "cargo:warning=kernels: `st.volatile.global.b32 [%rd10], %rd9;` in `low_add` (k.ptx:7)"
        ));
        assert!(lines[0].contains("core::hint::black_box"));
        assert_eq!(
            lines[2],
            "cargo:warning=kernels: 1 more such stores in k.ptx"
        );
    }
}
