//! `gpu_println!` in PTX (tests/kernels/src/print.rs, sm_90): one call is one
//! `call.uni (retval0), vprintf, (param0, param1);` whose format is a module `.global`
//! holding exactly the printf translation of the literal (`{}` of a `u32` is `%u`, of an `i64`
//! `%lld`), NUL-terminated; and whose buffer holds each argument at its own alignment, as
//! `vprintf` reads it (the `u32` at offset 0, the `i64` at 8).

use ptx_sync_testkit::ptx::entry_lines;
use std::collections::BTreeMap;

/// Every `.global .align 1 .b8 NAME[N] = {...};` of the module: name -> (N, the listed bytes).
/// LLVM leaves trailing zeros out of the list; the declared size keeps them.
fn byte_globals(ptx: &str) -> BTreeMap<&str, (usize, Vec<u8>)> {
    let mut out = BTreeMap::new();
    for line in ptx.lines() {
        let Some(rest) = line.trim().strip_prefix(".global .align 1 .b8 ") else {
            continue;
        };
        let Some((decl, init)) = rest.split_once(" = {") else {
            continue;
        };
        let (name, size) = decl.trim_end_matches(']').split_once('[').unwrap();
        let bytes = init
            .trim_end_matches("};")
            .split(',')
            .map(|b| b.trim().parse::<u8>().unwrap())
            .collect();
        out.insert(name, (size.parse().unwrap(), bytes));
    }
    out
}

/// The symbol moved into the register that `param0` (the format) is stored from.
fn format_symbol<'a>(lines: &[&'a str]) -> &'a str {
    let stored = lines
        .iter()
        .find_map(|l| l.strip_prefix("st.param::func.b64 \t[param0], "))
        .or_else(|| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix("st.param::func.b64 [param0], "))
        })
        .expect("the format is stored to param0")
        .trim_end_matches(';')
        .trim();
    // `cvta.global.u64 %rdB, %rdA;` then `mov.b64 %rdA, SYMBOL;`.
    let generic = lines
        .iter()
        .filter_map(|l| l.strip_prefix("cvta.global.u64"))
        .find_map(|rest| {
            let (to, from) = rest.trim().trim_end_matches(';').split_once(',')?;
            (to.trim() == stored).then_some(from.trim())
        })
        .expect("the format's address is a global's, made generic");
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("mov.b64"))
        .find_map(|rest| {
            let (to, sym) = rest.trim().trim_end_matches(';').split_once(',')?;
            (to.trim() == generic).then_some(sym.trim())
        })
        .expect("the global's address is moved into a register")
}

/// Collapses runs of whitespace (rustc's PTX separates operands with tabs).
fn squeeze(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn gpu_println_is_one_vprintf_of_a_global_format() {
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/kernels"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the test kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let raw = entry_lines(&ptx, "print_one_line");
    let lines: Vec<String> = raw.iter().map(|l| squeeze(l)).collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let listing = lines.join("\n");

    // Exactly one call, to vprintf, with the format and the buffer.
    let calls: Vec<&&str> = lines.iter().filter(|l| l.starts_with("call")).collect();
    assert_eq!(
        calls,
        [&"call.uni (retval0), vprintf, (param0, param1);"],
        "print_one_line:\n{listing}"
    );

    // The format: a `.global` of the module with the printf translation of
    // "print_one_line: x = {} y = {}" + "\n" for (u32, i64), then its NUL; the array is as long
    // as `ptx_sync::print::capacity` says (30 bytes of literal, +2 per `{`, +1 for the NUL).
    let symbol = format_symbol(&lines);
    let globals = byte_globals(&ptx);
    let (size, listed) = globals
        .get(symbol)
        .unwrap_or_else(|| panic!("no `.global .align 1 .b8 {symbol}[..] = {{..}}`"));
    let want = b"print_one_line: x = %u y = %lld\n";
    let text_end = listed.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    assert_eq!(
        &listed[..text_end],
        want,
        "format bytes: {:?}",
        String::from_utf8_lossy(listed)
    );
    assert_eq!(*size, 35, "{symbol}: the declared size");
    assert_eq!(
        ptx_sync::print::capacity("print_one_line: x = {} y = {}\n"),
        35
    );
    assert!(*size > want.len(), "room for the NUL");

    // The buffer: 8-byte aligned local memory, the u32 at offset 0 and the i64 at 8 (vprintf's
    // layout: each argument at its own alignment), its generic address passed as param1.
    assert!(
        lines.iter().any(|l| l.starts_with(".local .align 8 .b8")),
        "the buffer is 8-byte aligned:\n{listing}"
    );
    let stores: Vec<&&str> = lines.iter().filter(|l| l.starts_with("st.local")).collect();
    assert_eq!(stores.len(), 2, "two argument stores:\n{listing}");
    assert!(
        stores[0].starts_with("st.local.b32 [%rd") && !stores[0].contains('+'),
        "the u32 at offset 0: {}",
        stores[0]
    );
    assert!(
        stores[1].starts_with("st.local.b64 [%rd") && stores[1].contains("+8]"),
        "the i64 at offset 8: {}",
        stores[1]
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("st.param::func.b64 [param1], %rd")),
        "the buffer's address is param1:\n{listing}"
    );
}

/// `print_lines` (the GPU case's kernel): one `vprintf` per `gpu_println!` / `gpu_print!`, and
/// the formats of its lines, each a `.global` (the `{:x}` of an `i64` is `%llX`, a `%` is `%%`,
/// `{{` a brace).
#[test]
fn every_line_of_the_gpu_case_has_its_format() {
    let root = xtask::workspace_root();
    let ptx_path = xtask::build_ptx(&root.join("tests/kernels"), xtask::Arch::Sm90)
        .unwrap_or_else(|e| panic!("building the test kernels failed:\n{e}"));
    let ptx = std::fs::read_to_string(&ptx_path).unwrap();
    let lines = entry_lines(&ptx, "print_lines");
    let calls = lines
        .iter()
        .filter(|l| squeeze(l) == "call.uni (retval0), vprintf, (param0, param1);")
        .count();
    assert_eq!(
        calls, 11,
        "10 calls of thread 0 (9 lines, one of them in two calls), 1 of every thread"
    );
    let formats: Vec<String> = byte_globals(&ptx)
        .values()
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .filter(|s| s.starts_with("print: ") || s.starts_with("print-thread: "))
        .collect();
    let mut checks = 0;
    for want in [
        "print: u32 %u i32 %d u64 %llu i64 %lld\n",
        "print: u8 %u u16 %u usize %llu isize %lld i8 %d i16 %d\n",
        "print: hex %x %X %llx %x %llX\n",
        "print: f32 %f f64 %f third %f inf %f\n",
        "print: bool %s %s str %s\n",
        "print: 100%% {braces} and %u%%\n",
        "print: ptr %p = %llx\n",
        "print: partial ",
        "print: no arguments\n",
        "print-thread: block %u thread %u of %u\n",
    ] {
        assert!(
            formats.iter().any(|f| f == want),
            "no format {want:?} among {formats:#?}"
        );
        checks += 1;
    }
    assert_eq!(checks, 10);
}
