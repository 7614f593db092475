//! The device crate's compile-time guards (device/src/lib.rs): built for nvptx64-nvidia-cuda
//! below sm_70, or without PTX ISA 8.4, `ptx-sync` stops with a `compile_error!` that names
//! the missing flag; with `-C target-cpu=sm_70 -C target-feature=+ptx84` it builds.
//!
//! rustc 1.97 and newer refuse a target-cpu below sm_70 themselves (and default to sm_70 with
//! PTX ISA 7.0), so there the sm_70 guard is rustc's error and a build with no flags at all
//! meets the ptx84 guard; on older rustc (default sm_30) it meets the sm_70 guard.
//!
//! Each case is a nested `cargo build -p ptx-sync --target nvptx64-nvidia-cuda
//! -Zbuild-std=core --release` in the workspace root, into `target/guard-check` (each set of
//! flags keeps its own `core` there: about 12 s per case the first time, under a second after).

use std::path::{Path, PathBuf};

const SM70_MESSAGE: &str =
    "ptx-sync needs sm_70 or newer: build with -C target-cpu=sm_70 (or sm_75, sm_80, sm_90)";
const PTX84_MESSAGE: &str = "ptx-sync needs PTX ISA 8.4: build with -C target-feature=+ptx84";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The rustc this workspace builds with (its version decides which error a case expects),
/// after installing the components an nvptx build needs if they are missing, as the builder
/// does for this repository's own kernel crates.
fn toolchain() -> xtask::build::toolchain::Toolchain {
    let tc = xtask::build::toolchain::Toolchain::detect_in(&workspace_root())
        .unwrap_or_else(|e| panic!("{e}"));
    tc.ensure_components(true).unwrap_or_else(|e| panic!("{e}"));
    tc
}

/// Whether this rustc refuses targets below sm_70 itself (from 1.97).
fn rustc_refuses_old_archs() -> bool {
    let (major, minor, _) = toolchain().version;
    (major, minor) >= (1, 97)
}

/// Builds the device crate for nvptx with `rustflags`; returns whether it built, and cargo's
/// stderr.
fn build_device(rustflags: &str) -> (bool, String) {
    let root = workspace_root();
    toolchain();
    // The surrounding cargo's variables removed, as for every nested nvptx build.
    let mut cmd = xtask::build::nested_cargo();
    cmd.current_dir(&root)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTFLAGS", rustflags)
        .args(["build", "-p", "ptx-sync", "--target", "nvptx64-nvidia-cuda"])
        .args(["-Zbuild-std=core", "--release", "--target-dir"])
        .arg(root.join("target/guard-check"));
    let out = cmd.output().expect("could not run cargo");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), err)
}

/// `build_device(rustflags)`, which must fail (`what`: how it was built, for the message);
/// returns cargo's stderr.
fn build_fails(rustflags: &str, what: &str) -> String {
    let (built, err) = build_device(rustflags);
    assert!(!built, "built {what}:\n{err}");
    err
}

#[test]
fn below_sm_70_is_a_compile_error_that_names_target_cpu() {
    let err = build_fails("-C target-cpu=sm_60 -C target-feature=+ptx84", "for sm_60");
    if rustc_refuses_old_archs() {
        assert!(
            err.contains("target cpu `sm_60` is known but unsupported"),
            "rustc did not refuse sm_60:\n{err}"
        );
        return;
    }
    assert!(err.contains(SM70_MESSAGE), "no sm_70 guard message:\n{err}");
    assert!(
        err.contains("ptx_sync_build::PtxBuilder"),
        "the message does not name the builder:\n{err}"
    );
    assert!(!err.contains(PTX84_MESSAGE), "+ptx84 was given:\n{err}");
}

#[test]
fn without_ptx84_is_a_compile_error_that_names_the_feature() {
    let err = build_fails("-C target-cpu=sm_70", "without +ptx84");
    assert!(
        err.contains(PTX84_MESSAGE),
        "no ptx84 guard message:\n{err}"
    );
    assert!(!err.contains(SM70_MESSAGE), "sm_70 was given:\n{err}");
}

/// The build a user gets by forgetting every flag: one guard or the other names what to add.
#[test]
fn no_flags_at_all_is_a_compile_error_that_names_the_fix() {
    let err = build_fails("", "with no flags");
    let (want, other) = if rustc_refuses_old_archs() {
        (PTX84_MESSAGE, SM70_MESSAGE) // rustc's default is sm_70, PTX ISA 7.0
    } else {
        (SM70_MESSAGE, PTX84_MESSAGE) // rustc's default is sm_30
    };
    assert!(err.contains(want), "expected `{want}`:\n{err}");
    assert!(!err.contains(other), "unexpected `{other}`:\n{err}");
    assert!(err.contains("ptx_sync_build::PtxBuilder"), "{err}");
}

#[test]
fn sm_70_with_ptx84_builds() {
    let (built, err) = build_device("-C target-cpu=sm_70 -C target-feature=+ptx84");
    assert!(built, "sm_70 + ptx84 did not build:\n{err}");
    assert!(!err.contains(SM70_MESSAGE) && !err.contains(PTX84_MESSAGE));
}
