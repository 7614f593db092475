//! This workspace's kernel crates, built to PTX through `ptx-sync-build`: the same builder a
//! user's `build.rs` calls, so there is one build path.

use crate::{workspace_root, Arch};
use ptx_sync_build::PtxBuilder;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use ptx_sync_build::TARGET;

/// The kernel crates (directories relative to the workspace root). Each is its own cargo
/// workspace, a `no_std` cdylib that only builds for nvptx64-nvidia-cuda. Add new ones here:
/// `build_all`, `cargo xtask ptxas`, `stage` and `tests/tests/ptxas.rs` take them all, and a
/// listed directory that does not exist is an error (never skipped).
pub const KERNEL_CRATES: &[&str] = &[
    "tests/kernels",
    "tests/golden",
    "bench/kernels",
    "litmus/kernels",
];

/// Kernel crates that call NVSHMEM (ptx-sync's `nvshmem` feature), built with NVSHMEM's device
/// bitcode linked in (`PtxBuilder::nvshmem`): by `stage` and `stage-bench` only, since the link
/// reads 31 MB of bitcode (minutes) and needs NVSHMEM found or fetched. Not in
/// [`KERNEL_CRATES`]: unlinked, their PTX keeps `.extern .func` calls that ptxas cannot resolve.
pub const NVSHMEM_KERNEL_CRATES: &[&str] = &["tests/nvshmem-kernels"];

/// A `cargo` command: `$CARGO` (set by cargo for `cargo run` / `cargo test`) or `cargo`.
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The last `n` lines of a process's output.
pub(crate) fn tail(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The builder for one of this workspace's kernel crates at `arch`: target dir
/// `target/ptx/<arch>`, missing toolchain components installed (this project provisions its
/// own tools; a user's build only names the command).
fn builder(crate_dir: &Path, arch: Arch) -> PtxBuilder {
    PtxBuilder::new(crate_dir)
        .arch(arch)
        .target_dir(workspace_root().join("target/ptx").join(arch.to_string()))
        .install_missing_components(true)
}

/// The PTX file stem of a kernel crate (its lib name, `-` as `_`).
pub fn ptx_stem(crate_dir: &Path) -> String {
    PtxBuilder::new(crate_dir).ptx_stem().unwrap_or_else(|_| {
        crate_dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .replace('-', "_")
    })
}

/// Builds one kernel crate for `arch` (release) into `target/ptx/<arch>/` and returns the path
/// of its PTX; the error is the builder's (cargo's output, the flags, what to run).
pub fn build_ptx(crate_dir: &Path, arch: Arch) -> Result<PathBuf, String> {
    builder(crate_dir, arch)
        .compile()
        .map_err(|e| e.to_string())
}

/// Builds every kernel crate in [`KERNEL_CRATES`] for `arch`; returns the PTX paths in order.
pub fn build_all(arch: Arch) -> Result<Vec<PathBuf>, String> {
    let root = workspace_root();
    KERNEL_CRATES
        .iter()
        .map(|c| build_ptx(&root.join(c), arch))
        .collect()
}

/// Builds every crate in [`NVSHMEM_KERNEL_CRATES`] for `arch` with NVSHMEM's device bitcode
/// linked in (NVSHMEM from `$NVSHMEM_HOME`, python3's `nvidia.nvshmem`, or the pinned wheel
/// fetched into the target directory); returns the PTX paths in order.
pub fn build_nvshmem_all(arch: Arch) -> Result<Vec<PathBuf>, String> {
    let root = workspace_root();
    NVSHMEM_KERNEL_CRATES
        .iter()
        .map(|c| {
            builder(&root.join(c), arch)
                .nvshmem(true)
                .compile()
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// `cargo clippy -- -D warnings` for nvptx at `arch`: the device crate (`ptx-sync`, with its
/// `nvshmem` feature, whose PTX `asm!` paths and NVSHMEM calls a host clippy never sees) and
/// every kernel crate, the NVSHMEM ones included, with the builder's flags.
/// The error carries clippy's output. Target dir: `target/ptx/clippy/<arch>`.
pub fn clippy_ptx(arch: Arch) -> Result<(), String> {
    let root = workspace_root();
    let target_dir = root.join("target/ptx/clippy").join(arch.to_string());
    let mut crates = vec![(root.clone(), "device")];
    crates.extend(KERNEL_CRATES.iter().map(|c| (root.join(c), *c)));
    // Clippy does not link, so the NVSHMEM crates need no NVSHMEM here.
    crates.extend(NVSHMEM_KERNEL_CRATES.iter().map(|c| (root.join(c), *c)));
    for (dir, name) in crates {
        let sub: &[&str] = if name == "device" {
            &["clippy", "-p", "ptx-sync", "--features", "nvshmem"]
        } else {
            &["clippy"]
        };
        let out = builder(&dir, arch)
            .target_dir(&target_dir)
            .cargo(sub)
            .map_err(|e| e.to_string())?
            .args(["--", "-D", "warnings"])
            .output()
            .map_err(|e| format!("could not run cargo clippy: {e}"))?;
        if !out.status.success() {
            let text = tail(&out.stderr, 200);
            return Err(format!(
                "clippy on {name} for {arch} (nvptx) failed:\n{text}"
            ));
        }
    }
    Ok(())
}
