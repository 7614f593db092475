//! `shared!` variables are module-scope `.shared` declarations; ptxas gives each kernel only
//! the ones its code refers to. Checked on the test kernels' sm_90 PTX with `ptxas -v`, whose
//! "N bytes smem" is a kernel's static shared memory (absent when it has none). The module
//! holds every `shared!` variable of tests/kernels/src/shared_static.rs (and the other kernel
//! files), so a kernel charged for variables it does not use would show here.

use std::collections::BTreeMap;
use xtask::{build_ptx, find_ptxas, workspace_root, Arch};

/// Kernel name -> static shared memory in bytes, from `ptxas -v`.
fn smem_per_kernel(verbose: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in verbose.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap().to_string();
            out.insert(name.clone(), 0);
            current = Some(name);
        } else if let (Some(k), true) = (&current, line.contains("registers")) {
            let smem = line
                .split(',')
                .find_map(|part| part.trim().strip_suffix(" bytes smem"))
                .map(|n| n.trim().parse().unwrap())
                .unwrap_or(0);
            out.insert(k.clone(), smem);
        }
    }
    out
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
fn each_kernel_gets_only_the_shared_variables_it_uses() {
    let ptxas = find_ptxas(Arch::Sm90).unwrap_or_else(|e| panic!("{e}"));
    let root = workspace_root();
    let ptx = build_ptx(&root.join("tests/kernels"), Arch::Sm90).unwrap_or_else(|e| panic!("{e}"));
    let cubin = root.join("target/ptx/shared_static_ptxas.cubin");
    let out = std::process::Command::new(&ptxas)
        .args(["-v", "-arch=sm_90"])
        .arg(&ptx)
        .arg("-o")
        .arg(&cubin)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", ptxas.display()));
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ptxas failed:\n{text}");
    let smem = smem_per_kernel(&text);
    let of = |k: &str| {
        *smem
            .get(k)
            .unwrap_or_else(|| panic!("no kernel {k} in ptxas -v:\n{text}"))
    };
    // A kernel's static shared memory is its variables' bytes, which ptxas 13.5 sometimes
    // rounds up to a multiple of 16 (a kernel with one 4-byte variable and a debug trap
    // reports 16; a hand-written module with the same declarations, 4): no other variable
    // fits in that padding.
    let holds = |k: &str, bytes: u32| {
        let got = of(k);
        assert!(
            got == bytes || got == bytes.next_multiple_of(16),
            "{k}: {got} bytes smem for {bytes} bytes of shared! variables"
        );
    };
    // Two [u32; 256] and a [u64; 32] (W at an 8-aligned offset).
    holds("shared_static_disjoint", 1024 + 1024 + 256);
    // Two [u64; 16].
    holds("shared_static_space_totals", 2 * 128);
    // [u64; 4].
    holds("shared_static_cluster_totals", 32);
    // BlockBarrier (8) + Mutex<u32, Cta> (8) + Atomic<u32, Cta> (4).
    holds("shared_static_barrier_mutex", 8 + 8 + 4);
    // One Atomic<u32, Cta> each (the same name `S` in two functions: two variables).
    holds("shared_static_misuse_shared_from_global", 4);
    holds("shared_static_misuse_global_from_shared", 4);
    // Dynamic shared memory only, and none at all: no static shared memory charged.
    assert_eq!(of("shared_round_trip"), 0);
    assert_eq!(of("misuse_latch_never_opened"), 0);
}
