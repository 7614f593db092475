//! What the numbered examples (`examples/NN-*.rs`) share: the kernels' PTX, the launch
//! watchdog, the check of a result, a deterministic generator, and [`run_examples`], which
//! opens GPU 0, runs examples and reports them, the same for one example (`cargo run
//! --example 01-sum-then-publish`) as for all of them (the binary `examples-app`).
//!
//! Each example is a `pub fn run(gpu: &Device, kernels: &Module) -> Result<String, Failed>`:
//! it launches its kernel and checks the result exactly, returning what it checked.

use ptx_sync_host::{Device, Module};
use std::process::ExitCode;
use std::time::Duration;

/// The kernel crate's PTX, built by build.rs (`ptx_sync_build` sets `KERNELS_PTX`).
pub const PTX: &str = include_str!(env!("KERNELS_PTX"));

/// Example 05's kernels (../host-tested-kernels, whose `cargo test` runs them on the host),
/// built by build.rs too (`HOST_TESTED_KERNELS_PTX`); that example loads it itself.
pub const HOST_TESTED_PTX: &str = include_str!(env!("HOST_TESTED_KERNELS_PTX"));

/// How long a launch may take before it counts as deadlocked (`Device::wait`'s watchdog). Every
/// example finishes in well under a second.
pub const WATCHDOG: Duration = Duration::from_secs(20);

/// Threads per block in every example.
pub const BLOCK: u32 = 256;

/// Why an example failed: a wrong result, or an error of the host API (which, for a kernel that
/// never finished, leaves the GPU busy: the later examples are then not run).
pub enum Failed {
    Wrong(String),
    Host(ptx_sync_host::Error),
}

impl From<ptx_sync_host::Error> for Failed {
    fn from(e: ptx_sync_host::Error) -> Failed {
        Failed::Host(e)
    }
}

/// `Err(Failed::Wrong(..))` unless `ok`.
pub fn check(ok: bool, why: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok {
        Ok(())
    } else {
        Err(Failed::Wrong(why()))
    }
}

/// One example: launches its kernel of `kernels` on `gpu`, checks the result, and says what it
/// checked.
pub type Example = fn(&Device, &Module) -> Result<String, Failed>;

/// Runs `examples` (name, example) in order on GPU 0 with the kernels' PTX loaded, and prints
/// `example <name>: ok (<what was checked>)` or `example <name>: FAILED: <why>` for each.
///
/// Exit status: 0 when every example passed, 1 when one failed, 2 when there is no CUDA
/// driver here (after printing `examples: skipped: no CUDA driver (<why>)`).
pub fn run_examples(examples: &[(&str, Example)]) -> ExitCode {
    if let Err(ptx_sync_host::Error::NoDriver(why)) = ptx_sync_host::driver_available() {
        println!("examples: skipped: no CUDA driver ({why})");
        return ExitCode::from(2);
    }
    let opened = Device::open(0).and_then(|gpu| {
        let kernels = gpu.load_ptx_str("kernels.ptx (embedded)", PTX)?;
        Ok((gpu, kernels))
    });
    let (gpu, kernels) = match opened {
        Ok(loaded) => loaded,
        Err(e) => {
            println!("examples: FAILED: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (major, minor) = gpu.compute_capability();
    println!(
        "examples: {} (sm_{major}{minor}, {} SMs)",
        gpu.name(),
        gpu.sm_count()
    );
    let mut failed = 0;
    for (i, (name, example)) in examples.iter().enumerate() {
        match example(&gpu, &kernels) {
            Ok(what) => println!("example {name}: ok ({what})"),
            Err(Failed::Wrong(why)) => {
                println!("example {name}: FAILED: {why}");
                failed += 1;
            }
            Err(Failed::Host(e)) => {
                println!("example {name}: FAILED: {e}");
                failed += 1;
                if matches!(e, ptx_sync_host::Error::Timeout { .. }) {
                    // The kernel is still running: everything launched after it would wait.
                    for (rest, _) in &examples[i + 1..] {
                        println!("example {rest}: not run (an earlier kernel never finished)");
                        failed += 1;
                    }
                    break;
                }
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        println!("examples: {failed} of {} failed", examples.len());
        ExitCode::FAILURE
    }
}

/// A small deterministic generator (SplitMix64), so every run checks the same data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
}
