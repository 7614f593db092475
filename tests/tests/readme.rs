//! The READMEs show one flagship kernel, and it is the one examples/ builds (edition 2024,
//! through ptx-sync-build) and the GPU suite runs (`examples_app`): README.md's and
//! device/README.md's copies must be that text (examples/kernels/src/sum_then_publish.rs, the
//! kernel of examples/app/examples/01-sum-then-publish.rs), and host/README.md's host program
//! must be README.md's quick-start `main.rs`; the crate docs' front page shows the same
//! kernel, so what a reader copies from any of them is the same code. README.md also stays
//! short.

use std::path::Path;

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text from `start` to the end of its code block.
fn block_from<'a>(text: &'a str, start: &str, what: &str) -> &'a str {
    let begin = text
        .find(start)
        .unwrap_or_else(|| panic!("{what} has no block starting with {start:?}"));
    let end = begin
        + text[begin..]
            .find("\n```")
            .unwrap_or_else(|| panic!("{what}: unterminated code block"));
    &text[begin..end]
}

const KERNEL_START: &str = "/// Sums `input` into `*total`";
const MAIN_START: &str = "use ptx_sync_host::{launch, Device};";

/// The examples' module of the flagship kernel (example 01).
const EXAMPLES_KERNEL: &str = "examples/kernels/src/sum_then_publish.rs";

#[test]
fn readme_kernel_is_the_examples_kernel() {
    let root = xtask::workspace_root();
    let kernels = read(&root, EXAMPLES_KERNEL);
    for path in ["README.md", "device/README.md"] {
        let readme = read(&root, path);
        let kernel = block_from(&readme, KERNEL_START, path);
        assert!(kernel.contains("#[unsafe(no_mangle)]"), "{path}: {kernel}");
        assert!(
            kernels.contains(kernel),
            "{path}'s kernel differs from {EXAMPLES_KERNEL}:\n{kernel}"
        );
    }
}

#[test]
fn host_readme_runs_the_readme_kernel() {
    let root = xtask::workspace_root();
    let readme = read(&root, "README.md");
    let host = read(&root, "host/README.md");
    let main = block_from(&readme, MAIN_START, "README.md");
    assert!(main.contains("sum_then_publish"), "{main}");
    assert_eq!(
        block_from(&host, MAIN_START, "host/README.md"),
        main,
        "host/README.md's program differs from README.md's quick-start main.rs"
    );
}

#[test]
fn crate_docs_show_the_readme_kernel() {
    let root = xtask::workspace_root();
    let readme = read(&root, "README.md");
    let kernel = block_from(&readme, KERNEL_START, "README.md");
    // The front page of ptx-sync's docs: device/src/lib.rs's `//!` lines, as rustdoc reads them.
    let lib = read(&root, "device/src/lib.rs");
    let docs: String = lib
        .lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    assert_eq!(
        block_from(&docs, KERNEL_START, "device/src/lib.rs's docs"),
        kernel,
        "the crate docs' kernel differs from README.md's"
    );
}

/// README.md is the front door for users: short enough to read at once (contributor material
/// lives in DEVELOPMENT.md).
#[test]
fn readme_is_at_most_200_lines() {
    let root = xtask::workspace_root();
    let lines = read(&root, "README.md").lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines: keep it at 200 or fewer (move details to DEVELOPMENT.md)"
    );
}
