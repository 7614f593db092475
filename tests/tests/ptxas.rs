//! `ptxas` accepts every kernel crate's PTX (`xtask::KERNEL_CRATES`) for each supported
//! architecture. The ptxas is `xtask::find_ptxas`'s: an installed one, or the pinned wheel's,
//! which it downloads into `target/tools` (CUDA 13 for sm_75 and newer, CUDA 12.9 for sm_70).
//! Where no ptxas for an arch could be had (offline with none installed, or
//! `PTX_SYNC_NO_DOWNLOAD=1`), `tests/build.rs` set `no_ptxas_smXX` and that arch's check is
//! ignored with the reason: never reported as passing. Otherwise it runs, and fails for real.

use xtask::{build_all, find_ptxas, ptxas_check, Arch};

fn check(arch: Arch) {
    // Look for ptxas first, so a missing one fails at once and says how to install it.
    let ptxas = find_ptxas(arch).unwrap_or_else(|e| panic!("{e}"));
    println!("{arch}: ptxas {}", ptxas.display());
    let all = build_all(arch).unwrap_or_else(|e| panic!("{e}"));
    for ptx in all {
        ptxas_check(&ptx, arch).unwrap_or_else(|e| panic!("{e}"));
        println!("{arch}: {} assembled", ptx.display());
    }
}

#[test]
#[cfg_attr(
    no_ptxas_sm75 = "no_download",
    ignore = "skipped: no ptxas for sm_75 is installed, and PTX_SYNC_NO_DOWNLOAD is set, \
              so the pinned one (nvidia-cuda-nvcc, CUDA 13) was not downloaded into target/tools"
)]
#[cfg_attr(
    no_ptxas_sm75 = "fetch_failed",
    ignore = "skipped: no ptxas for sm_75 is installed, and downloading the pinned one \
              (nvidia-cuda-nvcc, CUDA 13) into target/tools failed (offline?): \
              the build's warning says why"
)]
fn ptxas_accepts_sm_75() {
    check(Arch::Sm75);
}

#[test]
#[cfg_attr(
    no_ptxas_sm80 = "no_download",
    ignore = "skipped: no ptxas for sm_80 is installed, and PTX_SYNC_NO_DOWNLOAD is set, \
              so the pinned one (nvidia-cuda-nvcc, CUDA 13) was not downloaded into target/tools"
)]
#[cfg_attr(
    no_ptxas_sm80 = "fetch_failed",
    ignore = "skipped: no ptxas for sm_80 is installed, and downloading the pinned one \
              (nvidia-cuda-nvcc, CUDA 13) into target/tools failed (offline?): \
              the build's warning says why"
)]
fn ptxas_accepts_sm_80() {
    check(Arch::Sm80);
}

#[test]
#[cfg_attr(
    no_ptxas_sm90 = "no_download",
    ignore = "skipped: no ptxas for sm_90 is installed, and PTX_SYNC_NO_DOWNLOAD is set, \
              so the pinned one (nvidia-cuda-nvcc, CUDA 13) was not downloaded into target/tools"
)]
#[cfg_attr(
    no_ptxas_sm90 = "fetch_failed",
    ignore = "skipped: no ptxas for sm_90 is installed, and downloading the pinned one \
              (nvidia-cuda-nvcc, CUDA 13) into target/tools failed (offline?): \
              the build's warning says why"
)]
fn ptxas_accepts_sm_90() {
    check(Arch::Sm90);
}

/// CUDA 13 dropped Volta: only a CUDA 12 ptxas (nvidia-cuda-nvcc-cu12) checks sm_70.
#[test]
#[cfg_attr(
    no_ptxas_sm70 = "no_download",
    ignore = "skipped: no CUDA 12 ptxas (the last for sm_70) is installed, and \
              PTX_SYNC_NO_DOWNLOAD is set, so the pinned one (nvidia-cuda-nvcc-cu12) was not \
              downloaded into target/tools"
)]
#[cfg_attr(
    no_ptxas_sm70 = "fetch_failed",
    ignore = "skipped: no CUDA 12 ptxas (the last for sm_70) is installed, and downloading \
              the pinned one (nvidia-cuda-nvcc-cu12) into target/tools failed (offline?): \
              the build's warning says why"
)]
fn ptxas_accepts_sm_70() {
    check(Arch::Sm70);
}
