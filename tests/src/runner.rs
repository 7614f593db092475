//! Runs the suite: every test in its own child process (the same binary with `--one NAME`),
//! killed when its time limit passes. A deadlocked kernel cannot be cancelled inside a process
//! (its context stays busy), so the process is the unit the watchdog can stop: the hung test
//! fails with its name and the rest of the suite still runs.

use crate::{all_tests, Ctx, GpuTest};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the runner was asked to do.
pub struct Options {
    /// The folder with the PTX files.
    pub ptx_dir: PathBuf,
    /// Only tests whose name contains this.
    pub filter: Option<String>,
    /// Also run hidden tests (names starting with `__`, used by the harness's own tests).
    pub include_hidden: bool,
    /// Multiplies every test's time limit.
    pub timeout_scale: f64,
}

/// The tests selected by `opts`.
pub fn selected(opts: &Options) -> Vec<GpuTest> {
    all_tests()
        .into_iter()
        .filter(|t| opts.include_hidden || !t.name.starts_with("__"))
        .filter(|t| opts.filter.as_deref().is_none_or(|f| t.name.contains(f)))
        .collect()
}

/// Child side: runs one test in this process and prints `OK detail` / `ERR reason`.
/// Exit status: 0 passed, 1 failed, 2 no driver.
pub fn run_one(ptx_dir: &Path, name: &str) -> i32 {
    let Some(test) = all_tests().into_iter().find(|t| t.name == name) else {
        println!("ERR no test named `{name}`");
        return 1;
    };
    let ctx = match Ctx::new(ptx_dir.to_path_buf()) {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("ERR {e}");
            return if e.starts_with("no CUDA driver") {
                2
            } else {
                1
            };
        }
    };
    match (test.run)(&ctx) {
        Ok(detail) => {
            println!("OK {detail}");
            0
        }
        Err(reason) => {
            println!("ERR {reason}");
            1
        }
    }
}

enum Outcome {
    Pass(String),
    Fail(String),
    Timeout,
}

fn run_child(exe: &Path, ptx_dir: &Path, test: &GpuTest, limit: Duration) -> Outcome {
    let child = Command::new(exe)
        .arg("--ptx-dir")
        .arg(ptx_dir)
        .args(["--one", test.name])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Outcome::Fail(format!("could not start {}: {e}", exe.display())),
    };
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Outcome::Timeout;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Outcome::Fail(format!("waiting for the test process: {e}")),
        }
    };
    let (mut out, mut err) = (String::new(), String::new());
    let _ = child.stdout.take().map(|mut s| s.read_to_string(&mut out));
    let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
    let last = out
        .lines()
        .rev()
        .find(|l| l.starts_with("OK ") || l.starts_with("ERR "));
    match (status.code(), last) {
        (Some(0), Some(l)) if l.starts_with("OK ") => Outcome::Pass(l[3..].to_string()),
        (_, Some(l)) if l.starts_with("ERR ") => Outcome::Fail(l[4..].to_string()),
        (code, _) => {
            let tail: Vec<&str> = err.lines().rev().take(8).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Outcome::Fail(format!(
                "test process exited with {code:?}: {}",
                tail.join(" | ")
            ))
        }
    }
}

/// Parent side: runs the selected tests, prints one line each and the summary
/// `N passed, N failed`. Exit status: 0 all passed, 1 failures (or nothing ran), 2 no driver.
pub fn run_all(opts: &Options) -> i32 {
    if !opts.ptx_dir.join(crate::KERNELS_PTX).is_file() {
        println!(
            "error: {} not found in the PTX directory {} (build it with `cargo xtask build-ptx` or stage with `cargo xtask stage`)",
            crate::KERNELS_PTX,
            opts.ptx_dir.display()
        );
        return 1;
    }
    if let Err(why) = ptx_sync_host::driver_available() {
        println!("no CUDA driver found: {why}");
        return 2;
    }
    match ptx_sync_host::Gpu::open(0) {
        Ok(gpu) => {
            let (major, minor) = gpu.compute_capability();
            println!(
                "device: {} ({} SMs, sm_{major}{minor})",
                gpu.name(),
                gpu.sm_count()
            );
        }
        Err(e) => {
            println!("no CUDA driver found: {e}");
            return 2;
        }
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            println!("error: cannot find this runner's own path: {e}");
            return 1;
        }
    };
    let tests = selected(opts);
    let (mut passed, mut failed) = (0, 0);
    for test in &tests {
        let limit = test.timeout.mul_f64(opts.timeout_scale);
        let start = Instant::now();
        match run_child(&exe, &opts.ptx_dir, test, limit) {
            Outcome::Pass(detail) => {
                passed += 1;
                println!(
                    "PASS {} ({detail}, {:.2}s)",
                    test.name,
                    start.elapsed().as_secs_f64()
                );
            }
            Outcome::Fail(reason) => {
                failed += 1;
                println!("FAIL {}: {reason}", test.name);
            }
            Outcome::Timeout => {
                failed += 1;
                println!(
                    "TIMEOUT {} after {:.1}s (killed by the watchdog)",
                    test.name,
                    limit.as_secs_f64()
                );
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 && passed > 0 {
        0
    } else {
        1
    }
}
