//! `PtxBuilder::nvshmem(true)` links NVSHMEM's device bitcode into the PTX: a kernel crate that
//! declares two NVSHMEM device functions (no ptx-sync, so nothing but the link differs) keeps
//! them as `.extern .func` declarations without it, and gets their bodies and NVSHMEM's device
//! state with it. Ignored by default: the link reads 31 MB of bitcode (minutes on two cores),
//! and NVSHMEM must be found or downloadable (`NVSHMEM_HOME`, python3's `nvidia.nvshmem`, or
//! PyPI). Run with `cargo test -p ptx-sync-build --test nvshmem_link -- --ignored`.

use ptx_sync_build::{nvshmem, Arch, PtxBuilder};
use std::path::{Path, PathBuf};

const SYMBOLS: [&str; 2] = ["nvshmem_my_pe", "nvshmem_n_pes"];

fn kernel_crate() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvshmem-link-kernel");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = "[package]\nname = \"nvshmem-link-kernel\"\nversion = \"0.1.0\"\n\
        edition = \"2021\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n\
        [profile.release]\npanic = \"abort\"\n\n[profile.dev]\npanic = \"abort\"\n\n[workspace]\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    // The signatures of nvshmem.h's device API (`int nvshmem_my_pe(void)`).
    let lib = "#![no_std]\n#![feature(abi_ptx)]\n\
        #[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! { loop {} }\n\
        unsafe extern \"C\" {\n    fn nvshmem_my_pe() -> i32;\n    fn nvshmem_n_pes() -> i32;\n}\n\
        #[unsafe(no_mangle)]\n\
        pub unsafe extern \"ptx-kernel\" fn who(out: *mut i32) {\n\
            unsafe {\n        *out = nvshmem_my_pe();\n        *out.add(1) = nvshmem_n_pes();\n    }\n}\n";
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    dir
}

fn build(nvshmem: bool) -> String {
    let dir = kernel_crate();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("nvshmem-link-{nvshmem}"));
    let ptx = PtxBuilder::new(&dir)
        .arch(Arch::Sm90)
        .target_dir(target)
        .install_missing_components(true)
        .nvshmem(nvshmem)
        .compile()
        .unwrap();
    std::fs::read_to_string(ptx).unwrap()
}

/// The `.func` lines of the PTX that name `name` (as a whole identifier): `(externs, others)`.
fn func_lines(ptx: &str, name: &str) -> (usize, usize) {
    let names = |l: &str| {
        l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .any(|w| w == name)
    };
    let funcs = ptx.lines().filter(|l| l.contains(".func") && names(l));
    funcs.fold((0, 0), |(e, o), l| {
        if l.contains(".extern") {
            (e + 1, o)
        } else {
            (e, o + 1)
        }
    })
}

#[test]
#[ignore = "links 31 MB of NVSHMEM bitcode (minutes) and needs NVSHMEM found or downloadable: run with --ignored"]
fn nvshmem_bitcode_is_linked_into_the_ptx() {
    let install = PtxBuilder::new(kernel_crate())
        .nvshmem(true)
        .nvshmem_install()
        .unwrap()
        .unwrap();
    assert_eq!(
        (install.version().0, install.version().1),
        (nvshmem::VERSION.0, nvshmem::VERSION.1)
    );
    // Control: without the link each call stays an external declaration (so the check
    // below can fail).
    let plain = build(false);
    let plain_lines: Vec<(usize, usize)> = SYMBOLS.iter().map(|s| func_lines(&plain, s)).collect();
    assert_eq!(plain_lines, [(1, 0), (1, 0)], "{plain}");
    assert!(!plain.contains("nvshmemi_device_state_d"));

    // Linked: no declaration is left (a body may be inlined away, so none is required).
    let linked = build(true);
    let externs: Vec<usize> = SYMBOLS.iter().map(|s| func_lines(&linked, s).0).collect();
    assert_eq!(externs, [0, 0]);
    // NVSHMEM's device state, which nvshmemx_cumodule_init fills at load time.
    assert!(linked.contains("nvshmemi_device_state_d"));
    assert!(
        linked.contains(".entry who("),
        "{}",
        &linked[..linked.len().min(2000)]
    );
}
