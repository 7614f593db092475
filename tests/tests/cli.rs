//! The `gpu-tests` command line as a user sees it; runs everywhere (no GPU needed: with no
//! driver the runner must say so and exit 2).

use std::path::PathBuf;
use std::process::{Command, Output};

fn gpu_tests(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-tests"))
        .args(args)
        .env_remove("PTX_SYNC_PTX_DIR")
        .output()
        .expect("running gpu-tests")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A folder holding a (dummy) kernels PTX, so the runner gets past its PTX check.
fn fake_ptx_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-sync-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(ptx_sync_tests::KERNELS_PTX), "// not real PTX\n").unwrap();
    dir
}

#[test]
fn list_names_the_visible_tests() {
    let o = gpu_tests(&["--list"]);
    assert!(o.status.success());
    let names = stdout(&o);
    for name in [
        "harness_smoke_iota",
        "harness_mapped_memory_roundtrip",
        "harness_cooperative_too_large_is_refused",
        "harness_watchdog_catches_hang",
    ] {
        assert!(names.lines().any(|l| l == name), "{name} missing:\n{names}");
    }
    assert!(!names.contains("__hang"), "hidden test listed:\n{names}");
    let o = gpu_tests(&["--list", "--filter", "smoke"]);
    assert_eq!(stdout(&o).trim(), "harness_smoke_iota");
}

#[test]
fn missing_ptx_dir_is_named() {
    let o = gpu_tests(&["--ptx-dir", "/nonexistent/ptx-dir"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("/nonexistent/ptx-dir"),
        "{}",
        stdout(&o)
    );
    let o = gpu_tests(&[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("PTX_SYNC_PTX_DIR"));
}

#[test]
fn ptx_dir_from_the_environment() {
    let o = Command::new(env!("CARGO_BIN_EXE_gpu-tests"))
        .env("PTX_SYNC_PTX_DIR", "/nonexistent/from-env")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("/nonexistent/from-env"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn no_driver_exits_2() {
    let Err(ptx_sync_host::Error::NoDriver(why)) = ptx_sync_host::driver_available() else {
        return; // a GPU machine: gpu_suite covers the real run
    };
    let dir = fake_ptx_dir("nodriver");
    let o = gpu_tests(&["--ptx-dir", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o).trim(),
        format!("no CUDA driver found: {why}"),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}
