use crate::{workspace_root, Arch};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The nvptx target triple.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// Variables a surrounding `cargo test` / `cargo run` / `cargo clippy` may set that must not
/// leak into the nested nvptx build (host flags, wrappers, another target dir, a jobserver).
/// Any `CARGO_BUILD_*`, `CARGO_TARGET_*` and `CARGO_PROFILE_*` variable is removed too.
const LEAKY_ENV: &[&str] = &[
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_ENCODED_RUSTDOCFLAGS",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_MAKEFLAGS",
    "MAKEFLAGS",
    "MFLAGS",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
];

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

/// The PTX file stem of a kernel crate: its `[package]` name with `-` as `_` (falls back to
/// the directory name if the manifest cannot be read).
pub fn ptx_stem(crate_dir: &Path) -> String {
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap_or_default();
    let mut section = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[package]" {
            let value = line.strip_prefix("name").map(str::trim_start);
            if let Some(name) = value.and_then(|v| v.strip_prefix('=')) {
                return name.trim().trim_matches('"').replace('-', "_");
            }
        }
    }
    let dir = crate_dir.file_name().unwrap_or_default().to_string_lossy();
    dir.replace('-', "_")
}

/// The RUSTFLAGS of every nvptx build (see [`build_ptx`]).
fn rustflags(arch: Arch) -> String {
    format!(
        "-C target-cpu={arch} -C target-feature={} -Zmir-enable-passes=-JumpThreading",
        arch.ptx_feature()
    )
}

/// `cargo <sub> --target nvptx64-nvidia-cuda -Zbuild-std=core --target-dir <dir>` in `dir`,
/// with the nvptx RUSTFLAGS, `RUSTC_BOOTSTRAP=1` and the surrounding cargo's variables removed.
fn nvptx_cargo(dir: &Path, arch: Arch, sub: &[&str], target_dir: &Path) -> Command {
    let mut cmd = cargo();
    for (var, _) in std::env::vars_os() {
        let v = var.to_string_lossy();
        let prefixed = ["CARGO_BUILD_", "CARGO_TARGET_", "CARGO_PROFILE_"]
            .iter()
            .any(|p| v.starts_with(p));
        if prefixed || LEAKY_ENV.contains(&&*v) {
            cmd.env_remove(&var);
        }
    }
    cmd.current_dir(dir)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTFLAGS", rustflags(arch))
        .args(sub)
        .args(["--target", TARGET, "-Zbuild-std=core", "--target-dir"])
        .arg(target_dir);
    cmd
}

/// Builds one kernel crate for `arch` (release) into `target/ptx/<arch>/` and returns the path
/// of its PTX; the error carries the tail of cargo's output.
///
/// Flags: `-C target-cpu=<arch>` (without it rustc emits sm_30 PTX, where no `.acquire`,
/// `.release` or `fence.sc` is valid), the PTX ISA feature ([`Arch::PTX_ISA`]), and
/// `-Zmir-enable-passes=-JumpThreading` (rustc 1.95 otherwise can duplicate block barriers
/// into divergent branches, rust-lang/rust#137086). `core` is built from source
/// (`-Zbuild-std=core`): the prebuilt nvptx `rust-std` is not downloadable.
/// `RUSTC_BOOTSTRAP=1` allows the `-Z` flags and the kernels' `#![feature]`s on stable 1.95.
pub fn build_ptx(crate_dir: &Path, arch: Arch) -> Result<PathBuf, String> {
    if !crate_dir.join("Cargo.toml").is_file() {
        return Err(format!(
            "kernel crate {} not found (no Cargo.toml)",
            crate_dir.display()
        ));
    }
    let target_dir = workspace_root().join("target/ptx").join(arch.to_string());
    let out = nvptx_cargo(crate_dir, arch, &["build", "--release"], &target_dir)
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building {} for {arch} failed (RUSTFLAGS=\"{}\"):\n{}",
            crate_dir.display(),
            rustflags(arch),
            tail(&out.stderr, 60)
        ));
    }
    let file = format!("{}.ptx", ptx_stem(crate_dir));
    let ptx = target_dir.join(TARGET).join("release").join(file);
    if !ptx.is_file() {
        return Err(format!(
            "the build succeeded but {} is missing",
            ptx.display()
        ));
    }
    Ok(ptx)
}

/// Builds every kernel crate in [`KERNEL_CRATES`] for `arch`; returns the PTX paths in order.
pub fn build_all(arch: Arch) -> Result<Vec<PathBuf>, String> {
    let root = workspace_root();
    KERNEL_CRATES
        .iter()
        .map(|c| build_ptx(&root.join(c), arch))
        .collect()
}

/// `cargo clippy -- -D warnings` for nvptx at `arch`: the device crate (`ptx-sync`, whose PTX
/// `asm!` paths a host clippy never sees) and every kernel crate. The error carries clippy's
/// output. Target dir: `target/ptx/clippy/<arch>`.
pub fn clippy_ptx(arch: Arch) -> Result<(), String> {
    let root = workspace_root();
    let target_dir = root.join("target/ptx/clippy").join(arch.to_string());
    let mut crates = vec![(root.clone(), "device")];
    crates.extend(KERNEL_CRATES.iter().map(|c| (root.join(c), *c)));
    for (dir, name) in crates {
        let sub: &[&str] = if name == "device" {
            &["clippy", "-p", "ptx-sync"]
        } else {
            &["clippy"]
        };
        let out = nvptx_cargo(&dir, arch, sub, &target_dir)
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
