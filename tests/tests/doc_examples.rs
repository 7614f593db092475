//! The GPU-only examples of the device crate's docs compile to PTX.
//!
//! rustdoc renders the docs of the GPU-only API (`block`, `grid`, `block_barrier`, `bulk`,
//! `cluster`, `AtomicU128`, `ClusterShared`) only in the nvptx build, and cannot run a doctest
//! there, so those examples are ```` ```ignore ```` blocks that rustdoc never compiles. This
//! test does: it collects every doc-comment (`///`, `//!`) code block under device/src whose
//! info string says `ignore` and which holds an `extern "ptx-kernel"` function, strips
//! rustdoc's hidden-line `# ` prefixes as rustdoc does, and builds them for sm_90 (where all
//! of that API exists), with the `nvshmem` feature (its calls stay `.extern .func`
//! declarations without NVSHMEM's bitcode), into one kernel crate under `target/doc-examples`:
//!
//! - each source file becomes a module (`device/src/block_barrier/tx.rs` is
//!   `device_src_block_barrier_tx`), each example in it a module named after the line of its
//!   opening fence (`line_47`), and the generated file keeps the source's line numbers, so
//!   rustc's errors point at `src/device/src/block_barrier/tx.rs:52`, which is line 52 of
//!   device/src/block_barrier/tx.rs; the failure lists those places;
//! - an example that is a whole crate (it starts with `#![no_std]`, as the crate page's
//!   flagship kernel and the NVSHMEM ring do) builds as a crate of its own.
//!
//! The kernels of the examples are `#[unsafe(no_mangle)]` and named `doc_<module>_<what>`
//! (the crate-level ones excepted), so the PTX must have an `.entry` for exactly the kernels
//! found; the crate denies warnings, so an example with an unused import or an unsafe
//! operation outside an `unsafe` block (edition 2024) fails too. [`EXPECTED_EXAMPLES`] pins
//! how many examples there are: one lost (a fence's info string changed) or added fails until
//! the number is updated. `ptxas --compile-only` then accepts the PTX for sm_90.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xtask::{build_ptx, find_ptxas, workspace_root, Arch};

/// The GPU examples in device/src (module-level and item-level, whole crates included).
const EXPECTED_EXAMPLES: usize = 21;

/// Lines of code, each with its 1-based source line.
type Lines = Vec<(usize, String)>;

/// One ```` ```ignore ```` block with a kernel.
struct Example {
    /// The source file, relative to the workspace root (`device/src/grid.rs`).
    file: String,
    /// The 1-based line of the opening fence.
    fence: usize,
    /// The 1-based line of the closing fence.
    end: usize,
    /// The code as rustdoc compiles it (hidden lines shown), line by line, with the source
    /// line of each.
    lines: Lines,
    /// The `extern "ptx-kernel"` functions it defines.
    kernels: Vec<String>,
}

impl Example {
    fn place(&self) -> String {
        format!("{}:{}", self.file, self.fence)
    }

    /// A whole crate (crate attributes first), not a module's worth of items.
    fn is_crate(&self) -> bool {
        self.lines
            .iter()
            .map(|(_, l)| l.trim())
            .find(|l| !l.is_empty() && !l.starts_with("//"))
            .is_some_and(|l| l.starts_with("#!["))
    }
}

/// The text of a doc-comment line after `///` or `//!` and one space, or `None` for any other
/// line (`////` is an ordinary comment).
fn doc_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let rest = t
        .strip_prefix("//!")
        .or_else(|| t.strip_prefix("///").filter(|r| !r.starts_with('/')))?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// A code line as rustdoc compiles it: `# x` and a lone `#` are hidden lines (shown here
/// without the `# `), `##x` is an escaped `#x`.
fn unhide(line: &str) -> String {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if trimmed == "#" {
        String::new()
    } else if let Some(rest) = trimmed.strip_prefix("# ") {
        format!("{indent}{rest}")
    } else if trimmed.starts_with("##") {
        format!("{indent}{}", &trimmed[1..])
    } else {
        line.to_string()
    }
}

/// Whether a fence's info string marks a block rustdoc does not compile here (`ignore`).
fn is_ignore(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .any(|t| t == "ignore")
}

/// The names of the `extern "ptx-kernel" fn`s in `code`.
fn kernels_in(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("extern \"ptx-kernel\"") {
        rest = &rest[at + "extern \"ptx-kernel\"".len()..];
        let after = rest.trim_start();
        if let Some(after) = after.strip_prefix("fn") {
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

/// The GPU examples of one source file.
fn examples_in(root: &Path, file: &Path) -> Vec<Example> {
    let rel = file
        .strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut out = Vec::new();
    // The block being read: its fence line, whether it is `ignore`, its lines.
    let mut open: Option<(usize, bool, Lines)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let Some(doc) = doc_text(line) else {
            // The doc comment ended; rustdoc closes an unterminated block there.
            open = None;
            continue;
        };
        let fence = doc.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => open = Some((n, is_ignore(info), Vec::new())),
            (Some(_), Some(_)) => {
                let (start, ignore, lines) = open.take().unwrap();
                let code: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
                if ignore && code.contains("extern \"ptx-kernel\"") {
                    out.push(Example {
                        file: rel.clone(),
                        fence: start,
                        end: n,
                        kernels: kernels_in(&code),
                        lines,
                    });
                }
            }
            (Some((_, _, lines)), None) => lines.push((n, unhide(doc))),
            (None, None) => {}
        }
    }
    out
}

/// Every GPU example under device/src, in file and line order.
fn examples() -> Vec<Example> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let root = workspace_root();
    let mut files = Vec::new();
    walk(&root.join("device/src"), &mut files);
    files.sort();
    files.iter().flat_map(|f| examples_in(&root, f)).collect()
}

/// `device/src/block_barrier/tx.rs` -> `device_src_block_barrier_tx`.
fn module_name(file: &str) -> String {
    file.trim_end_matches(".rs")
        .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
}

/// Writes `text` to `path` unless it already holds it (cargo rebuilds on a newer mtime).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Removes the `.rs` files under `dir` that are not in `keep` (examples that moved or went).
fn remove_stale(dir: &Path, keep: &BTreeSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            remove_stale(&path, keep);
        } else if path.extension().is_some_and(|e| e == "rs") && !keep.contains(&path) {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

/// A kernel crate at `dir` whose `src/lib.rs` is `lib`, plus the files `more` (paths relative
/// to `src/`). Its lock file starts as tests/golden's, which locks the device crate's
/// dependencies, so the build needs no registry.
fn write_crate(dir: &Path, name: &str, lib: &str, more: &[(String, String)]) {
    let device = workspace_root().join("device");
    let manifest = format!(
        "# Generated by tests/tests/doc_examples.rs: the GPU examples of device/src's docs.\n\
         [package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\n\n\
         [dependencies]\nptx-sync = {{ path = '{}', features = [\"nvshmem\"] }}\n\n\
         [profile.release]\npanic = \"abort\"\n\n[profile.dev]\npanic = \"abort\"\n\n\
         # Its own workspace: built for nvptx only.\n[workspace]\n",
        device.display()
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        std::fs::copy(workspace_root().join("tests/golden/Cargo.lock"), &lock).unwrap();
    }
    let src = dir.join("src");
    let mut keep = BTreeSet::new();
    write_if_changed(&src.join("lib.rs"), lib);
    keep.insert(src.join("lib.rs"));
    for (path, text) in more {
        write_if_changed(&src.join(path), text);
        keep.insert(src.join(path));
    }
    remove_stale(&src, &keep);
}

/// `lines` placed at their source line numbers in a file of `len` lines (the rest blank), so
/// that a line of the generated file is the same line of the source.
fn at_source_lines(len: usize, lines: impl IntoIterator<Item = (usize, String)>) -> String {
    let mut out = vec![String::new(); len];
    for (n, l) in lines {
        out[n - 1] = l;
    }
    out.join("\n") + "\n"
}

const CRATE_ATTRS: &str = "#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\n\
    // The examples are documentation: no warning passes (`stdarch_nvptx` is there for the\n\
    // examples that read `core::arch::nvptx`, not all do).\n\
    #![deny(warnings)]\n#![allow(unused_features)]\n";

const PANIC_HANDLER: &str = "#[panic_handler]\n\
    fn panic(info: &core::panic::PanicInfo) -> ! {\n    ptx_sync::report_panic(info)\n}\n";

/// The places in a build failure's text that are lines of generated files, as source places:
/// `src/device/src/grid.rs:40:5` is `device/src/grid.rs:40`; a whole-crate example's
/// `src/lib.rs:12` is line 12 of its source file.
fn source_places(error: &str, crate_file: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for line in error.lines() {
        let Some(at) = line.find("--> ") else {
            continue;
        };
        let place = line[at + 4..].trim();
        let mut parts = place.rsplitn(3, ':');
        let (_col, line_no, path) = (parts.next(), parts.next(), parts.next());
        let (Some(path), Some(line_no)) = (path, line_no) else {
            continue;
        };
        let source = match (path.strip_prefix("src/"), crate_file) {
            (Some("lib.rs"), Some(file)) => file.to_string(),
            (Some(p), None) if p.starts_with("device/") => p.to_string(),
            _ => continue,
        };
        let place = format!("{source}:{line_no}");
        if !out.contains(&place) {
            out.push(place);
        }
    }
    out
}

/// Builds `dir` for sm_90; on failure panics with the source places of the errors and the
/// build's output.
fn build(dir: &Path, what: &str, crate_file: Option<&str>) -> PathBuf {
    build_ptx(dir, Arch::Sm90).unwrap_or_else(|e| {
        let e = e.to_string();
        let places = source_places(&e, crate_file);
        panic!(
            "{what} do not build for sm_90; the errors are at:\n  {}\n\n{e}",
            if places.is_empty() {
                "(no place in device/src: see the output)".to_string()
            } else {
                places.join("\n  ")
            }
        )
    })
}

/// The examples, built once for both tests: each PTX with the examples it holds.
fn built() -> &'static Vec<(PathBuf, Vec<&'static Example>)> {
    static EXAMPLES: OnceLock<Vec<Example>> = OnceLock::new();
    static BUILT: OnceLock<Vec<(PathBuf, Vec<&'static Example>)>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let examples = EXAMPLES.get_or_init(examples);
        let base = workspace_root().join("target/doc-examples");
        let (crates, items): (Vec<&Example>, Vec<&Example>) =
            examples.iter().partition(|e| e.is_crate());
        let mut out = Vec::new();

        // The item-level examples: one module per source file, one per example in it.
        let mut files: BTreeMap<&str, Vec<&Example>> = BTreeMap::new();
        for e in &items {
            files.entry(e.file.as_str()).or_default().push(e);
        }
        let mut lib = String::from(CRATE_ATTRS);
        lib.push_str("\n// One module per file of device/src, at its path under src/.\n");
        let mut more = Vec::new();
        for (file, list) in &files {
            let len = std::fs::read_to_string(workspace_root().join(file))
                .unwrap()
                .lines()
                .count();
            let mut lines = Vec::new();
            for e in list {
                lines.push((e.fence, format!("mod line_{} {{", e.fence)));
                lines.extend(e.lines.iter().cloned());
                lines.push((e.end, "}".to_string()));
            }
            lib.push_str(&format!(
                "#[path = \"{file}\"]\nmod {};\n",
                module_name(file)
            ));
            more.push((file.to_string(), at_source_lines(len, lines)));
        }
        lib.push('\n');
        lib.push_str(PANIC_HANDLER);
        let dir = base.join("items");
        write_crate(&dir, "ptx-sync-doc-examples", &lib, &more);
        out.push((build(&dir, "the doc examples", None), items));

        // The whole-crate examples, each as it is written.
        for e in crates {
            let dir = base.join(format!("{}_{}", module_name(&e.file), e.fence));
            let len = std::fs::read_to_string(workspace_root().join(&e.file))
                .unwrap()
                .lines()
                .count();
            write_crate(
                &dir,
                &format!("doc-example-{}-{}", module_name(&e.file), e.fence).replace('_', "-"),
                &at_source_lines(len, e.lines.iter().cloned()),
                &[],
            );
            let what = format!("the doc example at {}", e.place());
            out.push((build(&dir, &what, Some(&e.file)), vec![e]));
        }
        out
    })
}

/// The names of the `.entry` functions of a PTX module.
fn entries(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|l| {
            let at = l.find(".entry ")?;
            let name: String = l[at + ".entry ".len()..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            Some(name)
        })
        .collect()
}

#[test]
fn every_gpu_example_builds_with_its_kernels() {
    let mut failures = Vec::new();
    let mut count = 0;
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for (ptx_path, examples) in built() {
        let ptx = std::fs::read_to_string(ptx_path).unwrap();
        let entries = entries(&ptx);
        let mut expected = BTreeSet::new();
        for e in examples {
            count += 1;
            if e.kernels.is_empty() {
                failures.push(format!(
                    "{}: no `extern \"ptx-kernel\" fn` found",
                    e.place()
                ));
            }
            for k in &e.kernels {
                if !e.is_crate() && !k.starts_with("doc_") {
                    failures.push(format!(
                        "{}: kernel `{k}` is not named doc_<module>_<what>",
                        e.place()
                    ));
                }
                if let Some(other) = names.insert(k.clone(), e.place()) {
                    failures.push(format!(
                        "{}: kernel `{k}` is also defined at {other}",
                        e.place()
                    ));
                }
                if !entries.contains(k) {
                    failures.push(format!(
                        "{}: no `.entry {k}` in {} (is it `#[unsafe(no_mangle)]`?)",
                        e.place(),
                        ptx_path.display()
                    ));
                }
                expected.insert(k.clone());
            }
        }
        for entry in entries.difference(&expected) {
            failures.push(format!(
                "{}: `.entry {entry}` is no kernel of the examples",
                ptx_path.display()
            ));
        }
        println!(
            "{}: {} examples, {} kernels",
            ptx_path.display(),
            examples.len(),
            entries.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        count, EXPECTED_EXAMPLES,
        "the number of GPU examples in device/src changed: update EXPECTED_EXAMPLES if that \
         is meant (an example whose fence is no longer `ignore`, or that has no kernel, is no \
         longer checked here)"
    );
}

/// `ptxas --compile-only` for sm_90 accepts the examples' PTX (`--compile-only`: the NVSHMEM
/// example's calls stay unresolved externs, which only a link with NVSHMEM resolves).
/// Ignored with the reason where tests/build.rs found no sm_90 ptxas and could not fetch one.
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
fn ptxas_accepts_the_gpu_examples() {
    let ptxas = find_ptxas(Arch::Sm90).unwrap_or_else(|e| panic!("{e}"));
    for (ptx, _) in built() {
        let tag = format!(
            "doc-examples-{}",
            ptx.file_stem().unwrap().to_string_lossy()
        );
        ptx_sync_testkit::ptx::assert_ptxas_compiles_sm90(&ptxas, ptx, &tag);
    }
}
