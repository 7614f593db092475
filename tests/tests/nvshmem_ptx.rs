//! Golden PTX of `ptx_sync::nvshmem`: every public function, for every element type it takes,
//! calls exactly the NVSHMEM function it must, and the `.extern .func` declaration of that
//! function has NVSHMEM's C parameter count and return.
//!
//! The kernels come from tests/golden-nvshmem (one per case in its cases.rs, where the
//! expected symbols and C signatures are written from NVSHMEM 3.4.5's headers, independently
//! of the device crate's tables). The crate is built without NVSHMEM's bitcode, so every call
//! stays a `.extern .func` declaration: a wrong type name, a `nvshmem_` for a `nvshmemx_`, a
//! missing or extra parameter in the crate's declarations fails here. The same PTX must
//! assemble with `ptxas --compile-only` for sm_90 (unresolved externs are allowed there).

#[allow(dead_code)]
mod cases {
    include!("../golden-nvshmem/cases.rs");
}

use ptx_sync_testkit::ptx::body;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;
use xtask::{build_ptx, find_ptxas, workspace_root, Arch};

/// Checks in total: one per kernel (its call targets, in order), one per call (the callee's
/// declaration), one per public function of the module source (it has a case). A case added
/// or lost without updating this number fails the test.
const EXPECTED_CHECKS: usize = 308 + 309 + 61;

/// The PTX of tests/golden-nvshmem for sm_90, built once for both tests.
fn ptx_path() -> &'static PathBuf {
    static PTX: OnceLock<PathBuf> = OnceLock::new();
    PTX.get_or_init(|| {
        build_ptx(&workspace_root().join("tests/golden-nvshmem"), Arch::Sm90)
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// The call targets of a kernel, in order: the operand after the optional `(retval)` list of
/// each `call` statement. Statements may span lines, so the body is split at `;`.
fn call_targets(kernel: &str) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in kernel.split(';') {
        let stmt = stmt
            .lines()
            .map(|l| l.split("//").next().unwrap_or("").trim())
            .collect::<Vec<_>>()
            .join(" ");
        // The opcode is the first `call` / `call.uni` word: a chunk can start with the
        // kernel's header or a `{` of the call sequence (comments are gone).
        let Some(at) = stmt
            .split_whitespace()
            .find(|w| *w == "call" || w.starts_with("call."))
            .and_then(|w| stmt.find(w).map(|i| i + w.len()))
        else {
            continue;
        };
        let mut rest = stmt[at..].trim();
        if rest.starts_with('(') {
            let close = rest.find(')').expect("unclosed return list");
            rest = rest[close + 1..].trim().trim_start_matches(',').trim();
        }
        let target: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
            .collect();
        out.push(target);
    }
    out
}

/// Every `.extern .func` declaration of the PTX: name -> (returns a value, parameter count).
fn extern_decls(ptx: &str) -> BTreeMap<String, (bool, usize)> {
    let mut out = BTreeMap::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".extern .func") {
        let decl = &rest[at + ".extern .func".len()..];
        let end = decl.find(';').expect("unterminated .extern .func");
        let decl = &decl[..end];
        rest = &rest[at + end..];
        let decl = decl.trim();
        // `(.param .b64 func_retval0) name ( .param ..., .param ... )`
        let (returns, after_ret) = if decl.starts_with('(') {
            let close = decl.find(')').expect("unclosed return");
            (true, decl[close + 1..].trim())
        } else {
            (false, decl)
        };
        let name: String = after_ret
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let params = after_ret[name.len()..].matches(".param").count();
        out.insert(name, (returns, params));
    }
    out
}

/// The public functions of device/src/nvshmem.rs and device/src/nvshmem/*.rs, named as the
/// cases name them (`team.rs`'s `my_pe` is `team_my_pe`, `symmetric.rs`'s `ptr` is
/// `symmetric_ptr`); the pointer helpers of `Symmetric` and `Team::raw`, which call nothing,
/// are left out.
fn public_functions() -> Vec<String> {
    let dir = workspace_root().join("device/src");
    let mut files = vec![dir.join("nvshmem.rs")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(dir.join("nvshmem"))
        .expect("device/src/nvshmem")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    more.sort();
    files.extend(more);
    let mut out = Vec::new();
    for file in files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let line = line.trim();
            let Some(rest) = [
                "pub fn ",
                "pub unsafe fn ",
                "pub const fn ",
                "pub const unsafe fn ",
            ]
            .iter()
            .find_map(|p| line.strip_prefix(p)) else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let name = match (stem.as_str(), name.as_str()) {
                ("symmetric", "from_ptr" | "as_ptr" | "add") | ("team", "raw") => continue,
                ("team" | "symmetric", _) => format!("{stem}_{name}"),
                _ => name,
            };
            out.push(name);
        }
    }
    out
}

#[test]
fn every_function_calls_its_nvshmem_symbol() {
    let path = ptx_path();
    let ptx = std::fs::read_to_string(path).unwrap();
    let decls = extern_decls(&ptx);
    let cases = cases::cases();
    let mut checks = 0;
    let mut failures = Vec::new();

    for case in &cases {
        let kernel = body(&ptx, &case.kernel);
        let targets = call_targets(kernel);
        let expected: Vec<&str> = case.calls.iter().map(|c| c.0.as_str()).collect();
        checks += 1;
        if targets != expected {
            failures.push(format!(
                "{}: calls {targets:?}, expected {expected:?}",
                case.kernel
            ));
        }
        for (symbol, params, returns) in &case.calls {
            checks += 1;
            match decls.get(symbol) {
                Some(&got) if got == (*returns, *params) => {}
                Some(&(r, n)) => failures.push(format!(
                    "{}: .extern .func {symbol} has {n} parameters{}, NVSHMEM's C \
                     signature {params}{}",
                    case.kernel,
                    if r { " and a return value" } else { "" },
                    if *returns { " and a return value" } else { "" },
                )),
                None => failures.push(format!(
                    "{}: no .extern .func {symbol} in the PTX",
                    case.kernel
                )),
            }
        }
    }

    // Every public function of the module has a case, and every case names one.
    let functions = public_functions();
    let ops: BTreeSet<&str> = cases.iter().map(|c| c.op).collect();
    for f in &functions {
        checks += 1;
        if !ops.contains(f.as_str()) {
            failures.push(format!(
                "public function `{f}` has no case in tests/golden-nvshmem/cases.rs"
            ));
        }
    }
    for op in &ops {
        if !functions.iter().any(|f| f == op) {
            failures.push(format!("case `{op}` names no public function"));
        }
    }

    // No NVSHMEM declaration that no case expects (a stray helper call).
    let expected_symbols: BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| c.calls.iter().map(|x| x.0.as_str()))
        .collect();
    for name in decls.keys() {
        if name.starts_with("nvshmem") && !expected_symbols.contains(name.as_str()) {
            failures.push(format!("unexpected .extern .func {name}"));
        }
    }

    println!(
        "{checks} checks over {} kernels ({})",
        cases.len(),
        path.display()
    );
    assert!(
        failures.is_empty(),
        "{} of {checks} checks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(checks, EXPECTED_CHECKS, "the number of checks changed");
}

/// `ptxas --compile-only` for sm_90 accepts the PTX (the calls stay unresolved externs,
/// which only a full link resolves). Ignored with the reason where tests/build.rs found no
/// sm_90 ptxas and could not fetch one.
#[test]
#[cfg_attr(
    no_ptxas_sm90 = "no_download",
    ignore = "skipped: no ptxas for sm_90 is installed, and PTX_SYNC_NO_DOWNLOAD is set, so \
              the pinned one (nvidia-cuda-nvcc, CUDA 13) was not downloaded into target/tools"
)]
#[cfg_attr(
    no_ptxas_sm90 = "fetch_failed",
    ignore = "skipped: no ptxas for sm_90 is installed, and downloading the pinned one \
              (nvidia-cuda-nvcc, CUDA 13) into target/tools failed (offline?): the build's \
              warning says why"
)]
fn ptxas_compile_only_accepts_sm_90() {
    let ptxas = find_ptxas(Arch::Sm90).unwrap_or_else(|e| panic!("{e}"));
    ptx_sync_testkit::ptx::assert_ptxas_compiles_sm90(&ptxas, ptx_path(), "nvshmem-golden");
}
