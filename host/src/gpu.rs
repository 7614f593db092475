use crate::{Error, Result};
use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError,
    ValidAsZeroBits,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Whether a CUDA driver can be used here; `Err` says why not. Never panics (cudarc's
/// dynamic loader panics when `libcuda.so` is missing, so that is checked first).
pub fn driver_available() -> std::result::Result<(), String> {
    // SAFETY: only tries to open the library.
    if !unsafe { sys::is_culib_present() } {
        return Err("libcuda.so could not be loaded (no NVIDIA driver on this machine)".into());
    }
    // The library is present, so the symbol loader does not panic.
    match cudarc::driver::result::init() {
        Ok(()) => Ok(()),
        Err(e) => Err(format!("cuInit failed: {e}")),
    }
}

/// [`Error::PtxNotFound`] unless `path` is a file: checked before the driver sees the path.
fn check_ptx_path(path: &Path) -> Result<()> {
    if path.is_file() {
        Ok(())
    } else {
        Err(Error::PtxNotFound(path.to_path_buf()))
    }
}

/// One GPU: its context and the stream tests launch on.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    sms: u32,
    cc: (u32, u32),
}

impl Gpu {
    /// Opens GPU `ordinal`, or reports [`Error::NoDriver`].
    pub fn open(ordinal: usize) -> Result<Gpu> {
        driver_available().map_err(Error::NoDriver)?;
        let ctx = CudaContext::new(ordinal).map_err(|e| Error::Driver {
            what: format!("opening GPU {ordinal}"),
            source: e,
        })?;
        let stream = ctx.default_stream();
        let what = |e| Error::Driver {
            what: format!("reading the attributes of GPU {ordinal}"),
            source: e,
        };
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(what)? as u32;
        let (major, minor) = ctx.compute_capability().map_err(what)?;
        Ok(Gpu {
            ctx,
            stream,
            sms,
            cc: (major as u32, minor as u32),
        })
    }

    /// Wraps a driver error with what was being done.
    pub fn driver_error(&self, what: &str, source: DriverError) -> Error {
        Error::Driver {
            what: what.to_string(),
            source,
        }
    }

    /// The cudarc context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every helper here uses (launch on it with `launch_builder`).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn name(&self) -> String {
        self.ctx
            .name()
            .unwrap_or_else(|e| format!("<name unavailable: {e}>"))
    }

    /// Number of streaming multiprocessors.
    pub fn sm_count(&self) -> u32 {
        self.sms
    }

    /// Compute capability (major, minor), e.g. (9, 0) on an H100.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.cc
    }

    pub(crate) fn attribute(&self, a: sys::CUdevice_attribute) -> Result<i32> {
        self.ctx
            .attribute(a)
            .map_err(|e| self.driver_error("reading a device attribute", e))
    }

    /// Loads a PTX file; [`Error::PtxNotFound`] before touching the driver if it is missing.
    pub fn load_ptx(&self, path: &Path) -> Result<Module> {
        check_ptx_path(path)?;
        let ptx = cudarc::nvrtc::Ptx::from_file(path);
        let module = self
            .ctx
            .load_module(ptx)
            .map_err(|e| self.driver_error(&format!("loading {}", path.display()), e))?;
        Ok(Module {
            module,
            path: path.to_path_buf(),
        })
    }

    /// `n` zeroed elements of device memory.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize) -> Result<CudaSlice<T>> {
        if n == 0 {
            return Err(Error::Empty("buffer length"));
        }
        self.stream
            .alloc_zeros(n)
            .map_err(|e| self.driver_error("allocating device memory", e))
    }

    /// Copies `data` to new device memory.
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        if data.is_empty() {
            return Err(Error::Empty("buffer length"));
        }
        self.stream
            .clone_htod(data)
            .map_err(|e| self.driver_error("copying to the GPU", e))
    }

    /// Copies device memory back (waits for the stream).
    pub fn download<T: DeviceRepr>(&self, data: &CudaSlice<T>) -> Result<Vec<T>> {
        self.stream
            .clone_dtoh(data)
            .map_err(|e| self.driver_error("copying from the GPU", e))
    }

    /// Waits until everything launched on the stream has finished, polling instead of blocking
    /// so that a kernel that never finishes becomes [`Error::Timeout`] after `limit`. A kernel
    /// that trapped or faulted is reported as a driver error.
    pub fn wait(&self, limit: Duration) -> Result<()> {
        let event = self
            .stream
            .record_event(None)
            .map_err(|e| self.driver_error("recording an event", e))?;
        let start = Instant::now();
        loop {
            match event.try_is_complete() {
                Ok(true) => return Ok(()),
                Ok(false) if start.elapsed() > limit => {
                    return Err(Error::Timeout {
                        what: "the GPU work".into(),
                        limit,
                    });
                }
                Ok(false) => std::thread::sleep(Duration::from_micros(200)),
                Err(e) => return Err(self.driver_error("kernel execution", e)),
            }
        }
    }
}

/// A loaded PTX module.
pub struct Module {
    module: Arc<CudaModule>,
    path: PathBuf,
}

impl Module {
    /// The kernel called `name`, or [`Error::KernelNotFound`].
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        match self.module.load_function(name) {
            Ok(function) => Ok(Kernel {
                function,
                name: name.to_string(),
            }),
            Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_FOUND)) => Err(Error::KernelNotFound {
                ptx: self.path.clone(),
                name: name.to_string(),
            }),
            Err(source) => Err(Error::Driver {
                what: format!("looking up kernel `{name}` in {}", self.path.display()),
                source,
            }),
        }
    }
}

/// A kernel of a loaded module.
#[derive(Clone)]
pub struct Kernel {
    function: CudaFunction,
    name: String,
}

impl Kernel {
    /// The cudarc function, for `stream.launch_builder(kernel.function())`.
    pub fn function(&self) -> &CudaFunction {
        &self.function
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_check_never_panics() {
        // Whatever the machine: an answer, not a panic.
        let _ = std::panic::catch_unwind(driver_available).expect("driver_available panicked");
    }

    /// Whatever the machine, a way in that cannot work is an `Err` that names the problem, not
    /// a panic: without a driver, every ordinal is `NoDriver` with the driver check's reason;
    /// with one, a GPU that does not exist, a missing PTX file and a file that is not PTX are
    /// errors naming the ordinal or the file.
    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        if let Err(why) = driver_available() {
            assert!(
                why.starts_with("libcuda.so could not be loaded")
                    || why.starts_with("cuInit failed"),
                "{why}"
            );
            for ordinal in [0, 4096] {
                match Gpu::open(ordinal) {
                    Err(Error::NoDriver(reason)) => {
                        assert_eq!(reason, why);
                        assert_eq!(
                            Error::NoDriver(reason).to_string(),
                            format!("no CUDA driver: {why}")
                        );
                    }
                    Err(e) => panic!("GPU {ordinal}: expected NoDriver, got {e}"),
                    Ok(_) => panic!("opened GPU {ordinal} without a driver"),
                }
            }
            return;
        }
        let e = Gpu::open(4096).err().expect("opened a GPU 4096");
        let msg = e.to_string();
        match &e {
            Error::Driver {
                what,
                source: DriverError(sys::CUresult::CUDA_ERROR_INVALID_DEVICE),
            } => assert_eq!(what, "opening GPU 4096"),
            _ => panic!("expected CUDA_ERROR_INVALID_DEVICE opening GPU 4096, got {msg}"),
        }
        assert!(
            msg.starts_with("opening GPU 4096: CUDA_ERROR_INVALID_DEVICE"),
            "{msg}"
        );
        let gpu = Gpu::open(0).expect("a driver but no GPU 0");
        let missing = Path::new("/nonexistent/ptx_sync_test_kernels.ptx");
        match gpu.load_ptx(missing) {
            Err(Error::PtxNotFound(p)) => assert_eq!(p, missing),
            Err(e) => panic!("expected PtxNotFound, got {e}"),
            Ok(_) => panic!("loaded a missing file"),
        }
        let not_ptx =
            std::env::temp_dir().join(format!("ptx-sync-not-ptx-{}.ptx", std::process::id()));
        std::fs::write(&not_ptx, "this is not PTX\n").unwrap();
        let loaded = gpu.load_ptx(&not_ptx);
        let _ = std::fs::remove_file(&not_ptx);
        match loaded {
            Err(e @ Error::Driver { .. }) => {
                let want = format!("loading {}: CUDA_ERROR_", not_ptx.display());
                assert!(e.to_string().starts_with(&want), "{e}");
            }
            Err(e) => panic!("expected a driver error, got {e}"),
            Ok(_) => panic!("loaded a file that is not PTX"),
        }
    }

    #[test]
    fn missing_ptx_is_reported_before_the_driver() {
        let path = Path::new("/nonexistent/ptx_sync_test_kernels.ptx");
        let e = check_ptx_path(path).unwrap_err();
        assert!(matches!(&e, Error::PtxNotFound(p) if p == path));
        let msg = e.to_string();
        assert!(
            msg.contains("/nonexistent/ptx_sync_test_kernels.ptx"),
            "{msg}"
        );
        assert!(msg.contains("cargo xtask build-ptx"), "{msg}");
        // A directory is not a PTX file either.
        assert!(check_ptx_path(&std::env::temp_dir()).is_err());
    }
}
