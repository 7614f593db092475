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

/// A test that `check`s `$arch`, ignored with the reason where tests/build.rs set `$no` (no
/// ptxas for that arch could be had). The reasons are literals (an `ignore` built with
/// `concat!` loses its reason); the default ones are CUDA 13's, and the test's name says the
/// arch.
macro_rules! ptxas_test {
    ($(#[$m:meta])* $name:ident: $arch:expr, $no:ident) => {
        ptxas_test!(
            $(#[$m])* $name: $arch,
            $no,
            "skipped: no ptxas for this arch is installed, and PTX_SYNC_NO_DOWNLOAD is set, \
             so the pinned one (nvidia-cuda-nvcc, CUDA 13) was not downloaded into target/tools",
            "skipped: no ptxas for this arch is installed, and downloading the pinned one \
             (nvidia-cuda-nvcc, CUDA 13) into target/tools failed (offline?): \
             the build's warning says why"
        );
    };
    ($(#[$m:meta])* $name:ident: $arch:expr, $no:ident, $no_download:literal, $fetch_failed:literal) => {
        $(#[$m])*
        #[test]
        #[cfg_attr($no = "no_download", ignore = $no_download)]
        #[cfg_attr($no = "fetch_failed", ignore = $fetch_failed)]
        fn $name() {
            check($arch);
        }
    };
}

ptxas_test!(ptxas_accepts_sm_75: Arch::Sm75, no_ptxas_sm75);
ptxas_test!(ptxas_accepts_sm_80: Arch::Sm80, no_ptxas_sm80);
ptxas_test!(ptxas_accepts_sm_90: Arch::Sm90, no_ptxas_sm90);
ptxas_test!(
    /// CUDA 13 dropped Volta: only a CUDA 12 ptxas (nvidia-cuda-nvcc-cu12) checks sm_70.
    ptxas_accepts_sm_70: Arch::Sm70,
    no_ptxas_sm70,
    "skipped: no CUDA 12 ptxas (the last for sm_70) is installed, and \
     PTX_SYNC_NO_DOWNLOAD is set, so the pinned one (nvidia-cuda-nvcc-cu12) was not \
     downloaded into target/tools",
    "skipped: no CUDA 12 ptxas (the last for sm_70) is installed, and downloading \
     the pinned one (nvidia-cuda-nvcc-cu12) into target/tools failed (offline?): \
     the build's warning says why"
);
