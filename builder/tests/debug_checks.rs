//! `PtxBuilder::debug_checks` reaches the PTX: a tiny kernel that counts a latch down holds
//! ptx-sync's misuse check (`vprintf` of its message, then `trap`) with the checks on, and
//! neither with them off. Builds `core` for nvptx once (about a minute), into this package's
//! `CARGO_TARGET_TMPDIR`; the two builds share it and differ only in the `ptx-sync` package.
//! The same kernel crate checks that `shared!`'s `#[align(N)]` reaches the PTX, that the
//! checks which hold in every build print their message whatever the panic handler, and a host
//! crate's `build.rs` written as the README shows gets the checks in `cargo run` and not in
//! `cargo run --release`. A host crate that builds it with warnings gets each of them from
//! cargo as one `warning:` line.

use ptx_sync_build::{Arch, PtxBuilder, DEBUG_CHECKS_ENV};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The tests build one kernel crate into one target directory and read the PTX file a build
/// leaves there: one build at a time.
fn one_build_at_a_time() -> MutexGuard<'static, ()> {
    static BUILDS: Mutex<()> = Mutex::new(());
    BUILDS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The byte strings the PTX initializes (`.global .align 1 .b8 name[N] = {112, 116, ...};`:
/// rustc writes string literals as numbers).
fn ptx_strings(ptx: &str) -> Vec<Vec<u8>> {
    ptx.lines()
        .filter(|l| l.contains(".b8 ") && l.contains("] = {"))
        .filter_map(|l| {
            let body = &l[l.find('{')? + 1..l.rfind('}')?];
            body.split(',')
                .map(|b| b.trim().parse::<u8>().ok())
                .collect()
        })
        .collect()
}

/// Whether the PTX holds ptx-sync's `vprintf` line `ptx-sync: <message>\n`, NUL-terminated (the
/// trailing zeros of an initializer may be left out: PTX fills the rest of an array with 0).
fn has_message(ptx: &str, message: &str) -> bool {
    let line = format!("ptx-sync: {message}\n");
    ptx_strings(ptx).iter().any(|s| {
        s.strip_prefix(line.as_bytes())
            .is_some_and(|rest| rest.iter().all(|&b| b == 0))
    })
}

/// The message of the check in `count_down` (device/src/latch.rs).
const LATCH: &str = "Latch::count_down: counted below zero";

/// A kernel crate of its own (its own workspace) in the test's temporary directory, with the
/// golden kernels' lock file (ptx-sync's `cfg(loom)` dependency stays locked: no network).
fn kernel_crate() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debug-checks-kernel");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"debug-checks-kernel\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\nptx-sync = {{ path = {:?} }}\n\n\
         [features]\nalways = []\nconst_fail = []\nwarns = []\n\n\
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
            unsafe { ptx_sync::Latch::<ptx_sync::Gpu>::from_ptr(p) }.count_down();\n}\n\
        #[cfg(feature = \"always\")]\n#[unsafe(no_mangle)]\n\
        pub unsafe extern \"ptx-kernel\" fn init_semaphore(p: *mut u32, n: u32) {\n\
            unsafe { ptx_sync::Semaphore::<ptx_sync::Gpu, 4>::from_ptr(p) }.init(n);\n}\n\
        #[cfg(feature = \"always\")]\n#[unsafe(no_mangle)]\n\
        pub unsafe extern \"ptx-kernel\" fn load_as(p: *mut u32, release: u32, out: *mut u32) {\n\
            use ptx_sync::Ordering::{Acquire, Release};\n\
            let order = if release == 1 { Release } else { Acquire };\n\
            unsafe { *out = ptx_sync::Atomic::<u32, ptx_sync::Gpu>::from_ptr(p).load(order) };\n}\n\
        #[cfg(feature = \"const_fail\")]\n\
        pub static SEMAPHORE: ptx_sync::Semaphore<ptx_sync::Gpu, 1> = ptx_sync::Semaphore::new(2);\n\
        #[cfg(feature = \"warns\")]\n#[deprecated(note = \"two\\nlines\")]\nfn old() {}\n\
        #[cfg(feature = \"warns\")]\n#[unsafe(no_mangle)]\n\
        pub unsafe extern \"ptx-kernel\" fn warns(p: *mut u32) {\n\
            let unused = 1;\n    old();\n    unsafe { *p = 0 };\n}\n";
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    dir
}

#[test]
fn debug_checks_put_the_message_and_trap_in_the_ptx() {
    let _one = one_build_at_a_time();
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
    assert!(has_message(&on, LATCH), "no `{LATCH}` line: {on}");
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

/// The kernel crate built without debug checks, with `features`.
fn build_kernel(features: &[&str]) -> Result<String, ptx_sync_build::Error> {
    let dir = kernel_crate();
    let ptx = PtxBuilder::new(&dir)
        .arch(Arch::Sm90)
        .target_dir(dir.join("target"))
        .install_missing_components(true)
        .debug_checks(false)
        .features(features.iter().copied())
        .compile()?;
    Ok(std::fs::read_to_string(ptx).unwrap())
}

#[test]
fn checks_of_every_build_print_their_message_whatever_the_panic_handler() {
    let _one = one_build_at_a_time();
    // The kernel's panic handler spins: a message in the PTX is printed by ptx-sync itself.
    let ptx = build_kernel(&["always"]).unwrap_or_else(|e| panic!("{e}"));
    for message in [
        "Semaphore::init: initial count above MAX",
        "there is no such thing as a release load",
    ] {
        assert!(has_message(&ptx, message), "no `{message}` line: {ptx}");
    }
    assert!(ptx.contains("vprintf") && ptx.contains("trap;"), "{ptx}");
    // Only the always-on checks: the debug-build one of `count_down` stays out.
    assert!(!has_message(&ptx, LATCH), "{ptx}");
}

#[test]
fn a_check_in_a_constant_is_a_compile_error_with_the_hosts_message() {
    let _one = one_build_at_a_time();
    let e = build_kernel(&["const_fail"]).expect_err("Semaphore::new(2) of MAX 1 must not build");
    let text = e.to_string();
    assert!(
        text.contains("evaluation panicked: Semaphore::new: initial count above MAX\n"),
        "{text}"
    );
}

/// A host crate whose `build.rs` builds the kernel crate as the README shows (no
/// `debug_checks` call) and whose program prints the PTX it embeds.
fn host_crate(kernel: &Path) -> PathBuf {
    let builder = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debug-checks-host");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"debug-checks-host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [build-dependencies]\nptx-sync-build = {{ path = {builder:?} }}\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let build_rs = format!(
        "fn main() -> Result<(), ptx_sync_build::Error> {{\n\
         ptx_sync_build::PtxBuilder::new({kernel:?})\n\
         .arch(ptx_sync_build::Arch::Sm90)\n\
         .target_dir({target:?})\n\
         .install_missing_components(true)\n\
         .env_var(\"KERNEL_PTX\")\n\
         .build()?;\nOk(())\n}}\n",
        target = kernel.join("target")
    );
    std::fs::write(dir.join("build.rs"), build_rs).unwrap();
    let main = "fn main() { print!(\"{}\", include_str!(env!(\"KERNEL_PTX\"))); }\n";
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    dir
}

#[test]
fn debug_checks_follow_the_host_build_by_default() {
    let _one = one_build_at_a_time();
    let host = host_crate(&kernel_crate());
    let run = |release: bool| {
        let mut cmd = ptx_sync_build::nested_cargo();
        cmd.current_dir(&host)
            .env_remove(DEBUG_CHECKS_ENV)
            .args(["run", "--quiet", "--offline"]);
        if release {
            cmd.arg("--release");
        }
        let out = cmd.output().expect("running cargo");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "cargo run (release: {release}): {stderr}"
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let debug = run(false);
    assert!(
        has_message(&debug, LATCH) && debug.contains("trap;"),
        "{debug}"
    );
    let release = run(true);
    assert!(
        !release.contains("vprintf") && !release.contains("trap;"),
        "{release}"
    );
    assert!(release.contains("atom.release.gpu.add.u32"), "{release}");
}

/// Where `needle` starts in the kernel crate's `src/lib.rs`, as rustc says it (`line:column`,
/// both from 1).
fn position_in_lib(kernel: &Path, needle: &str) -> String {
    let lib = std::fs::read_to_string(kernel.join("src/lib.rs")).unwrap();
    let (line, text) = lib
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in {lib}"));
    format!("{}:{}", line + 1, text.find(needle).unwrap() + 1)
}

/// The kernel crate's own warnings reach the user of a host crate as one cargo `warning:`
/// line each (a multi-line message folded into one), and nothing else of the nested build
/// does: not rustc's note about `+ptx84`, and no build script output line that cargo would not
/// read.
#[test]
fn the_kernel_crates_warnings_are_forwarded_one_line_each() {
    let _one = one_build_at_a_time();
    let kernel = kernel_crate();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("warnings-host");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let builder = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = format!(
        "[package]\nname = \"warnings-host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [build-dependencies]\nptx-sync-build = {{ path = {builder:?} }}\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let build_rs = format!(
        "fn main() -> Result<(), ptx_sync_build::Error> {{\n\
         ptx_sync_build::PtxBuilder::new({kernel:?})\n\
         .arch(ptx_sync_build::Arch::Sm90)\n\
         .target_dir({target:?})\n\
         .install_missing_components(true)\n\
         .debug_checks(false)\n\
         .features([\"warns\"])\n\
         .build()?;\nOk(())\n}}\n",
        target = kernel.join("target")
    );
    std::fs::write(dir.join("build.rs"), build_rs).unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    let out = ptx_sync_build::nested_cargo()
        .current_dir(&dir)
        .args(["build", "--offline"])
        .output()
        .expect("running cargo");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let expected = [
        format!(
            "warning: warnings-host@0.1.0: debug-checks-kernel: unused variable: `unused` \
             --> src/lib.rs:{}",
            position_in_lib(&kernel, "unused")
        ),
        format!(
            "warning: warnings-host@0.1.0: debug-checks-kernel: use of deprecated function \
             `old`: two lines --> src/lib.rs:{}",
            position_in_lib(&kernel, "old();")
        ),
    ];
    for line in &expected {
        assert!(
            stderr.lines().any(|l| l == line),
            "no `{line}` in:\n{stderr}"
        );
    }
    let forwarded: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: warnings-host@0.1.0: "))
        .collect();
    assert_eq!(forwarded.len(), 2, "{stderr}");
    assert!(!stderr.contains("ptx84"), "{stderr}");
    // The build script's own output (what cargo read): `cargo:` lines only.
    let build = dir.join("target/debug/build");
    let output = std::fs::read_dir(&build)
        .unwrap()
        .map(|e| e.unwrap().path().join("output"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no build script output under {}", build.display()));
    let output = std::fs::read_to_string(output).unwrap();
    let warnings = output
        .lines()
        .filter(|l| l.starts_with("cargo:warning="))
        .count();
    assert_eq!(warnings, 2, "{output}");
    assert!(output.lines().all(|l| l.starts_with("cargo:")), "{output}");
}
