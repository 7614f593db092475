//! `PtxBuilder::debug_checks` reaches the PTX: a tiny kernel that counts a latch down holds
//! ptx-sync's misuse check (`vprintf` of its message, then `trap`) with the checks on, and
//! neither with them off. Builds `core` for nvptx once (about a minute), into this package's
//! `CARGO_TARGET_TMPDIR`; the two builds share it and differ only in the `ptx-sync` package.
//! The same kernel crate checks that `shared!`'s `#[align(N)]` reaches the PTX.

use ptx_sync_build::{Arch, PtxBuilder};
use std::path::{Path, PathBuf};

/// A kernel crate of its own (its own workspace) in the test's temporary directory, with the
/// golden kernels' lock file (ptx-sync's `cfg(loom)` dependency stays locked: no network).
fn kernel_crate() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debug-checks-kernel");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"debug-checks-kernel\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\nptx-sync = {{ path = {:?} }}\n\n\
         [profile.release]\npanic = \"abort\"\n\n[profile.dev]\npanic = \"abort\"\n\n[workspace]\n",
        root.join("device")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    if !dir.join("Cargo.lock").exists() {
        std::fs::copy(root.join("tests/golden/Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    }
    // The panic handler spins, so any `trap` or `vprintf` in the PTX is ptx-sync's check.
    let lib = "#![no_std]\n#![feature(abi_ptx)]\n\
        #[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! { loop {} }\n\
        ptx_sync::shared! { #[align(16)] static TILE: [u32; 64]; }\n\
        #[unsafe(no_mangle)]\n\
        pub unsafe extern \"ptx-kernel\" fn count_down(p: *mut u32) {\n\
            unsafe { ptx_sync::Latch::<ptx_sync::Gpu>::from_ptr(p) }.count_down();\n}\n";
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    dir
}

#[test]
fn debug_checks_put_the_message_and_trap_in_the_ptx() {
    let dir = kernel_crate();
    let build = |on: bool| {
        let b = PtxBuilder::new(&dir)
            .arch(Arch::Sm90)
            .target_dir(dir.join("target"))
            .install_missing_components(true)
            .debug_checks(on);
        let ptx = b.compile().unwrap_or_else(|e| panic!("{e}"));
        std::fs::read_to_string(ptx).unwrap()
    };
    let on = build(true);
    assert!(on.contains("call.uni") && on.contains("vprintf"), "{on}");
    assert!(on.contains("trap;"), "{on}");
    // Still optimized: the check is inlined into the kernel, not a debug build's calls.
    assert!(!on.contains("4core"), "{on}");
    let off = build(false);
    assert!(!off.contains("vprintf") && !off.contains("trap;"), "{off}");
    assert!(off.contains("atom.release.gpu.add.u32"), "{off}");
    // `shared!`'s `#[align(16)]` reaches the PTX (a `[u32; _]` alone is 4-byte aligned).
    assert!(
        off.contains(".shared .align 16 .b8 ptx_sync_shared_TILE_"),
        "{off}"
    );
}
