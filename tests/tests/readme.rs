//! The README's first kernel is the one examples/ builds (edition 2024, through
//! ptx-sync-build) and the GPU suite runs (`examples_app`): the README's copy must be the same
//! text, so what a reader copies is what CI compiles.

#[test]
fn readme_kernel_is_the_examples_kernel() {
    let root = xtask::workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let kernels = std::fs::read_to_string(root.join("examples/kernels/src/lib.rs")).unwrap();
    let start = readme
        .find("/// Sums `input` into `*total`")
        .expect("README has no first kernel");
    let end = start
        + readme[start..]
            .find("\n```")
            .expect("unterminated code block");
    let kernel = &readme[start..end];
    assert!(kernel.contains("#[unsafe(no_mangle)]"), "{kernel}");
    assert!(
        kernels.contains(kernel),
        "README's first kernel differs from examples/kernels/src/lib.rs:\n{kernel}"
    );
}
