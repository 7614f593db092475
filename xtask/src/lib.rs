//! Build support shared by `cargo xtask` and the tests: building the kernel crates to PTX,
//! finding and running `ptxas`, and staging the GPU suite for a machine without Rust.
//! std only: its one dependency, ptx-sync-build, is std only too.

mod arch;
mod bench;
mod litmus;
mod ptx;
mod ptxas;
mod stage;

pub use arch::ptxas_archs_checked;
pub use bench::stage_bench;
pub use litmus::stage_litmus;
pub use ptx::{
    build_all, build_nvshmem_all, build_ptx, clippy_ptx, ptx_stem, KERNEL_CRATES,
    NVSHMEM_KERNEL_CRATES, TARGET,
};
pub use ptx_sync_build::{self as build, Arch};
pub use ptxas::{
    download_disabled, find_ptxas, install_hint, ptxas_check, tools_dir, PtxasWheel,
    NO_DOWNLOAD_ENV, PTXAS_CUDA12, PTXAS_CUDA13,
};
pub use stage::{build_example_bin, build_examples_app, stage};

use std::path::PathBuf;

/// The workspace root (the directory holding the top-level Cargo.toml).
pub fn workspace_root() -> PathBuf {
    let xtask = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    xtask
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}
