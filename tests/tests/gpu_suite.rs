//! `cargo test`'s entry to the GPU suite (harness = false, so its output is never captured).
//! Without a CUDA driver it says so and passes: CI and GPU-less machines skip visibly. With a
//! driver it builds the PTX and runs the whole suite through the `gpu-tests` runner.

use std::process::{exit, Command};

fn main() {
    if let Err(ptx_sync_host::Error::NoDriver(why)) = ptx_sync_host::driver_available() {
        println!("gpu suite: skipped: no CUDA driver ({why})");
        return;
    }
    let arch: xtask::Arch = match std::env::var("PTX_SYNC_ARCH") {
        Ok(a) => a.parse().unwrap_or_else(|e| {
            eprintln!("PTX_SYNC_ARCH: {e}");
            exit(1)
        }),
        Err(_) => xtask::Arch::Sm90,
    };
    let crate_dir = xtask::workspace_root().join("tests/kernels");
    let ptx = xtask::build_ptx(&crate_dir, arch).unwrap_or_else(|e| {
        eprintln!("gpu suite: building the PTX for {arch} failed:\n{e}");
        exit(1)
    });
    let ptx_dir = ptx.parent().expect("the PTX file lives in a directory");
    // The examples/ project (a user's crate outside the workspace), for the `examples_app` case.
    let app = xtask::build_examples_app(arch).unwrap_or_else(|e| {
        eprintln!("gpu suite: building examples/ for {arch} failed:\n{e}");
        exit(1)
    });
    let status = Command::new(env!("CARGO_BIN_EXE_gpu-tests"))
        .env("PTX_SYNC_EXAMPLES_APP", app)
        .arg("--ptx-dir")
        .arg(ptx_dir)
        .status()
        .expect("running gpu-tests");
    exit(status.code().unwrap_or(1));
}
