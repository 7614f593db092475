//! The GPU integration suite: test cases (`cases/*`) and the runner that executes each in its
//! own process under a watchdog (`runner`), used by the `gpu-tests` binary.

pub mod cases;
pub mod runner;

pub use ptx_sync_testkit::{skip, Outcome, Result};

use ptx_sync_host::cudarc::driver::{LaunchArgs, LaunchConfig};
use ptx_sync_host::{Device, Kernel, Module};
use std::cell::OnceCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The PTX file of tests/kernels inside the PTX directory.
pub const KERNELS_PTX: &str = "ptx_sync_test_kernels.ptx";

/// What a test gets: the GPU and its kernels.
pub struct Ctx {
    /// The GPU under test.
    pub gpu: Device,
    /// Where the PTX files are.
    pub ptx_dir: PathBuf,
    kernels: OnceCell<Module>,
}

impl Ctx {
    /// Opens GPU 0 for the PTX in `ptx_dir`.
    pub fn new(ptx_dir: PathBuf) -> Result<Ctx> {
        let gpu = Device::open(0)?;
        Ok(Ctx {
            gpu,
            ptx_dir,
            kernels: OnceCell::new(),
        })
    }

    /// A kernel of tests/kernels (the module is loaded once, on first use).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        if self.kernels.get().is_none() {
            let module = self.gpu.load_ptx(self.ptx_dir.join(KERNELS_PTX))?;
            let _ = self.kernels.set(module);
        }
        self.kernels.get().unwrap().kernel(name).map_err(Into::into)
    }

    /// A skip where this GPU is older than sm_90: `"{needs} sm_90 (this GPU is sm_XY)"`, where
    /// `needs` names the feature and its verb (`"elect.sync needs"`).
    pub fn require_sm90(&self, needs: &str) -> Result<()> {
        let (major, minor) = self.gpu.compute_capability();
        if (major, minor) < (9, 0) {
            return skip(format!("{needs} sm_90 (this GPU is sm_{major}{minor})"));
        }
        Ok(())
    }

    /// Launches `args` with `cfg` on this GPU, then waits for it at most `limit`. `Ok` holds the
    /// time from the launch to the end; a launch the driver refuses fails as `launch: <error>`.
    ///
    /// # Safety
    /// As cudarc's [`LaunchArgs::launch`]: the arguments pushed are the kernel's, in order.
    pub unsafe fn launch_and_wait(
        &self,
        args: LaunchArgs<'_>,
        cfg: LaunchConfig,
        limit: Duration,
    ) -> Result<Duration> {
        unsafe { self.launch_as(args, cfg, limit, false) }
    }

    /// [`launch_and_wait`](Ctx::launch_and_wait) as a cooperative launch (every block
    /// resident at once).
    ///
    /// # Safety
    /// As cudarc's [`LaunchArgs::launch_cooperative`].
    pub unsafe fn launch_cooperative_and_wait(
        &self,
        args: LaunchArgs<'_>,
        cfg: LaunchConfig,
        limit: Duration,
    ) -> Result<Duration> {
        unsafe { self.launch_as(args, cfg, limit, true) }
    }

    unsafe fn launch_as(
        &self,
        mut args: LaunchArgs<'_>,
        cfg: LaunchConfig,
        limit: Duration,
        cooperative: bool,
    ) -> Result<Duration> {
        let start = Instant::now();
        let launched = if cooperative {
            unsafe { args.launch_cooperative(cfg) }
        } else {
            unsafe { args.launch(cfg) }
        };
        launched.map_err(|e| format!("launch: {e}"))?;
        self.gpu.wait(limit)?;
        Ok(start.elapsed())
    }
}

/// `r`, where a GPU without thread-block clusters ([`ptx_sync_host::Error::NoClusters`]) is a
/// skip saying so.
pub fn clusters_or_skip<T>(r: ptx_sync_host::Result<T>) -> Result<T> {
    match r {
        Err(err @ ptx_sync_host::Error::NoClusters { .. }) => skip(err),
        r => Ok(r?),
    }
}

/// One GPU test: `run` returns a short account of what it checked, why it failed, or (as
/// [`skip`]) why it does not apply here.
pub struct GpuTest {
    /// Unique name (what `--filter` and the report use).
    pub name: &'static str,
    /// The watchdog's limit for this test's process.
    pub timeout: Duration,
    /// The test.
    pub run: fn(&Ctx) -> Result<String>,
}

/// [`GpuTest`]s that share one time limit, in order: `cases![LIMIT; "name" => run, ...]`, where
/// `run` is a `fn(&Ctx) -> Result<String>` or a closure that captures nothing.
#[macro_export]
macro_rules! cases {
    ($timeout:expr; $($name:literal => $run:expr),* $(,)?) => {
        vec![$($crate::GpuTest {
            name: $name,
            timeout: $timeout,
            run: $run,
        }),*]
    };
}

/// Every test of the suite, in run order.
pub fn all_tests() -> Vec<GpuTest> {
    cases::tests()
}
