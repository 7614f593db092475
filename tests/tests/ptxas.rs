//! `ptxas` accepts every kernel crate's PTX for each supported architecture. A missing ptxas
//! fails (with the install hint): an unchecked build is not a passing one.

use xtask::{build_all, find_ptxas, ptxas_check, Arch};

fn check(arch: Arch) {
    for ptx in build_all(arch).unwrap_or_else(|e| panic!("{e}")) {
        ptxas_check(&ptx, arch).unwrap_or_else(|e| panic!("{e}"));
        println!("{arch}: {} assembled", ptx.display());
    }
}

#[test]
fn ptxas_accepts_sm_75() {
    check(Arch::Sm75);
}

#[test]
fn ptxas_accepts_sm_80() {
    check(Arch::Sm80);
}

#[test]
fn ptxas_accepts_sm_90() {
    check(Arch::Sm90);
}

#[test]
fn ptxas_accepts_sm_70_when_a_cuda_12_ptxas_is_installed() {
    match find_ptxas(Arch::Sm70) {
        Ok(_) => check(Arch::Sm70),
        // CUDA 13 dropped Volta: only the CUDA 12 wheel can check it. CI installs it.
        Err(e) => println!("sm_70 not checked: {e}"),
    }
}
